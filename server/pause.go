package server

import (
	"slices"
	"time"
)

// A server whose own Updates stopped (the process stopped, a browser tab
// frozen with the Worker its match runs in, a machine asleep) hears
// nothing meanwhile, and by the clock every player has been silent for
// the whole pause when it wakes: judged so, a pause longer than
// PlayerTimeout would drop every player, the host's own (its client, in
// the same process, was paused too) first of all, though none of them
// went. Like the relay with its hosts (relay/stall.go), the server
// judges its players by what they sent while it ran: a gap between two
// Updates longer than pauseAllowance counts as pauseAllowance, and the
// rest (the server's own pause) is added to every player's and
// spectator's liveness, when it was last heard and how long a player
// taken over is awaited (resume.go). A player that really went is still
// dropped PlayerTimeout of the server's running time after it was last
// heard.

// pauseAllowance is how much of one gap between Updates counts against
// the players: an Update late under load is not a pause.
const pauseAllowance = time.Second

// forgivePause moves the players' liveness later by the part of the gap
// between the last Update (prev; zero: none) and now beyond
// pauseAllowance.
func (s *Server[I]) forgivePause(prev, now time.Time) {
	if prev.IsZero() {
		return
	}
	shift := now.Sub(prev) - pauseAllowance
	if shift <= 0 {
		return
	}
	for _, p := range slices.Concat(s.players, s.specs) { // only at a pause: the copy costs nothing
		if p == nil {
			continue
		}
		if p.lastHeard = p.lastHeard.Add(shift); p.lastHeard.After(now) {
			p.lastHeard = now
		}
		if !p.awaitUntil.IsZero() {
			p.awaitUntil = p.awaitUntil.Add(shift)
		}
	}
}
