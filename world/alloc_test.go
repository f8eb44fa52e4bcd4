package world

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rewindnet/rewind/internal/zstdfast"
)

func TestZeroAllocs(t *testing.T) {
	tw := newTestSchema(t, 0)
	w := tw.new(t)
	r := rand.New(rand.NewPCG(7, 7))
	tw.mutate(w, r, 500)
	var s Snapshot
	w.SnapshotInto(&s) // first one sizes the buffer
	hashes := w.PageHashes(nil)
	cases := map[string]func(){
		"SnapshotInto": func() { w.SnapshotInto(&s) },
		"Restore":      func() { _ = w.Restore(&s) },
		"Hash":         func() { _ = w.Hash() },
		"SnapshotHash": func() { s.hashed = false; _ = s.Hash() },
		"PageHashes":   func() { hashes = w.PageHashes(hashes) },
		"CopyFrom":     func() { _ = w.CopyFrom(w) },
		"TableAccess": func() {
			if tw.entities.Len(w) > 0 {
				tw.entities.At(w, 0).X++
				_ = tw.entities.Get(w, 0)
			}
			for i := range tw.entities.All(w) {
				tw.entities.At(w, i).Y++
			}
		},
		"TableAddRemove": func() {
			if i, err := tw.entities.Add(w, testEntity{ID: 5}); err == nil {
				tw.entities.Remove(w, i)
			}
		},
		"GridAccess": func() {
			tw.sand.Set(w, 1, 2, tw.sand.Get(w, 2, 1)+1)
			tw.cells.At(w, 3, 4).Temp++
			_ = tw.sand.Row(w, 5)
			_ = tw.sand.Cells(w)
		},
		"ValueAccess": func() { *tw.tick.Ptr(w)++; tw.flag.Set(w, !tw.flag.Get(w)) },
		"RNG":         func() { _ = tw.rng.IntN(w, 10) + int(tw.rng.Uint64(w)&1); _ = tw.rng.Float64(w) },
	}
	for name, f := range cases {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocations per run", name, n)
		}
	}
}

// TestDecodeAllocationBound checks that decoding, once a world's buffers
// exist, allocates no more than a bound derived from the layout, for valid
// encodings and for garbage.
func TestDecodeAllocationBound(t *testing.T) {
	tw := newTestSchema(t, 0)
	w := tw.new(t)
	r := rand.New(rand.NewPCG(8, 8))
	tw.mutate(w, r, 800)
	got := tw.new(t)
	bound := uint64(4*w.layout.size + w.layout.maxPayload() + 2*zstdfast.MaxWindow)
	for _, c := range allCompressions {
		w.SetCompression(c)
		enc := w.AppendWorld(nil)
		if err := got.DecodeWorld(enc); err != nil { // warm up
			t.Fatal(err)
		}
		for _, data := range [][]byte{enc, append(enc[:len(enc):len(enc)], 1, 2, 3), enc[:len(enc)/2]} {
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			_ = got.DecodeWorld(data)
			runtime.ReadMemStats(&m1)
			if a := m1.TotalAlloc - m0.TotalAlloc; a > bound {
				t.Errorf("compression %d: decode allocated %d bytes, bound %d", c, a, bound)
			}
		}
	}
}
