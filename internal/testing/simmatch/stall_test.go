package simmatch

import (
	"fmt"
	"math/bits"
	"slices"
	"testing"
	"time"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testing/testgame"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/transport"
)

// firstStall is the server's first hold: when, at which tick, for whom.
type firstStall struct {
	at      time.Time
	tick    uint32
	players uint64
	changes int
}

func (f *firstStall) hook(now time.Time, tick uint32, players uint64) {
	f.changes++
	if f.at.IsZero() && players != 0 {
		f.at, f.tick, f.players = now, tick, players
	}
}

// darkLinkMatch is 4 players (2 of them lockstep) at 50 ms one way, the
// lowest-id player's link dark for 3 s from 3 s into a 9 s match, under
// the stall policy pol.
func darkLinkMatch(t *testing.T, pol server.Stall, f *firstStall) Result {
	return playChecked(t, Config[testgame.Input]{
		Players:  4,
		NewGame:  newTestGame,
		Bot:      testgame.Bot,
		Duration: 9 * time.Second,
		Link:     transport.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond},
		Blackout: 3 * time.Second,
		Seed:     5,
		Lockstep: map[int]bool{2: true, 3: true},
		Names:    true,
		Server:   server.Config{Stall: pol, OnWaiting: f.hook},
	})
}

// darkPlayer returns the lowest player id (Config.Blackout's player).
func darkPlayer(res Result) game.PlayerID {
	low := res.Clients[0].Player
	for _, st := range res.Clients {
		low = min(low, st.Player)
	}
	return low
}

// TestStallAcksDarkLink: under acks:30 the server pauses within 30 ticks
// plus a round trip of the dark link, waiting for exactly that player;
// every player hears it; the match resumes when the link returns, and
// every client verifies every tick (no tick lost or skipped), the
// lockstep ones showing only the server's worlds.
func TestStallAcksDarkLink(t *testing.T) {
	var f firstStall
	res := darkLinkMatch(t, server.Stall{Kind: server.StallAcks, Acks: 30}, &f)
	checkLockstep(t, res, map[int]bool{2: true, 3: true})
	dark := darkPlayer(res)
	if f.players != 1<<dark {
		t.Fatalf("first hold waits for %b, want player %d only", f.players, dark)
	}
	// The blackout starts 3 s (180 ticks) into the match; the last ack
	// before it is at most a round trip (100 ms ± 20: 7 ticks) old.
	if late := int(f.tick) - 180; late < 30-7 || late > 30+7+1 {
		t.Errorf("held after tick %d: %d ticks into the blackout, want 30 plus at most a round trip", f.tick, late)
	}
	st := res.Server
	if st.Stalls == 0 || st.LongestStall < 2500*time.Millisecond || st.LongestStall > 3*time.Second {
		t.Errorf("%d stalls, longest %v: want one of about 3 s less 30 ticks", st.Stalls, st.LongestStall)
	}
	darkName := ""
	for i, st := range res.Clients {
		if st.Player == dark {
			darkName = fmt.Sprintf("p%d", i)
		}
	}
	for i, h := range res.HeardWaiting {
		if h&(1<<dark) == 0 || !slices.Contains(res.HeardNames[i], darkName) {
			t.Errorf("client %d never heard the match wait for player %d, %s (heard %b, %q)", i, dark, darkName, h, res.HeardNames[i])
		}
	}
	if res.Dropped != 0 {
		t.Errorf("%d players dropped", res.Dropped)
	}
}

// TestStallNeverDarkLink: the same dark link under never: no hold, no
// waiting message; the dark player's inputs are late and repeated.
func TestStallNeverDarkLink(t *testing.T) {
	var f firstStall
	res := darkLinkMatch(t, server.Stall{}, &f)
	checkLockstep(t, res, map[int]bool{2: true, 3: true})
	if res.Server.Stalls != 0 || f.changes != 0 {
		t.Errorf("%d stalls, %d waiting changes under never", res.Server.Stalls, f.changes)
	}
	for i, h := range res.HeardWaiting {
		if h != 0 {
			t.Errorf("client %d heard of a wait: %b", i, h)
		}
	}
	if res.Server.LateInputs < 150 {
		t.Errorf("%d late inputs: the dark player's 3 s should be late", res.Server.LateInputs)
	}
}

// TestStallWait: under wait:50ms a player whose machine stops for 400 ms
// holds each tick at most 50 ms (the server then goes on with its last
// input); the match is verified everywhere.
func TestStallWait(t *testing.T) {
	var f firstStall
	res := playChecked(t, Config[testgame.Input]{
		Players:  4,
		NewGame:  newTestGame,
		Bot:      testgame.Bot,
		Duration: 4 * time.Second,
		Link:     transport.LinkConfig{Latency: 20 * time.Millisecond},
		Pause:    map[int]Pause{1: {At: time.Second, Length: 400 * time.Millisecond}},
		Seed:     9,
		Server:   server.Config{Stall: server.Stall{Kind: server.StallWait, Wait: 50 * time.Millisecond}, OnWaiting: f.hook},
	})
	st := res.Server
	if st.Stalls == 0 || st.LongestStall < 49*time.Millisecond || st.LongestStall > 51*time.Millisecond {
		t.Errorf("%d stalls, longest %v: want holds of at most 50 ms", st.Stalls, st.LongestStall)
	}
	if bits.OnesCount64(f.players) != 1 || f.players != 1<<res.Clients[1].Player {
		t.Errorf("first hold for %b, want the paused player %d", f.players, res.Clients[1].Player)
	}
	if st.LateInputs == 0 {
		t.Errorf("no late inputs: the paused player's should have been")
	}
}

// TestParseStall reads and writes every policy.
func TestParseStall(t *testing.T) {
	for _, c := range []struct {
		in, out string
		ok      bool
	}{
		{"never", "never", true}, {"wait:250ms", "wait:250ms", true}, {"acks:30", "acks:30", true},
		{"acks", "acks:0", true}, {"wait", "", false}, {"wait:-1s", "", false}, {"acks:0", "", false},
		{"acks:x", "", false}, {"sometimes", "", false}, {"never:1", "", false},
	} {
		st, err := server.ParseStall(c.in)
		if (err == nil) != c.ok || (c.ok && st.String() != c.out) {
			t.Errorf("ParseStall(%q) = %v, %v", c.in, st, err)
		}
	}
}
