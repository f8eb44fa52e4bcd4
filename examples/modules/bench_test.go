package modules

import (
	"testing"

	"github.com/rewindnet/rewind/world"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/zeebo/xxh3"
)

// BenchmarkCoins measures a server's cost per tick of the coins game at
// 4 players in full flight (after 600 seeded ticks), step + snapshot +
// hash, in one run: "go" is games/coins (world.SnapshotInto and Hash),
// "wasm" coins.wasm (128 KiB of memory) under wazero's compiler, its
// whole memory copied into a snapshot buffer and hashed with xxh3 each
// tick: the plain way, what an engine that tracks no dirty pages pays.
func BenchmarkCoins(b *testing.B) {
	b.Run("go", func(b *testing.B) {
		gc := newGoCoins(b, goldenSeed)
		var snap world.Snapshot
		n := 0
		next := func() {
			n++
			gc.step(n, 4)
			gc.w.SnapshotInto(&snap)
			_ = gc.w.Hash()
		}
		for range 600 {
			next()
		}
		for b.Loop() {
			next()
		}
	})
	b.Run("wasm", func(b *testing.B) {
		in := load(b, wazero.NewRuntimeConfig(), Coins, goldenSeed)
		step := in.mod.ExportedFunction("rewind_step")
		mem := in.mod.Memory()
		snap := make([]byte, mem.Size())
		n := 0
		next := func() {
			n++
			in.writeInputs(n, 4)
			if _, err := step.Call(in.ctx, api.EncodeI32(int32(n))); err != nil {
				b.Fatal(err)
			}
			m, _ := mem.Read(0, mem.Size())
			copy(snap, m)
			_ = xxh3.Hash(m)
		}
		for range 600 {
			next()
		}
		for b.Loop() {
			next()
		}
	})
}
