//go:build !js

package module

import (
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/rewindnet/rewind/game"
)

// BenchmarkJoin1MiB: the bytes of a joiner's world (World.AppendWorld:
// zero-run packed pages, then zstd) of a 1 MiB-memory module after 60
// ticks, against zstd (default level) of the raw memory; reported as
// world-bytes, zstd-bytes and ratio.
func BenchmarkJoin1MiB(b *testing.B) {
	m := loadFile(b, "big.wasm", Config{})
	g := m.Game(9)
	_, w, err := game.NewWorld[Input](g, nil)
	if err != nil {
		b.Fatal(err)
	}
	k := newTicker()
	for i := uint32(1); i <= 60; i++ {
		g.Step(w, k.tick(i))
	}
	mem := g.region(w)[:g.mem.Len(w)*wasmPage]
	enc, _ := zstd.NewWriter(nil)
	z := len(enc.EncodeAll(mem, nil))
	var n int
	for b.Loop() {
		n = len(w.AppendWorld(nil))
	}
	b.ReportMetric(float64(n), "world-bytes")
	b.ReportMetric(float64(z), "zstd-bytes")
	b.ReportMetric(float64(n)/float64(z), "ratio")
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
