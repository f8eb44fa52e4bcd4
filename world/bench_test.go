package world_test

import (
	"testing"

	"github.com/zeebo/xxh3"

	"github.com/rewindnet/rewind/internal/tools/worldsim"
	"github.com/rewindnet/rewind/world"
)

// sandWorld returns the sand world after ticks of pouring.
func sandWorld(b *testing.B, ticks int) (*worldsim.Sand, *world.World) {
	b.Helper()
	s := worldsim.NewSand(0)
	w, err := world.New(s.Schema)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Setup(w, 1); err != nil {
		b.Fatal(err)
	}
	for range ticks {
		s.Step(w)
	}
	return s, w
}

// The pairs below are compared in docs/benchmarks.md (World): snapshot vs
// copy, hash vs xxh3 of one buffer of the same size.

func BenchmarkSnapshotSand(b *testing.B) {
	_, w := sandWorld(b, 600)
	var s world.Snapshot
	b.SetBytes(int64(w.UsedBytes()))
	for b.Loop() {
		w.SnapshotInto(&s)
	}
}

func BenchmarkCopySameBytes(b *testing.B) {
	_, w := sandWorld(b, 600)
	src, dst := make([]byte, w.UsedBytes()), make([]byte, w.UsedBytes())
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		copy(dst, src)
	}
}

func BenchmarkRestoreSand(b *testing.B) {
	_, w := sandWorld(b, 600)
	s := w.Snapshot()
	b.SetBytes(int64(w.UsedBytes()))
	for b.Loop() {
		_ = w.Restore(s)
	}
}

func BenchmarkHashSand(b *testing.B) {
	_, w := sandWorld(b, 600)
	b.SetBytes(int64(w.UsedBytes()))
	for b.Loop() {
		_ = w.Hash()
	}
}

func BenchmarkXXH3SameBytes(b *testing.B) {
	_, w := sandWorld(b, 600)
	buf := make([]byte, w.UsedBytes())
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		_ = xxh3.Hash(buf)
	}
}

func BenchmarkPageHashesSand(b *testing.B) {
	_, w := sandWorld(b, 600)
	var h []uint64
	for b.Loop() {
		h = w.PageHashes(h)
	}
}

func benchSnapshotEntities(b *testing.B, n int) {
	e := worldsim.NewEntities(100000, 0)
	w, _ := world.New(e.Schema)
	if err := e.Fill(w, n, 1); err != nil {
		b.Fatal(err)
	}
	var s world.Snapshot
	for b.Loop() {
		w.SnapshotInto(&s)
	}
}

func BenchmarkSnapshotEntities1pct(b *testing.B) { benchSnapshotEntities(b, 1000) }
func BenchmarkSnapshotEntitiesFull(b *testing.B) { benchSnapshotEntities(b, 100000) }

func BenchmarkAppendDeltaSandTick(b *testing.B) {
	s, w := sandWorld(b, 900)
	base := w.Snapshot()
	s.Step(w)
	var enc []byte
	for b.Loop() {
		enc, _ = w.AppendDelta(enc[:0], base)
	}
	b.ReportMetric(float64(len(enc)), "bytes")
}

func BenchmarkAppendWorldSand(b *testing.B) {
	_, w := sandWorld(b, 1800)
	var enc []byte
	for b.Loop() {
		enc = w.AppendWorld(enc[:0])
	}
	b.ReportMetric(float64(len(enc)), "bytes")
}

func BenchmarkDecodeWorldSand(b *testing.B) {
	s, w := sandWorld(b, 1800)
	enc := w.AppendWorld(nil)
	got, _ := world.New(s.Schema)
	for b.Loop() {
		if err := got.DecodeWorld(enc); err != nil {
			b.Fatal(err)
		}
	}
}
