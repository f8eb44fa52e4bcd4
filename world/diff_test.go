package world

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// diffPair returns two equal, filled worlds of tw.
func diffPair(t *testing.T, tw *testWorld) (a, b *World) {
	t.Helper()
	a = tw.new(t)
	tw.mutate(a, rand.New(rand.NewPCG(3, 4)), 400)
	for tw.entities.Len(a) < 5 {
		_, _ = tw.entities.Add(a, testEntity{ID: 1})
	}
	b = tw.new(t)
	if err := b.CopyFrom(a); err != nil {
		t.Fatal(err)
	}
	return a, b
}

func diffStrings(ds []Difference) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

func TestDiffNamesFields(t *testing.T) {
	tw := newTestSchema(t, 0)
	a, b := diffPair(t, tw)
	if ds, n, err := Diff(a, b, 0); err != nil || n != 0 || len(ds) != 0 {
		t.Fatalf("equal worlds: %v %d %v", ds, n, err)
	}
	e := tw.entities.At(b, 3)
	vx := e.VX
	e.VX += 256
	e.Pos.B = 1.5
	e.Flags[1] = !e.Flags[1]
	tw.sand.Set(b, 10, 20, tw.sand.Get(b, 10, 20)+1)
	c := tw.cells.At(b, 3, 4)
	c.Temp++
	tw.score.Ptr(b)[1] += 7
	ds, n, err := Diff(a, b, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := diffStrings(ds)
	want := []string{
		"table=score row=0 field=[1] ours=" + formatScalar(le32(tw.score.Get(a)[1]), 'i') + " server=" + formatScalar(le32(tw.score.Get(b)[1]), 'i'),
		"table=entities row=3 field=VX ours=" + itoa(int(vx)) + " server=" + itoa(int(vx+256)),
		"table=entities row=3 field=Flags[1] ours=" + btoa(!e.Flags[1]) + " server=" + btoa(e.Flags[1]),
		"table=entities row=3 field=Pos.B ours=" + formatScalar(le32f(tw.entities.Get(a, 3).Pos.B), 'f') + " server=1.5",
		"table=sand cell=10,20 field=- ours=" + itoa(int(tw.sand.Get(a, 10, 20))) + " server=" + itoa(int(tw.sand.Get(b, 10, 20))),
		"table=cells cell=3,4 field=Temp ours=" + itoa(int(tw.cells.Get(a, 3, 4).Temp)) + " server=" + itoa(int(c.Temp)),
	}
	if n != len(want) || !slices.Equal(got, want) {
		t.Fatalf("diff (%d):\n%q\nwant:\n%q", n, got, want)
	}
	if ds, n, _ := Diff(a, b, 2); len(ds) != 2 || n != len(want) {
		t.Fatalf("limit 2: %d differences of %d", len(ds), n)
	}
}

func TestDiffTableLength(t *testing.T) {
	tw := newTestSchema(t, 0)
	a, b := diffPair(t, tw)
	n := tw.entities.Len(b)
	tw.entities.Truncate(b, n-2)
	ds, _, err := Diff(a, b, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := diffStrings(ds)
	want := []string{
		"table=entities row=- field=len ours=" + itoa(n) + " server=" + itoa(n-2),
		"table=entities row=" + itoa(n-2) + " field=row ours=present server=absent",
		"table=entities row=" + itoa(n-1) + " field=row ours=present server=absent",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("diff:\n%q\nwant:\n%q", got, want)
	}
}

func TestDiffOtherLayout(t *testing.T) {
	a := newTestSchema(t, 0).new(t)
	b := newTestSchema(t, 1024).new(t)
	if _, _, err := Diff(a, b, 0); !errors.Is(err, ErrLayout) {
		t.Fatalf("diff of two layouts: %v", err)
	}
}

func TestDumpRoundTrip(t *testing.T) {
	tw := newTestSchema(t, 0)
	a, b := diffPair(t, tw)
	tw.entities.At(b, 2).HP += 3
	tw.sand.Set(b, 1, 2, 9)
	want, wn, _ := Diff(a, b, 0)
	da, err := ParseDump(a.AppendDump(nil, 77))
	if err != nil {
		t.Fatal(err)
	}
	db, err := ParseDump(b.AppendDump(nil, 77))
	if err != nil {
		t.Fatal(err)
	}
	if da.Tick != 77 || da.Hash != a.Hash() {
		t.Fatalf("dump header: tick %d hash %x", da.Tick, da.Hash)
	}
	got, gn, err := DiffDumps(da, db, 0)
	if err != nil || gn != wn || !slices.Equal(got, want) {
		t.Fatalf("dump diff %v (%d, %v), world diff %v", got, gn, err, want)
	}
	if got, _, err := a.DiffDump(db, 0); err != nil || !slices.Equal(got, want) {
		t.Fatalf("world-dump diff %v (%v)", got, err)
	}
	// A flipped bit in every byte of the bytes is refused (the hash covers them)
	// or, in the shape, refused or still consistent; nothing panics.
	enc := b.AppendDump(nil, 77)
	for i := range enc {
		c := slices.Clone(enc)
		c[i] ^= 1 << (i % 8)
		if d, err := ParseDump(c); err == nil {
			_, _, _ = DiffDumps(da, d, 0)
		}
	}
	for n := range len(enc) {
		if _, err := ParseDump(enc[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
}

func FuzzParseDump(f *testing.F) {
	tw := newTestSchema(f, 512)
	w := tw.new(f)
	tw.mutate(w, rand.New(rand.NewPCG(5, 6)), 200)
	base := w.AppendDump(nil, 1)
	f.Add(base)
	f.Add(tw.new(f).AppendDump(nil, 0))
	da, _ := ParseDump(base)
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseDump(b)
		if err != nil {
			return
		}
		_, _, _ = DiffDumps(d, d, 0)
		if da != nil {
			_, _, _ = DiffDumps(da, d, 20)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

func btoa(v bool) string {
	if v {
		return "true"
	}
	return "false"
}

func le32(v int32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }

func le32f(v float32) []byte { return le32(int32(math.Float32bits(v))) }
