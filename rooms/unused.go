package rooms

import (
	"sync"
	"time"
)

// DefaultUnusedTimeout is ServeOptions.UnusedTimeout's default: how long
// a room opened on demand may wait for its match to start.
const DefaultUnusedTimeout = 2 * time.Minute

// unusedRooms holds a match server's rooms opened on demand, with when
// each last saw real play: a lobby (or an attacker) that opens rooms and
// joins them at the relay without ever starting a match must not hold
// the server's slots (issue 30, item 3), nor may idle players who start
// a match and then send the same input for ever (issue 43, item 3). Real
// play is minPlayers players or more in the match, and an input that
// changed since the last look.
type unusedRooms struct {
	timeout    time.Duration // negative: never
	minPlayers int

	mu    sync.Mutex
	rooms map[string]roomUse
}

// roomUse is when a room last saw real play (or was opened), and its
// match's input changes then.
type roomUse struct {
	played  time.Time
	changes uint64
}

// roomPlay is what a room's match does now: its players, the inputs that
// changed in all its matches, and whether the room is open.
type roomPlay func(code string) (players int, changes uint64, open bool)

// add notes code, opened on demand at now.
func (u *unusedRooms) add(code string, now time.Time) {
	if u.timeout < 0 {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.rooms == nil {
		u.rooms = make(map[string]roomUse)
	}
	u.rooms[code] = roomUse{played: now}
}

// due returns the codes that saw no real play (play says) for the
// timeout at now, forgetting them and the rooms that are gone.
func (u *unusedRooms) due(now time.Time, play roomPlay) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for code, use := range u.rooms {
		players, changes, open := play(code)
		switch {
		case !open:
			delete(u.rooms, code)
			continue
		case changes != use.changes && players >= u.minPlayers:
			use.played = now
		}
		use.changes = changes
		u.rooms[code] = use
		if now.Sub(use.played) >= u.timeout {
			delete(u.rooms, code)
			out = append(out, code)
		}
	}
	return out
}

// sweepUnused closes, every second until done, the rooms opened on
// demand whose match has not started within the unused timeout: closed
// here, they are ended at the relay (host.Options.OnClose), their
// slots free on both sides.
func (s *Served[I]) sweepUnused(done <-chan struct{}) {
	if s.unused.timeout < 0 {
		return
	}
	t := time.NewTicker(min(time.Second, max(s.unused.timeout/4, 10*time.Millisecond)))
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			s.closeUnused(now)
		}
	}
}

// closeUnused closes the rooms due at now.
func (s *Served[I]) closeUnused(now time.Time) {
	for _, code := range s.unused.due(now, s.roomPlay) {
		if s.CloseRoom(code) == nil {
			s.log.Info("room unused: no real play in time (a match of enough players whose inputs change)", "room", code,
				"unused_timeout", s.unused.timeout, "unused_players", s.unused.minPlayers)
		}
	}
}

// roomPlay is the room code's match's players and input changes, and
// whether the room is open.
func (s *Served[I]) roomPlay(code string) (players int, changes uint64, open bool) {
	st, ok := s.RoomStats(code)
	return st.Match.Players, st.Total.InputChanges, ok
}
