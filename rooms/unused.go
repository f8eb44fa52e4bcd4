package rooms

import (
	"sync"
	"time"
)

// DefaultUnusedTimeout is ServeOptions.UnusedTimeout's default: how long
// a room opened on demand may wait for its match to start.
const DefaultUnusedTimeout = 2 * time.Minute

// unusedRooms holds a match server's rooms opened on demand whose match
// has not started yet, with when each was opened: a lobby (or an
// attacker) that opens rooms and joins them at the relay without ever
// starting a match must not hold the server's slots (issue 30, item 3).
type unusedRooms struct {
	timeout time.Duration // negative: never

	mu     sync.Mutex
	opened map[string]time.Time
}

// add notes code, opened on demand at now.
func (u *unusedRooms) add(code string, now time.Time) {
	if u.timeout < 0 {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.opened == nil {
		u.opened = make(map[string]time.Time)
	}
	u.opened[code] = now
}

// due returns the codes whose match has not started (started says)
// within the timeout at now, forgetting them and those whose match
// started or whose room is gone.
func (u *unusedRooms) due(now time.Time, started func(code string) (yes, open bool)) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for code, at := range u.opened {
		yes, open := started(code)
		switch {
		case yes || !open:
			delete(u.opened, code)
		case now.Sub(at) >= u.timeout:
			delete(u.opened, code)
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
	for _, code := range s.unused.due(now, s.matchStarted) {
		if s.CloseRoom(code) == nil {
			s.log.Info("room unused: its match did not start in time", "room", code, "unused_timeout", s.unused.timeout)
		}
	}
}

// matchStarted reports whether a match started in the room code, and
// whether the room is open.
func (s *Served[I]) matchStarted(code string) (yes, open bool) {
	st, ok := s.RoomStats(code)
	return st.Matches > 0, ok
}
