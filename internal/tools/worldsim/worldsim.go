// Package worldsim holds two small deterministic simulations used to
// measure package world: a falling-sand pour (a 256×256 byte grid, a few
// avatars and a random number generator: the shape of games/sand) and a
// table of moving entities. They exist for benchmarks and tests; the real
// sand game lives in games/sand.
package worldsim

import (
	"github.com/rewindnet/rewind/world"
)

// Sand cell values.
const (
	Empty = 0
	// Sand shades are 1..3.
	Stone = 4
)

// SandSize is the width and height of the sand grid.
const SandSize = 256

// Avatar is a player's figure walking on the sand.
type Avatar struct {
	ID    uint32
	X, Y  int32 // cell coordinates
	Dir   int32 // -1 or +1
	Score uint32
	Alive bool
	_     [3]byte
}

// Sand is the sand world's schema handles.
type Sand struct {
	Schema  *world.Schema
	Grid    world.Grid[uint8]
	Avatars world.Table[Avatar]
	Tick    world.Value[uint64]
	RNG     world.RNG
}

// NewSand registers the sand world's state in a new schema with the given
// page size (0: the default).
func NewSand(pageSize int) *Sand {
	s := &Sand{Schema: world.NewSchema()}
	if pageSize != 0 {
		s.Schema.SetPageSize(pageSize)
	}
	s.Tick = world.AddValue[uint64](s.Schema, "tick")
	s.RNG = world.AddRNG(s.Schema, "rng")
	s.Grid = world.AddGrid[uint8](s.Schema, "sand", SandSize, SandSize)
	s.Avatars = world.AddTable[Avatar](s.Schema, "avatars", 16)
	return s
}

// Setup builds the starting world: a stone floor, a few ledges, avatars.
func (s *Sand) Setup(w *world.World, seed uint64) error {
	w.Reset()
	s.RNG.Seed(w, seed)
	g := s.Grid
	for x := 0; x < SandSize; x++ {
		g.Set(w, x, SandSize-1, Stone)
	}
	// Ledges sloping down to the middle.
	for i := 0; i < 40; i++ {
		g.Set(w, 30+i, 80+i/3, Stone)
		g.Set(w, 225-i, 120+i/3, Stone)
		g.Set(w, 100+i, 170, Stone)
	}
	for i := 0; i < 6; i++ {
		if _, err := s.Avatars.Add(w, Avatar{ID: uint32(i + 1), X: int32(20 + 40*i), Y: 10, Dir: 1 - 2*int32(i%2), Alive: true}); err != nil {
			return err
		}
	}
	return nil
}

// emitters are the x positions sand pours from.
var emitters = [...]int{50, 128, 200}

// Step advances the sand world one tick: every emitter drops a grain,
// grains fall (straight down, else diagonally in a random direction), and
// avatars walk along the surface.
func (s *Sand) Step(w *world.World) {
	g := s.Grid
	cells := g.Cells(w)
	tick := s.Tick.Ptr(w)
	*tick++
	for _, ex := range emitters {
		x := ex + s.RNG.IntN(w, 5) - 2
		if cells[x] == Empty {
			cells[x] = uint8(1 + s.RNG.IntN(w, 3))
		}
	}
	// Bottom-up so a grain moves at most once per tick; alternate the
	// horizontal scan direction by tick to avoid a drift.
	for y := SandSize - 2; y >= 0; y-- {
		row := cells[y*SandSize : (y+1)*SandSize]
		below := cells[(y+1)*SandSize : (y+2)*SandSize]
		for i := 0; i < SandSize; i++ {
			x := i
			if *tick&1 == 1 {
				x = SandSize - 1 - i
			}
			c := row[x]
			if c == Empty || c == Stone {
				continue
			}
			if below[x] == Empty {
				below[x], row[x] = c, Empty
				continue
			}
			d := 1
			if s.RNG.Uint64(w)&1 == 0 {
				d = -1
			}
			for _, dx := range [2]int{d, -d} {
				nx := x + dx
				if nx >= 0 && nx < SandSize && below[nx] == Empty && row[nx] == Empty {
					below[nx], row[x] = c, Empty
					break
				}
			}
		}
	}
	for i := range s.Avatars.All(w) {
		a := s.Avatars.At(w, i)
		nx := a.X + a.Dir
		if nx < 0 || nx >= SandSize {
			a.Dir = -a.Dir
			continue
		}
		a.X = nx
		// Stand on the first solid cell below the top.
		y := int32(0)
		for y < SandSize-1 && g.Get(w, int(a.X), int(y+1)) == Empty {
			y++
		}
		a.Y = y
		if *tick%60 == 0 {
			a.Score++
		}
	}
}

// Entity is a record of the entities benchmark: 32 bytes, positions in
// 1/256 cells so that one tick of movement changes the low bytes.
type Entity struct {
	ID       uint32
	X, Y     int32
	VX, VY   int16
	HP       uint16
	Kind     uint8
	Team     uint8
	Target   uint32
	Cooldown uint16
	Anim     uint8
	Alive    bool
	Seed     uint32
}

// Entities is a world holding one table of entities.
type Entities struct {
	Schema *world.Schema
	Table  world.Table[Entity]
	Tick   world.Value[uint64]
	RNG    world.RNG
}

// NewEntities registers a table of capacity entities.
func NewEntities(capacity, pageSize int) *Entities {
	e := &Entities{Schema: world.NewSchema()}
	if pageSize != 0 {
		e.Schema.SetPageSize(pageSize)
	}
	e.Tick = world.AddValue[uint64](e.Schema, "tick")
	e.RNG = world.AddRNG(e.Schema, "rng")
	e.Table = world.AddTable[Entity](e.Schema, "entities", capacity)
	return e
}

// Fill adds n random entities.
func (e *Entities) Fill(w *world.World, n int, seed uint64) error {
	e.RNG.Seed(w, seed)
	for i := 0; i < n; i++ {
		r := func(k int) int { return e.RNG.IntN(w, k) }
		_, err := e.Table.Add(w, Entity{
			ID: uint32(i + 1), X: int32(r(1 << 20)), Y: int32(r(1 << 20)),
			VX: int16(r(1025) - 512), VY: int16(r(1025) - 512),
			HP: uint16(50 + r(50)), Kind: uint8(r(8)), Team: uint8(r(4)),
			Target: uint32(r(n)), Cooldown: uint16(r(120)), Anim: uint8(r(16)),
			Alive: true, Seed: uint32(r(1 << 30)),
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Step moves every entity one tick; cooldowns count down, animations
// advance every 4 ticks.
func (e *Entities) Step(w *world.World) {
	tick := e.Tick.Ptr(w)
	*tick++
	for i := range e.Table.All(w) {
		p := e.Table.At(w, i)
		p.X += int32(p.VX)
		p.Y += int32(p.VY)
		if p.X < 0 || p.X >= 1<<20 {
			p.VX = -p.VX
		}
		if p.Y < 0 || p.Y >= 1<<20 {
			p.VY = -p.VY
		}
		if p.Cooldown > 0 {
			p.Cooldown--
		}
		if *tick%4 == 0 {
			p.Anim = (p.Anim + 1) & 15
		}
	}
}
