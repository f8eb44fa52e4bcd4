package module

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// The tests in this file run natively (wazero) and as js/wasm under Node
// (the browser's engine: GOOS=js GOARCH=wasm go test -exec
// "$(go env GOROOT)/lib/wasm/go_js_wasm_exec" ./module/), checking one
// golden world hash for both: a tab and a server agree.

// exampleHashes is each example module's world hash (memory and globals)
// after examplePlay's 1,800 ticks.
var exampleHashes = map[string]uint64{
	"c/coins.wasm":              0x6c4d9d12b083393b,
	"rust/puck.wasm":            0x9308644ef5710fe5,
	"assemblyscript/dodge.wasm": 0xffa95f08d6c738f3,
}

// examplePlay plays the example module file for ticks ticks at 4
// players (all join at tick 1; the last leaves at 600 and is back at
// 900; keys from a hash of the player and the tick's 8-tick period) and
// returns the game and its world.
func examplePlay(t testing.TB, file string, ticks uint32) (*Game, *world.World) {
	t.Helper()
	b, err := os.ReadFile("../examples/modules/" + file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(file, b, Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	g := m.Game(42)
	_, w, err := game.NewWorld[Input](g, nil)
	if err != nil {
		t.Fatal(err)
	}
	for n := uint32(1); n <= ticks; n++ {
		g.Step(w, exampleTick(n))
		if err := g.StepErr(w); err != nil {
			t.Fatal(err)
		}
	}
	return g, w
}

// exampleTick returns tick n of examplePlay's match.
func exampleTick(n uint32) *game.Tick[Input] {
	tk := &game.Tick[Input]{Number: n, Inputs: make([]Input, 4), Present: make([]bool, 4)}
	for p := range 4 {
		switch {
		case n == 1 || p == 3 && n == 900:
			tk.Events = append(tk.Events, game.Event{Kind: game.Join, Player: game.PlayerID(p)})
		case p == 3 && n == 600:
			tk.Events = append(tk.Events, game.Event{Kind: game.Leave, Player: game.PlayerID(p)})
		}
		tk.Present[p] = p < 3 || n < 600 || n >= 900
		if tk.Present[p] {
			h := (n>>3+1)*0x9e3779b1 + uint32(p+1)*0x85ebca77
			h ^= h >> 15
			h *= 0x2c1b3c6d
			h ^= h >> 12
			tk.Inputs[p] = InputOf([]byte{byte(h)})
		}
	}
	return tk
}

// TestExamplesTwin plays the three example modules 1,800 ticks: the world
// hash is the golden one, natively and in js/wasm. Then a rollback:
// the world at tick 1,500 restored and 300 ticks played again give the
// same hash.
func TestExamplesTwin(t *testing.T) {
	for file, want := range exampleHashes {
		g, w := examplePlay(t, file, 1500)
		snap := w.Snapshot()
		for n := uint32(1501); n <= 1800; n++ {
			g.Step(w, exampleTick(n))
		}
		if got := w.Hash(); got != want {
			t.Errorf("%s: world hash after 1800 ticks %#x, golden %#x", file, got, want)
		}
		if err := w.Restore(snap); err != nil {
			t.Fatal(err)
		}
		for n := uint32(1501); n <= 1800; n++ {
			g.Step(w, exampleTick(n))
		}
		if got := w.Hash(); got != want {
			t.Errorf("%s: after a rollback to 1500, world hash %#x, golden %#x", file, got, want)
		}
	}
}

// TestLoadRefusesTwin: the refusals a tab makes are the server's.
func TestLoadRefusesTwin(t *testing.T) {
	for _, c := range []struct {
		file string
		err  error
		want string
	}{
		{"wasi.wasm", ErrImport, "wasi_snapshot_preview1.fd_write"},
		{"shared.wasm", ErrFeature, "shared memory (threads)"},
		{"abi2.wasm", ErrContract, "rewind_abi returned 2"},
	} {
		b, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Load(c.file, b, Config{})
		if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %v naming %q", c.file, err, c.err, c.want)
		}
	}
}

// BenchmarkRollback60Coins measures a client's 60-tick rollback of
// coins.wasm (128 KiB of memory, 4 players): restore the world 60 ticks
// back, then step and snapshot 60 ticks. Natively with wazero; under
// Node (GOOS=js GOARCH=wasm go test -exec go_js_wasm_exec -bench
// Rollback60Coins ./module/) with V8's WebAssembly, as in a tab's Worker.
func BenchmarkRollback60Coins(b *testing.B) {
	g, w := examplePlay(b, "c/coins.wasm", 600)
	base := w.Snapshot()
	ring := make([]world.Snapshot, 60)
	ticks := make([]*game.Tick[Input], 60)
	for i := range ticks {
		ticks[i] = exampleTick(uint32(601 + i))
	}
	for b.Loop() {
		if err := w.Restore(base); err != nil {
			b.Fatal(err)
		}
		for i, tk := range ticks {
			g.Step(w, tk)
			w.SnapshotInto(&ring[i])
		}
	}
	if err := g.StepErr(w); err != nil {
		b.Fatal(err)
	}
}

// counterHash is testdata/counter.wasm's world hash after TestCounterTwin's
// 300 ticks: its memory grows at tick 100, and it has i64 and f64
// globals and a rewind.log import.
const counterHash = 0x5d88ab45ec836ff6

// TestCounterTwin plays counter.wasm 300 ticks natively or in js/wasm,
// with a rollback from tick 200 to tick 50 (before its memory grew: a
// world smaller than the instance's memory) and forward again: one
// golden world hash, and its rewind.log line delivered.
func TestCounterTwin(t *testing.T) {
	b, err := os.ReadFile("testdata/counter.wasm")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	m, err := Load("counter.wasm", b, Config{Log: func(_, line string) { lines = append(lines, line) }})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	g := m.Game(7)
	_, w, err := game.NewWorld[Input](g, nil)
	if err != nil {
		t.Fatal(err)
	}
	tick := func(n uint32) *game.Tick[Input] {
		tk := &game.Tick[Input]{Number: n, Inputs: make([]Input, 4), Present: []bool{true, true, true, true}}
		for p := range 4 {
			tk.Inputs[p] = InputOf([]byte{byte(n*7 + uint32(p)), byte(n>>2 + uint32(p)*3)})
			if n == 1 {
				tk.Events = append(tk.Events, game.Event{Kind: game.Join, Player: game.PlayerID(p)})
			}
		}
		return tk
	}
	var at50 *world.Snapshot
	for n := uint32(1); n <= 200; n++ {
		g.Step(w, tick(n))
		if n == 50 {
			at50 = w.Snapshot()
		}
	}
	if err := w.Restore(at50); err != nil {
		t.Fatal(err)
	}
	for n := uint32(51); n <= 300; n++ {
		g.Step(w, tick(n))
	}
	if err := g.StepErr(w); err != nil {
		t.Fatal(err)
	}
	if got := w.Hash(); got != counterHash {
		t.Errorf("counter.wasm: world hash after 300 ticks %#x, golden %#x", got, counterHash)
	}
	if len(lines) == 0 || lines[0] != "counter v1" {
		t.Errorf("rewind.log lines %q", lines)
	}
}
