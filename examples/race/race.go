// Package race is the game of the networked examples, udpmatch (players
// over UDP) and room (players in a rooms relay's room): every player's
// distance run, in one world value; a player's input is how far it runs
// in the tick. It is written once here so that each example shows only
// how its players reach the host.
package race

import (
	"time"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// PlayTime is how long the examples' matches play before the host ends
// them.
const PlayTime = 2 * time.Second

// Input is what a player does in a tick: how far it runs.
type Input struct{ Run int8 }

// Game is the race: every player's distance run.
type Game struct {
	dist world.Value[[rewind.MaxPlayers]int32]
}

// Register declares the world: one value, the distances.
func (r *Game) Register(s *world.Schema) error {
	r.dist = world.AddValue[[rewind.MaxPlayers]int32](s, "dist")
	return s.Err()
}

// Setup starts every distance at zero (the world's zero value).
func (r *Game) Setup(w *world.World) error { return nil }

// Step moves every player present by its input.
func (r *Game) Step(w *world.World, t *rewind.Tick[Input]) {
	d := r.dist.Ptr(w)
	for p, in := range t.Inputs {
		if t.Present[p] {
			d[p] += int32(in.Run)
		}
	}
}

// Runner is the input of the examples' player i: 1 to 3 a tick, in
// turn.
func Runner(i int) func(tick uint32) Input {
	return func(tick uint32) Input { return Input{Run: int8(1 + (int(tick)+i)%3)} }
}

// Verified returns s's last verified tick and the hash of its world
// after it; false if it verified none.
func Verified(s *rewind.Session[Input]) (tick uint32, hash uint64, ok bool) {
	ok = s.VerifiedView(func(w *world.World, t uint32) { tick, hash = t, w.Hash() })
	return tick, hash, ok
}
