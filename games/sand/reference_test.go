package sand

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/world"
)

// script plays random players: they join and leave, fly around, and pour
// sand, water, walls and erasures in bursts, so the grid fills with piles,
// pools, ledges and holes. It is seeded: the same seed, the same inputs.
type script struct {
	rng     *rand.Rand
	players int
	tk      rewind.Tick[Input]
	fx      []rewind.Effect
}

func newScript(seed uint64, players int) *script {
	s := &script{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), players: players}
	s.tk = rewind.Tick[Input]{Inputs: make([]Input, players), Present: make([]bool, players)}
	s.tk.CollectEffects(&s.fx)
	return s
}

// next fills the tick t's events and inputs.
func (s *script) next(t uint32) *rewind.Tick[Input] {
	s.tk.Number = t
	s.tk.Events = s.tk.Events[:0]
	s.fx = s.fx[:0]
	for p := range s.players {
		join := !s.tk.Present[p] && (t == 1 || s.rng.IntN(200) == 0)
		leave := s.tk.Present[p] && s.rng.IntN(1500) == 0
		if join || leave {
			kind := rewind.Join
			if leave {
				kind = rewind.Leave
			}
			s.tk.Events = append(s.tk.Events, rewind.Event{Kind: kind, Player: rewind.PlayerID(p)})
			s.tk.Present[p] = join
		}
		in := &s.tk.Inputs[p]
		if !s.tk.Present[p] {
			*in = Input{}
			continue
		}
		if s.rng.IntN(30) == 0 { // a new direction now and then
			in.MoveX, in.MoveY = int8(s.rng.IntN(3)-1), int8(s.rng.IntN(3)-1)
		}
		if s.rng.IntN(25) == 0 { // a burst of pouring starts or stops
			in.Pour = !in.Pour
			in.Material = [...]Material{Sand, Sand, Sand, Water, Water, Water, Empty, Wall}[s.rng.IntN(8)]
		}
	}
	return &s.tk
}

// newWorld returns a sand world of the side, set up.
func newWorld(t testing.TB, g *Game) *world.World {
	t.Helper()
	s := world.NewSchema()
	if err := g.Register(s); err != nil {
		t.Fatal(err)
	}
	w, err := world.New(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Setup(w); err != nil {
		t.Fatal(err)
	}
	return w
}

// scatter fills a random fraction of the grid's inner cells with random
// materials: a world that starts full of grains with somewhere to go.
func scatter(g *Game, w *world.World, seed uint64, percent int) {
	r := rand.New(rand.NewPCG(seed, 1))
	n := g.side()
	for y := 0; y < n-1; y++ {
		for x := 1; x < n-1; x++ {
			if r.IntN(100) < percent {
				g.cells.Set(w, x, y, Material(r.IntN(4)))
			}
		}
	}
}

// firstDifference describes where two sand worlds first differ.
func firstDifference(g *Game, a, b *world.World) string {
	n := g.side()
	ca, cb := g.Cells(a), g.Cells(b)
	for i := range ca {
		if ca[i] != cb[i] {
			return fmt.Sprintf("cell (%d, %d): %d against %d", i%n, i/n, ca[i], cb[i])
		}
	}
	ha, hb := g.changed.Cells(a), g.changed.Cells(b)
	for i := range ha {
		if ha[i] != hb[i] {
			return fmt.Sprintf("changed[%d]: %d against %d", i, ha[i], hb[i])
		}
	}
	return "elsewhere (avatars, state or RNG)"
}

// TestStepMatchesReference runs Step and the old Step (oldstep_test.go)
// side by side under random players, on grids of several sides (the
// demo's 256 among them; sides that are not a multiple of 8 or of the
// chunk), from an empty world and from a scattered one, and compares the
// world hash and the effects after every tick.
func TestStepMatchesReference(t *testing.T) {
	ticks := uint32(4000)
	if testing.Short() {
		ticks = 1500
	}
	cases := []struct {
		side, players, scatter int
		ticks                  uint32
	}{
		{256, 6, 0, ticks},
		{256, 8, 30, ticks / 2},
		{100, 4, 0, ticks},
		{67, 3, 45, ticks},
		{8, 2, 50, ticks / 4},
		{37, 2, 0, ticks},
		{520, 8, 10, ticks / 8},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("side%d_scatter%d", c.side, c.scatter), func(t *testing.T) {
			g := New(c.side)
			a, b := newWorld(t, g), newWorld(t, g)
			if c.scatter > 0 {
				scatter(g, a, uint64(i), c.scatter)
				scatter(g, b, uint64(i), c.scatter)
			}
			sa, sb := newScript(uint64(i), c.players), newScript(uint64(i), c.players)
			moves := 0
			prev := slices.Clone(g.Cells(a))
			for tick := uint32(1); tick <= c.ticks; tick++ {
				g.Step(a, sa.next(tick))
				g.refStep(b, sb.next(tick))
				if ha, hb := a.Hash(), b.Hash(); ha != hb {
					t.Fatalf("tick %d: hash %016x, the old Step's %016x: %s", tick, ha, hb, firstDifference(g, a, b))
				}
				if !slices.Equal(sa.fx, sb.fx) {
					t.Fatalf("tick %d: effects %v, the old Step's %v", tick, sa.fx, sb.fx)
				}
				for j, m := range g.Cells(a) {
					if m != prev[j] {
						moves++
						prev[j] = m
					}
				}
			}
			// The comparison means something only if the cells moved a lot.
			if moves < int(c.ticks)*c.side/32 {
				t.Fatalf("only %d cell changes in %d ticks", moves, c.ticks)
			}
			t.Logf("%d ticks, %d cell changes, equal hashes", c.ticks, moves)
		})
	}
}

// TestRollbackMatchesReference rolls the world back as a client does
// (restore the snapshot 60 ticks back, step the 60 ticks again) every 97
// ticks: the resimulated ticks must hash as they did the first time and
// as the old Step's did. The chunks' "changed" ticks are world state, so a
// restore brings them back with the cells.
func TestRollbackMatchesReference(t *testing.T) {
	const depth = 60
	ticks := uint32(3000)
	if testing.Short() {
		ticks = 1200
	}
	g := New(256)
	a, b := newWorld(t, g), newWorld(t, g)
	sa, sb := newScript(7, 6), newScript(7, 6)
	type saved struct {
		snap  *world.Snapshot
		hash  uint64
		tick  rewind.Tick[Input]
		input []Input
	}
	ring := make([]saved, depth+1)
	for i := range ring {
		ring[i].snap = new(world.Snapshot)
	}
	rollbacks := 0
	for tick := uint32(1); tick <= ticks; tick++ {
		s := &ring[tick%(depth+1)]
		a.SnapshotInto(s.snap) // the world before tick
		tk := sa.next(tick)
		s.tick = *tk
		s.tick.Events = slices.Clone(tk.Events)
		s.input = slices.Clone(tk.Inputs)
		s.tick.Present = slices.Clone(tk.Present)
		g.Step(a, tk)
		g.refStep(b, sb.next(tick))
		s.hash = a.Hash()
		if s.hash != b.Hash() {
			t.Fatalf("tick %d: hash %016x, the old Step's %016x: %s", tick, s.hash, b.Hash(), firstDifference(g, a, b))
		}
		if tick%97 != 0 || tick <= depth {
			continue
		}
		rollbacks++
		if err := a.Restore(ring[(tick-depth+1)%(depth+1)].snap); err != nil {
			t.Fatal(err)
		}
		for u := tick - depth + 1; u <= tick; u++ {
			r := &ring[u%(depth+1)]
			r.tick.Inputs = r.input
			g.Step(a, &r.tick)
			if h := a.Hash(); h != r.hash {
				t.Fatalf("rollback at tick %d: tick %d hashed %016x again, %016x first", tick, u, h, r.hash)
			}
		}
	}
	if rollbacks == 0 {
		t.Fatal("no rollback")
	}
}
