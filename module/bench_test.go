//go:build !js

package module

import (
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// BenchmarkJoin1MiB: the bytes of a joiner's world of a 1 MiB-memory
// module after 60 ticks, against zstd (default level) of the raw memory:
// what a fresh player's join sends (the server's pushWorld: World.
// AppendDelta against the world Setup made, which every machine makes
// itself: only the pages changed since, XORed with the start's, zero-run
// packed, then zstd), and the whole world (World.AppendWorld, what a
// player whose world the server does not know may get); reported as
// join-bytes, world-bytes, zstd-bytes and their ratios.
func BenchmarkJoin1MiB(b *testing.B) {
	m := loadFile(b, "big.wasm", Config{})
	g := m.Game(9)
	_, w, err := game.NewWorld[Input](g, nil)
	if err != nil {
		b.Fatal(err)
	}
	var setup world.Snapshot
	w.SnapshotInto(&setup)
	k := newTicker()
	for i := uint32(1); i <= 60; i++ {
		g.Step(w, k.tick(i))
	}
	mem := g.region(w)[:g.mem.Len(w)*wasmPage]
	enc, _ := zstd.NewWriter(nil)
	z := len(enc.EncodeAll(mem, nil))
	var n, d int
	for b.Loop() {
		delta, err := w.AppendDelta(nil, &setup)
		if err != nil {
			b.Fatal(err)
		}
		d = len(delta)
		n = len(w.AppendWorld(nil))
	}
	b.ReportMetric(float64(d), "join-bytes")
	b.ReportMetric(float64(n), "world-bytes")
	b.ReportMetric(float64(z), "zstd-bytes")
	b.ReportMetric(float64(d)/float64(z), "join-ratio")
	b.ReportMetric(float64(n)/float64(z), "world-ratio")
}

// BenchmarkServerTick: a server's work per tick of the counter module at
// 4 players: step, hash (as server.runTick; checkpoints aside).
func BenchmarkServerTick(b *testing.B) {
	m := loadFile(b, "counter.wasm", Config{})
	g := m.Game(9)
	_, w, err := game.NewWorld[Input](g, nil)
	if err != nil {
		b.Fatal(err)
	}
	k := newTicker()
	t := uint32(0)
	for b.Loop() {
		t++
		g.Step(w, k.tick(t%600+1))
		_ = w.Hash()
	}
}
