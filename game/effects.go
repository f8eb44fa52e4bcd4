package game

import "github.com/rewindnet/rewind/world"

// Effects: what a game raises for its view during Step (a sound, a burst
// of particles, a "player died" line), kept out of the world.
//
// A client steps a tick once when it predicts it and again for every
// rollback that takes the tick back, so a sound played from inside Step
// would play again at every resimulation. Instead Step raises an Effect
// with Tick.Emit, and the engine (package client) compares what every
// simulation of a tick raised with what the previous one did: a view is
// told once when an effect first appears (predicted), once if a rollback
// takes it away (cancelled), and once when the server's tick confirms it
// (verified). See docs/effects.md.
//
// An effect's identity is its tick and its content (Kind and Args), and
// among identical effects of one tick, which one of them it is: the
// same tick simulated again raising the same effects raises nothing new.
// So put into Args what tells the event apart from others of its kind (the
// entity, the place), and nothing that changes from one simulation of the
// tick to the next.

// EffectArgs is how many int32 arguments an Effect carries.
const EffectArgs = 4

// Effect is one thing a game's Step raised for the view. It is plain data
// (it is compared with ==) and never part of the world: emitting one
// changes neither the world nor its hash.
type Effect struct {
	// Kind is the game's own code for what happened (a sound, a burst).
	Kind uint16
	// Args are the game's own arguments (an entity, a position, a player).
	Args [EffectArgs]int32
}

// Emit raises effect e in the tick being stepped. It only records e for
// the engine: it has no effect on the world, and on a machine that does
// not collect effects (the server, by default) it does nothing.
func (t *Tick[I]) Emit(e Effect) {
	if t.fx != nil {
		*t.fx = append(*t.fx, e)
	}
}

// CollectEffects makes Emit append to *dst (nil: Emit does nothing). It is
// for engines and wrappers (the client, WithEffects), not for game code;
// the engine empties *dst before each Step and reads it after.
func (t *Tick[I]) CollectEffects(dst *[]Effect) { t.fx = dst }

// WithEffects wraps g so that after every Step, fn gets the tick's number
// and the effects its Step raised (in the order raised; fn must not keep
// the slice). It is the server's way to see effects: the server steps
// every tick exactly once, so what fn gets there is what every client
// will verify. When the engine already collects effects (a client), they
// reach it too. The wrapper keeps g's tick rate.
func WithEffects[I any](g Game[I], fn func(tick uint32, effects []Effect)) Game[I] {
	return &effectsGame[I]{Game: g, fn: fn}
}

type effectsGame[I any] struct {
	Game[I]
	fn  func(uint32, []Effect)
	buf []Effect
}

func (g *effectsGame[I]) TickRate() int { return RateOf(g.Game) }

// Unwrap implements Wrapper.
func (g *effectsGame[I]) Unwrap() any { return g.Game }

func (g *effectsGame[I]) Step(w *world.World, t *Tick[I]) {
	outer := t.fx
	g.buf = g.buf[:0]
	t.fx = &g.buf
	g.Game.Step(w, t)
	t.fx = outer
	if outer != nil {
		*outer = append(*outer, g.buf...)
	}
	g.fn(t.Number, g.buf)
}
