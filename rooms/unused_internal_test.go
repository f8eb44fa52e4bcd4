package rooms

import (
	"slices"
	"testing"
	"time"
)

// TestUnusedRoomsRealPlay (issue 43 item 3), in made-up time: with a
// 10 s timeout and 2 players for real play, a room whose match never
// starts ends at 10 s; one whose lone idle player pings on (no input
// changes) ends at 10 s too; one with 2 players whose inputs stopped
// changing ends 10 s after the last change; one with 1 player whose
// inputs change ends (too few players); one with 2 players changing
// inputs stays; a room gone is forgotten.
func TestUnusedRoomsRealPlay(t *testing.T) {
	u := unusedRooms{timeout: 10 * time.Second, minPlayers: 2}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []string{"NEVER", "IDLE", "STOPPED", "ALONE", "PLAYING", "GONE"} {
		u.add(c, t0)
	}
	type play struct {
		players int
		changes uint64
		open    bool
	}
	rooms := map[string]play{"NEVER": {0, 0, true}, "IDLE": {1, 0, true}, "STOPPED": {2, 0, true},
		"ALONE": {1, 0, true}, "PLAYING": {2, 0, true}, "GONE": {0, 0, false}}
	var ended []string
	for s := 1; s <= 30; s++ {
		now := t0.Add(time.Duration(s) * time.Second)
		for c, p := range rooms {
			switch {
			case c == "STOPPED" && s <= 5, c == "ALONE", c == "PLAYING":
				p.changes += 60
			}
			rooms[c] = p
		}
		for _, c := range u.due(now, func(code string) (int, uint64, bool) {
			p := rooms[code]
			return p.players, p.changes, p.open
		}) {
			ended = append(ended, c)
			rooms[c] = play{open: false}
			if want := map[string]int{"NEVER": 10, "IDLE": 10, "ALONE": 10, "STOPPED": 15}[c]; s != want {
				t.Errorf("%s ended at %d s, want %d", c, s, want)
			}
		}
	}
	slices.Sort(ended)
	if !slices.Equal(ended, []string{"ALONE", "IDLE", "NEVER", "STOPPED"}) {
		t.Fatalf("ended %v", ended)
	}
	if len(u.rooms) != 1 {
		t.Fatalf("tracked %v, want PLAYING only", u.rooms)
	}
}
