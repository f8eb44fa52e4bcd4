//go:build !js

package coins

import (
	"os"
	"testing"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/module"
	"github.com/rewindnet/rewind/world"
)

// BenchmarkServerTick measures what a server pays per tick of a coins
// match at 4 players in full flight (after 600 ticks of the bots): Step, a
// snapshot into a reused one and the world's hash. "go" is this package;
// "wasm" is examples/modules/c/coins.wasm (the same game, 128 KiB of
// memory) through package module (wazero's compiler), in the same run.
// Issue 40's goal: wasm ≤ 2× go.
func BenchmarkServerTick(b *testing.B) {
	b.Run("go", func(b *testing.B) {
		benchTick(b, New(42), func(p rewind.PlayerID, t uint32) Input { return Bot(p, t) })
	})
	b.Run("wasm", func(b *testing.B) {
		wasm, err := os.ReadFile("../../examples/modules/c/coins.wasm")
		if err != nil {
			b.Fatal(err)
		}
		m, err := module.Load("coins.wasm", wasm, module.Config{})
		if err != nil {
			b.Fatal(err)
		}
		benchTick(b, m.Game(42), func(p rewind.PlayerID, t uint32) module.Input {
			return module.InputOf([]byte{Bot(p, t).Keys})
		})
	})
}

func benchTick[I any](b *testing.B, g game.Game[I], bot func(rewind.PlayerID, uint32) I) {
	_, w, err := game.NewWorld(g, nil)
	if err != nil {
		b.Fatal(err)
	}
	tk := rewind.Tick[I]{Inputs: make([]I, 8), Present: make([]bool, 8)}
	for p := range 4 {
		tk.Events = append(tk.Events, rewind.Event{Kind: rewind.Join, Player: rewind.PlayerID(p)})
		tk.Present[p] = true
	}
	var snap world.Snapshot
	next := func() {
		tk.Number++
		for p := range 4 {
			tk.Inputs[p] = bot(rewind.PlayerID(p), tk.Number)
		}
		g.Step(w, &tk)
		tk.Events = nil
		w.SnapshotInto(&snap)
		_ = w.Hash()
	}
	for range 600 {
		next()
	}
	for b.Loop() {
		next()
	}
}
