// Package sand is rewind's demo game: a grid of falling sand and flowing
// water between walls, which the players pour into while their avatars fly
// around it. It is written only against rewind's public contract, so it
// shows what a game looks like: a world of plain data (a grid of cells, a
// table of avatars, a value and a random number generator), an input
// struct with bounds in tags, and a deterministic Step using integers and
// fixed point only.
package sand

import (
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// Material is what a cell holds.
type Material uint8

// Materials. Pouring Empty erases.
const (
	Empty Material = iota
	Sand
	Water
	Wall
)

// EffectPour is the Kind of the effect Step raises when a player starts
// pouring (Args: player, material): a view plays the pour sound on it, at
// the avatar. The position is not in Args on purpose: an effect's content
// is its identity, and a rollback that moves another player's avatar by a
// cell must not make its pour a new one. See docs/effects.md.
const EffectPour uint16 = 1

// Input is one player's input in a tick.
type Input struct {
	// MoveX and MoveY accelerate the avatar (-1, 0 or 1 on each axis).
	MoveX int8 `rewind:"min=-1,max=1"`
	MoveY int8 `rewind:"min=-1,max=1"`
	// Pour pours Material around the avatar.
	Pour bool
	// Material is what to pour (Empty erases; Wall builds).
	Material Material `rewind:"enum,min=0,max=3"`
}

// Avatar is a player's avatar. Positions and velocities are in 1/256ths of
// a cell (8.8 fixed point).
type Avatar struct {
	X, Y     int32
	VX, VY   int32
	Player   uint16
	Material uint8
	Pouring  uint8
}

// State is the game's single value.
type State struct {
	Tick    uint32
	Poured  uint32
	Players uint32
}

// Fixed-point settings of the avatars' motion.
const (
	one      = 256     // one cell
	accel    = one / 8 // per tick per input unit
	maxSpeed = 2 * one // per tick
	brush    = 2       // pour radius in cells
	// flowReach is how far along its row water looks for a drop.
	flowReach = 4
)

// Game is the sand game. Side is the grid's side in cells (default 256;
// clamped to 8..MaxSide); Rate is its ticks per second (default 60). Both
// are the host's match settings (settings.go): a joiner that takes them
// plays the host's.
type Game struct {
	Side int
	Rate int

	cells   world.Grid[Material]
	changed world.Grid[uint32] // per row, per 32-cell chunk and for the whole row: the last tick it changed in
	avatars world.Table[Avatar]
	state   world.Value[State]
	rng     world.RNG
}

var _ rewind.Game[Input] = (*Game)(nil)

// New returns a sand game on a side×side grid (side <= 0: 256; at most
// MaxSide).
func New(side int) *Game {
	return &Game{Side: side}
}

// MaxSide is the largest grid side.
const MaxSide = 64 * chunk

func (g *Game) side() int {
	if g.Side <= 0 {
		return 256
	}
	return min(max(g.Side, 8), MaxSide)
}

// Register declares the grid, the avatars, the state and the RNG.
func (g *Game) Register(s *world.Schema) error {
	n := g.side()
	g.cells = world.AddGrid[Material](s, "cells", n, n)
	g.changed = world.AddGrid[uint32](s, "changed", chunksOf(n)+1, n)
	g.avatars = world.AddTable[Avatar](s, "avatars", rewind.MaxPlayers)
	g.state = world.AddValue[State](s, "state")
	g.rng = world.AddRNG(s, "rng")
	return s.Err()
}

// Setup builds the floor, the side walls and a few ledges, and seeds the
// RNG.
func (g *Game) Setup(w *world.World) error {
	n := g.side()
	for x := 0; x < n; x++ {
		g.cells.Set(w, x, n-1, Wall)
	}
	for y := 0; y < n; y++ {
		g.cells.Set(w, 0, y, Wall)
		g.cells.Set(w, n-1, y, Wall)
	}
	for i := 1; i <= 3; i++ {
		y := n * i / 4
		x0 := n * (i % 2) / 3
		for x := x0; x < x0+n/2 && x < n; x++ {
			g.cells.Set(w, x, y, Wall)
		}
	}
	g.rng.Seed(w, 0x5a4d)
	return nil
}

// Cells returns the grid's cells, row-major (aliasing the world).
func (g *Game) Cells(w *world.World) []Material { return g.cells.Cells(w) }

// Avatars returns the avatars (aliasing the world).
func (g *Game) Avatars(w *world.World) []Avatar { return g.avatars.All(w) }

// State returns the game's state value.
func (g *Game) State(w *world.World) State { return g.state.Get(w) }

// Step runs one tick: joins and leaves, avatars, pouring, then the cells.
func (g *Game) Step(w *world.World, t *rewind.Tick[Input]) {
	st := g.state.Ptr(w)
	st.Tick = t.Number
	n := int32(g.side())
	for _, e := range t.Events {
		switch e.Kind {
		case rewind.Join:
			x := (int32(e.Player)*37%(n-4) + 2) * one
			_, _ = g.avatars.Add(w, Avatar{X: x, Y: 4 * one, Player: uint16(e.Player), Material: uint8(Sand)})
			st.Players++
		case rewind.Leave:
			for i := 0; i < g.avatars.Len(w); i++ {
				if g.avatars.At(w, i).Player == uint16(e.Player) {
					g.avatars.Remove(w, i)
					st.Players--
					break
				}
			}
		}
	}
	for i := 0; i < g.avatars.Len(w); i++ {
		a := g.avatars.At(w, i)
		in := t.Inputs[a.Player]
		a.VX = clamp(a.VX+int32(in.MoveX)*accel, -maxSpeed, maxSpeed) * 7 / 8
		a.VY = clamp(a.VY+int32(in.MoveY)*accel, -maxSpeed, maxSpeed) * 7 / 8
		a.X = clamp(a.X+a.VX, one, (n-2)*one)
		a.Y = clamp(a.Y+a.VY, one, (n-2)*one)
		a.Material = uint8(in.Material)
		if in.Pour && a.Pouring == 0 { // a pour starts: a sound for the view
			t.Emit(rewind.Effect{Kind: EffectPour, Args: [rewind.EffectArgs]int32{int32(a.Player), int32(in.Material)}})
		}
		a.Pouring = 0
		if in.Pour {
			a.Pouring = 1
			g.pour(w, st, int(a.X/one), int(a.Y/one), in.Material, t.Number)
		}
	}
	g.fall(w, t.Number)
}

// pour fills about a quarter of the brush's cells around (cx, cy), chosen
// by the RNG.
func (g *Game) pour(w *world.World, st *State, cx, cy int, m Material, tick uint32) {
	n := g.side()
	changed := g.changed.Cells(w)
	stride := chunksOf(n) + 1
	r := g.rng.Uint64(w)
	for y := cy - brush; y <= cy+brush; y++ {
		for x := cx - brush; x <= cx+brush; x++ {
			take := r&3 == 0 // a quarter of the brush's cells
			r >>= 2
			if !take || x <= 0 || x >= n-1 || y < 0 || y >= n-1 {
				continue
			}
			c := g.cells.At(w, x, y)
			if (m == Empty || *c == Empty) && *c != m {
				*c = m
				st.Poured++
				changed[y*stride+x/chunk] = tick
				changed[y*stride+stride-1] = tick
			}
		}
	}
}

func clamp(v, lo, hi int32) int32 { return min(max(v, lo), hi) }

// Bot returns a scripted input for player p at tick t: it drifts around,
// pours in bursts and changes material now and then, differently per
// player. Every machine computes the same script.
func Bot(p rewind.PlayerID, t uint32) Input {
	phase := t/45 + uint32(p)*7
	h := phase * 2654435761
	h ^= h >> 13
	in := Input{
		MoveX:    int8(h%3) - 1,
		MoveY:    int8((h>>4)%3) - 1,
		Pour:     (t/20+uint32(p))%3 == 0,
		Material: Sand,
	}
	switch (h >> 8) % 8 {
	case 0, 1, 2:
		in.Material = Water
	case 3:
		in.Material = Wall
	case 4:
		in.Material = Empty
	}
	return in
}
