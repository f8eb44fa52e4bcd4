package world

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/zeebo/xxh3"
)

func TestSnapshotRestoreProperty(t *testing.T) {
	for _, ps := range []int{512, 4096} {
		tw := newTestSchema(t, ps)
		r := rand.New(rand.NewPCG(1, uint64(ps)))
		w := tw.new(t)
		w2 := tw.new(t)
		var snaps [8]Snapshot
		var hashes [8]uint64
		for step := range 400 {
			k := step % len(snaps)
			w.SnapshotInto(&snaps[k])
			hashes[k] = w.Hash()
			if snaps[k].Hash() != hashes[k] {
				t.Fatalf("snapshot hash %x != world hash %x", snaps[k].Hash(), hashes[k])
			}
			if snaps[k].Len() != w.UsedBytes() {
				t.Fatalf("snapshot holds %d bytes, world uses %d", snaps[k].Len(), w.UsedBytes())
			}
			tw.mutate(w, r, 1+r.IntN(30))
			checkZeroTail(t, w)
			if r.IntN(4) == 0 {
				j := r.IntN(len(snaps))
				if snaps[j].Layout() == nil {
					continue
				}
				if err := w.Restore(&snaps[j]); err != nil {
					t.Fatal(err)
				}
				checkZeroTail(t, w)
				if w.Hash() != hashes[j] {
					t.Fatalf("restored hash %x, want %x", w.Hash(), hashes[j])
				}
				// A second world restored from the same snapshot is equal byte for byte.
				if err := w2.Restore(&snaps[j]); err != nil {
					t.Fatal(err)
				}
				if !w2.Equal(w) || string(w2.mem) != string(w.mem) {
					t.Fatal("restored worlds differ")
				}
			}
		}
	}
}

func TestHashDefinition(t *testing.T) {
	tw := newTestSchema(t, 0)
	w := tw.new(t)
	tw.mutate(w, rand.New(rand.NewPCG(2, 2)), 200)
	// Hash is xxh3 of the bytes in use, region by region, chained.
	l := w.layout
	want := xxh3.Hash(w.mem[:l.metaSize])
	for i := 1; i < len(l.regions); i++ {
		r := &l.regions[i]
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:], want)
		binary.LittleEndian.PutUint64(b[8:], xxh3.Hash(w.mem[r.off:r.off+w.used(r)]))
		want = xxh3.Hash(b[:])
	}
	if got := w.Hash(); got != want {
		t.Fatalf("Hash %x, xxh3 of bytes in use %x", got, want)
	}
	h := w.Hash()
	tw.sand.Set(w, 3, 3, tw.sand.Get(w, 3, 3)+1)
	if w.Hash() == h {
		t.Fatal("hash unchanged after a change")
	}
	// Different layouts hash differently even when empty.
	s2 := NewSchema()
	AddGrid[uint8](s2, "sand", 64, 48)
	w2, _ := New(s2)
	s3 := NewSchema()
	AddGrid[uint8](s3, "sand2", 64, 48)
	w3, _ := New(s3)
	if w2.Hash() == w3.Hash() {
		t.Fatal("layouts with different names hash equal")
	}
}

func TestLayoutStable(t *testing.T) {
	a := newTestSchema(t, 0)
	b := newTestSchema(t, 0)
	wa, wb := a.new(t), b.new(t)
	if wa.Layout().Hash() != wb.Layout().Hash() {
		t.Fatal("same registrations gave different layouts")
	}
	// Handles of one schema work on a world of an identical schema.
	a.sand.Set(wb, 1, 1, 9)
	if b.sand.Get(wb, 1, 1) != 9 {
		t.Fatal("handle of identical schema failed")
	}
	var s Snapshot
	wa.SnapshotInto(&s)
	other := NewSchema()
	AddValue[uint8](other, "x")
	wo, _ := New(other)
	if err := wo.Restore(&s); !errors.Is(err, ErrLayout) {
		t.Fatalf("restore across layouts: %v", err)
	}
	if err := wo.Restore(&Snapshot{}); !errors.Is(err, ErrLayout) {
		t.Fatalf("restore of empty snapshot: %v", err)
	}
}

func TestTableOps(t *testing.T) {
	tw := newTestSchema(t, 0)
	w := tw.new(t)
	for i := range 5 {
		if _, err := tw.small.Add(w, uint64(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tw.small.Add(w, 9); !errors.Is(err, ErrFull) {
		t.Fatalf("add past capacity: %v", err)
	}
	tw.small.Remove(w, 1) // swap: [1 5 3 4]
	if got := tw.small.All(w); len(got) != 4 || got[1] != 5 || got[3] != 4 {
		t.Fatalf("after remove: %v", got)
	}
	checkZeroTail(t, w)
	tw.small.Truncate(w, 1)
	checkZeroTail(t, w)
	if tw.small.Len(w) != 1 || tw.small.Get(w, 0) != 1 {
		t.Fatal("truncate")
	}
	mustPanic(t, func() { tw.small.At(w, 1) })
	mustPanic(t, func() { tw.sand.At(w, 64, 0) })
	mustPanic(t, func() { tw.sand.At(w, 0, -1) })
	other := NewSchema()
	g := AddGrid[uint8](other, "sand", 64, 48)
	mustPanic(t, func() { g.Get(w, 0, 0) }) // handle of another layout
}

func mustPanic(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	f()
}

func TestRegistrationErrors(t *testing.T) {
	type Inner struct{ P *int }
	cases := []struct {
		name string
		reg  func(s *Schema)
		want string
	}{
		{"pointer", func(s *Schema) { AddTable[struct{ A *int32 }](s, "t", 1) }, "A is a pointer"},
		{"slice", func(s *Schema) { AddTable[struct{ B []byte }](s, "t", 1) }, "B is a slice"},
		{"map", func(s *Schema) { AddValue[struct{ M map[int32]int32 }](s, "t") }, "M is a map"},
		{"string", func(s *Schema) { AddGrid[struct{ S string }](s, "t", 2, 2) }, "S is a string"},
		{"interface", func(s *Schema) { AddTable[struct{ I any }](s, "t", 1) }, "I is an interface"},
		{"chan", func(s *Schema) { AddTable[struct{ C chan int32 }](s, "t", 1) }, "C is a channel"},
		{"func", func(s *Schema) { AddTable[struct{ F func() }](s, "t", 1) }, "F is a func"},
		{"int", func(s *Schema) { AddTable[struct{ N int }](s, "t", 1) }, "N is int"},
		{"uintptr", func(s *Schema) { AddTable[struct{ U uintptr }](s, "t", 1) }, "U is uintptr"},
		{"nested", func(s *Schema) { AddTable[struct{ X [2]Inner }](s, "t", 1) }, "X[].P is a pointer"},
		{"padding", func(s *Schema) {
			AddTable[struct {
				A uint8
				B uint32
			}](s, "t", 1)
		}, "padding after field A"},
		{"tail padding", func(s *Schema) {
			AddTable[struct {
				B uint32
				A uint8
			}](s, "t", 1)
		}, "padding at the end"},
		{"zero size", func(s *Schema) { AddTable[struct{}](s, "t", 1) }, "size zero"},
		{"capacity", func(s *Schema) { AddTable[uint8](s, "t", 0) }, "out of range"},
		{"grid size", func(s *Schema) { AddGrid[uint8](s, "t", 0, 4) }, "size 0x4"},
		{"grid overflow", func(s *Schema) { AddGrid[uint8](s, "t", 1<<40, 1<<40) }, "size 1099511627776x1099511627776"},
		{"huge table", func(s *Schema) { AddTable[[1 << 20]byte](s, "t", 1<<50) }, "out of range"},
		{"world too big", func(s *Schema) {
			AddTable[[1 << 20]byte](s, "a", 700)
			AddTable[[1 << 20]byte](s, "b", 700)
		}, "larger than"},
		{"unsafe pointer", func(s *Schema) { AddTable[struct{ P unsafe.Pointer }](s, "t", 1) }, "P is a pointer"},
		{"duplicate", func(s *Schema) { AddValue[uint8](s, "t"); AddValue[uint8](s, "t") }, "already registered"},
		{"page size", func(s *Schema) { s.SetPageSize(1000) }, "page size 1000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewSchema()
			c.reg(s)
			_, err := New(s)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
			if c.name == "pointer" && (!errors.Is(err, ErrNotPlain) || !strings.Contains(err.Error(), "struct { A *int32 }.A")) {
				t.Fatalf("error %v does not wrap ErrNotPlain or name the type", err)
			}
		})
	}
	// Registering after New is an error.
	s := NewSchema()
	AddValue[uint8](s, "a")
	if _, err := New(s); err != nil {
		t.Fatal(err)
	}
	AddValue[uint8](s, "b")
	if !errors.Is(s.Err(), ErrSchema) {
		t.Fatalf("late registration: %v", s.Err())
	}
}

func TestRNG(t *testing.T) {
	tw := newTestSchema(t, 0)
	a, b := tw.new(t), tw.new(t)
	tw.rng.Seed(a, 7)
	tw.rng.Seed(b, 7)
	var s Snapshot
	a.SnapshotInto(&s)
	var first [10]int
	for i := range first {
		first[i] = tw.rng.IntN(a, 1000)
		if tw.rng.IntN(b, 1000) != first[i] {
			t.Fatal("same seed, different sequence")
		}
	}
	if err := a.Restore(&s); err != nil {
		t.Fatal(err)
	}
	for i := range first {
		if tw.rng.IntN(a, 1000) != first[i] {
			t.Fatal("restored generator repeats differently")
		}
	}
	// Known first value (the sequence is part of the determinism contract).
	c := tw.new(t)
	if got := tw.rng.Uint64(c); got != tw.rng.Uint64(tw.seeded(t, 0)) {
		t.Fatalf("unseeded generator %x differs from seed 0", got)
	}
	counts := [6]int{}
	for range 60000 {
		counts[tw.rng.IntN(c, 6)]++
		if f := tw.rng.Float64(c); f < 0 || f >= 1 {
			t.Fatal("Float64 out of range")
		}
	}
	for _, n := range counts {
		if n < 9000 || n > 11000 {
			t.Fatalf("IntN(6) counts %v", counts)
		}
	}
}

func (tw *testWorld) seeded(t *testing.T, seed uint64) *World {
	w := tw.new(t)
	tw.rng.Seed(w, seed)
	return w
}
