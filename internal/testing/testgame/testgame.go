// Package testgame is a small deterministic game for the engine's own
// tests and benchmarks: avatars that move by their players' inputs and a
// random walk from the world's RNG, plus a score that depends on every
// input, so that a wrong input or a missed join shows in the hash at once.
// Engine packages test with it instead of importing games/.
package testgame

import (
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// Input is a test player's input.
type Input struct {
	DX   int8 `rewind:"min=-3,max=3"`
	DY   int8 `rewind:"min=-3,max=3"`
	Fire bool
	Aim  uint8
}

// Avatar is one player's entity in the world.
type Avatar struct {
	X, Y   int32
	Score  int32
	Player uint16
	Shots  uint16
}

// Counters are the world's totals.
type Counters struct {
	Tick   uint32
	Joins  uint32
	Leaves uint32
	Sum    int32
}

// Game is the test game. Its zero value plays with a 64-slot avatar table;
// Bytes adds a blob of that many bytes to the world (touched every tick
// by one word), to give the world some size.
type Game struct {
	Bytes int
	// Rate is the tick rate (0: the default 60).
	Rate int

	avatars world.Table[Avatar]
	count   world.Value[Counters]
	rng     world.RNG
	blob    world.Grid[uint64]
}

// TickRate returns the game's tick rate.
func (g *Game) TickRate() int { return g.Rate }

// Register declares the avatars, the counters, an RNG and the blob.
func (g *Game) Register(s *world.Schema) error {
	g.avatars = world.AddTable[Avatar](s, "avatars", game.MaxPlayers)
	g.count = world.AddValue[Counters](s, "counters")
	g.rng = world.AddRNG(s, "rng")
	if g.Bytes > 0 {
		g.blob = world.AddGrid[uint64](s, "blob", max(1, g.Bytes/8), 1)
	}
	return s.Err()
}

// Setup seeds the RNG.
func (g *Game) Setup(w *world.World) error {
	g.rng.Seed(w, 12345)
	return nil
}

// Step applies joins and leaves, moves every avatar by its input and a
// random step, and scores fire.
func (g *Game) Step(w *world.World, t *game.Tick[Input]) {
	c := g.count.Ptr(w)
	c.Tick = t.Number
	for _, e := range t.Events {
		switch e.Kind {
		case game.Join:
			c.Joins++
			_, _ = g.avatars.Add(w, Avatar{Player: uint16(e.Player), X: int32(e.Player) * 10})
		case game.Leave:
			c.Leaves++
			for i := 0; i < g.avatars.Len(w); i++ {
				if g.avatars.At(w, i).Player == uint16(e.Player) {
					g.avatars.Remove(w, i)
					break
				}
			}
		}
	}
	for i := 0; i < g.avatars.Len(w); i++ {
		a := g.avatars.At(w, i)
		in := t.Inputs[a.Player]
		a.X += int32(in.DX) + int32(g.rng.IntN(w, 3)) - 1
		a.Y += int32(in.DY)
		if in.Fire {
			a.Shots++
			a.Score += int32(in.Aim) ^ int32(t.Number&7)
		}
		c.Sum += a.X*3 + a.Y*5 + a.Score
	}
	if g.Bytes > 0 {
		cells := g.blob.Cells(w)
		cells[int(t.Number)%len(cells)] += uint64(c.Sum)
	}
}

// Bot returns a scripted input for player p at tick t: it changes every
// few ticks, differently per player, so predictions are sometimes wrong.
func Bot(p game.PlayerID, t uint32) Input {
	k := (t / (7 + uint32(p)%5)) + uint32(p)*31
	h := k * 2654435761
	return Input{
		DX:   int8(h%7) - 3,
		DY:   int8((h>>8)%7) - 3,
		Fire: (h>>16)&3 == 0,
		Aim:  uint8(h >> 24),
	}
}

// Flaky is a deliberately non-deterministic game: it keeps a counter
// outside the world and lets it leak into the world, so simulating the
// same tick twice gives two different worlds. The sync test must catch it.
type Flaky struct {
	Game
	outside int32
}

// Step runs the test game's step, then leaks the outside counter in.
func (f *Flaky) Step(w *world.World, t *game.Tick[Input]) {
	f.Game.Step(w, t)
	f.outside++
	f.count.Ptr(w).Sum += f.outside
}

// Null is a game whose world holds one counter and whose Step does next to
// nothing: what is left is the engine's own cost per player-tick.
type Null struct {
	count world.Value[uint32]
}

// Register declares one counter.
func (n *Null) Register(s *world.Schema) error {
	n.count = world.AddValue[uint32](s, "n")
	return s.Err()
}

// Setup does nothing.
func (n *Null) Setup(*world.World) error { return nil }

// Step counts the tick.
func (n *Null) Step(w *world.World, t *game.Tick[Input]) { *n.count.Ptr(w) = t.Number }
