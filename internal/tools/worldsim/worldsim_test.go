package worldsim

import (
	"testing"

	"github.com/rewindnet/rewind/world"
)

func grains(s *Sand, w *world.World) int {
	n := 0
	for _, c := range s.Grid.Cells(w) {
		if c != Empty && c != Stone {
			n++
		}
	}
	return n
}

// TestSandDeterministic runs the pour twice and checks both runs agree
// tick by tick, and that grains are never lost.
func TestSandDeterministic(t *testing.T) {
	s := NewSand(0)
	a, _ := world.New(s.Schema)
	b, err := world.New(s.Schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Setup(a, 7); err != nil {
		t.Fatal(err)
	}
	if err := s.Setup(b, 7); err != nil {
		t.Fatal(err)
	}
	prev := 0
	for tick := range 600 {
		s.Step(a)
		s.Step(b)
		if a.Hash() != b.Hash() {
			t.Fatalf("tick %d: runs diverged", tick)
		}
		g := grains(s, a)
		if g < prev {
			t.Fatalf("tick %d: grains went from %d to %d", tick, prev, g)
		}
		prev = g
	}
	if prev < 1000 {
		t.Fatalf("only %d grains after 600 ticks", prev)
	}
}

func TestEntitiesStep(t *testing.T) {
	e := NewEntities(100, 0)
	w, err := world.New(e.Schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Fill(w, 100, 1); err != nil {
		t.Fatal(err)
	}
	before := e.Table.Get(w, 5)
	e.Step(w)
	after := e.Table.Get(w, 5)
	if after.X != before.X+int32(before.VX) && after.VX != -before.VX {
		t.Fatalf("entity did not move: %+v -> %+v", before, after)
	}
}
