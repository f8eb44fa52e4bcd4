package rewind

import (
	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/game"
)

// Effect is something a game's Step raises for its view (a sound, a burst
// of particles, a "player died" line) with Tick.Emit: plain data, kept out
// of the world and its hash. See docs/effects.md.
type Effect = game.Effect

// EffectArgs is how many int32 arguments an Effect carries.
const EffectArgs = game.EffectArgs

// EffectQueue is how many effect events wait for Session.Effects at most.
const EffectQueue = client.EffectQueue

// EffectEvent tells a view about one effect of one tick: predicted,
// cancelled by a rollback, or verified by the server.
type EffectEvent = client.EffectEvent

// EffectStatus says what an EffectEvent tells.
type EffectStatus = client.EffectStatus

// Effect statuses. Every effect a view is told about is predicted once,
// then either cancelled once or verified once, however often a rollback
// simulates its tick again.
const (
	// EffectPredicted: the effect appeared in a prediction of its tick.
	EffectPredicted = client.EffectPredicted
	// EffectCancelled: a rollback took the predicted effect back.
	EffectCancelled = client.EffectCancelled
	// EffectVerified: the server's tick confirmed the effect.
	EffectVerified = client.EffectVerified
)

// WithEffects wraps g so that fn gets every tick's effects after its Step:
// how a server (which steps every tick once, and ignores effects
// otherwise) sees them. See game.WithEffects.
func WithEffects[I any](g Game[I], fn func(tick uint32, effects []Effect)) Game[I] {
	return game.WithEffects(g, fn)
}

// Effects appends to dst every effect event since the last call (oldest
// first) and returns it; with a dst of enough capacity it does not
// allocate. A view calls it once a frame, beside View (it takes the
// session's lock for the copy, so it may wait for an Update to finish).
// At most EffectQueue events wait: a session nobody drains drops the
// oldest.
func (s *Session[I]) Effects(dst []EffectEvent) []EffectEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cli.Effects(dst)
}
