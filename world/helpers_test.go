package world

import (
	"math/rand/v2"
	"testing"
)

// Test types: plain records with bools, arrays and nested structs.
type testEntity struct {
	ID     uint32
	X, Y   int32
	VX, VY int16
	HP     uint16
	Kind   uint8
	Alive  bool
	Flags  [2]bool
	_      [2]byte
	Pos    struct{ A, B float32 }
}

type testCell struct {
	Material uint8
	Wet      bool
	Temp     int16
}

// testWorld is a world with every kind of region.
type testWorld struct {
	s        *Schema
	entities Table[testEntity]
	small    Table[uint64]
	sand     Grid[uint8]
	cells    Grid[testCell]
	tick     Value[uint64]
	flag     Value[bool]
	score    Value[[3]int32]
	rng      RNG
}

func newTestSchema(t testing.TB, pageSize int) *testWorld {
	t.Helper()
	tw := &testWorld{s: NewSchema()}
	if pageSize != 0 {
		tw.s.SetPageSize(pageSize)
	}
	tw.tick = AddValue[uint64](tw.s, "tick")
	tw.entities = AddTable[testEntity](tw.s, "entities", 300)
	tw.flag = AddValue[bool](tw.s, "flag")
	tw.sand = AddGrid[uint8](tw.s, "sand", 64, 48)
	tw.small = AddTable[uint64](tw.s, "small", 5)
	tw.cells = AddGrid[testCell](tw.s, "cells", 20, 30)
	tw.score = AddValue[[3]int32](tw.s, "score")
	tw.rng = AddRNG(tw.s, "rng")
	if err := tw.s.Err(); err != nil {
		t.Fatal(err)
	}
	return tw
}

func (tw *testWorld) new(t testing.TB) *World {
	t.Helper()
	w, err := New(tw.s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// mutate applies n random changes to w.
func (tw *testWorld) mutate(w *World, r *rand.Rand, n int) {
	for range n {
		switch r.IntN(10) {
		case 0, 1:
			e := testEntity{ID: r.Uint32(), X: r.Int32N(1000), Y: r.Int32N(1000), VX: int16(r.IntN(7) - 3),
				HP: uint16(r.IntN(100)), Kind: uint8(r.IntN(4)), Alive: r.IntN(2) == 0, Flags: [2]bool{r.IntN(2) == 0, true}}
			_, _ = tw.entities.Add(w, e)
		case 2:
			if n := tw.entities.Len(w); n > 0 {
				tw.entities.Remove(w, r.IntN(n))
			}
		case 3:
			for i := range tw.entities.All(w) {
				e := tw.entities.At(w, i)
				e.X += int32(e.VX)
				e.Y++
			}
		case 4:
			tw.sand.Set(w, r.IntN(64), r.IntN(48), uint8(r.IntN(4)))
		case 5:
			tw.cells.Set(w, r.IntN(20), r.IntN(30), testCell{Material: uint8(r.IntN(3)), Wet: r.IntN(2) == 0, Temp: int16(r.IntN(200) - 100)})
		case 6:
			*tw.tick.Ptr(w)++
			tw.flag.Set(w, !tw.flag.Get(w))
			tw.score.Ptr(w)[r.IntN(3)] += int32(r.IntN(10))
		case 7:
			_ = tw.rng.Uint64(w)
		case 8:
			if tw.small.Len(w) < tw.small.Cap() {
				_, _ = tw.small.Add(w, r.Uint64())
			} else {
				tw.small.Truncate(w, r.IntN(3))
			}
		case 9:
			if r.IntN(20) == 0 {
				tw.entities.Clear(w)
			}
		}
	}
}

// checkZeroTail verifies the zero-tail invariant of w.
func checkZeroTail(t testing.TB, w *World) {
	t.Helper()
	if err := w.layout.validate(w.mem, make([]int, len(w.layout.regions)), allPages(w)); err != nil {
		t.Fatalf("invariant broken: %v", err)
	}
}

func allPages(w *World) []bool {
	b := make([]bool, w.PageCount())
	for i := range b {
		b[i] = true
	}
	return b
}
