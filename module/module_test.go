//go:build !js

package module

import (
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

func loadFile(t testing.TB, name string, cfg Config) *Module {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(name, b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestLoadRefuses(t *testing.T) {
	for _, c := range []struct {
		file string
		cfg  Config
		err  error
		want string
	}{
		{"wasi.wasm", Config{}, ErrImport, "wasi_snapshot_preview1.fd_write"},
		{"shared.wasm", Config{}, ErrFeature, "shared memory (threads)"},
		{"atomic.wasm", Config{}, ErrFeature, "threads"},
		{"abi2.wasm", Config{}, ErrContract, "rewind_abi returned 2"},
		{"counter.wasm", Config{MaxBytes: 100}, ErrTooBig, "the cap is 100"},
		{"counter.wasm", Config{MaxMemory: 65536}, ErrMemory, "needs 128 KiB"},
	} {
		b, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Load(c.file, b, c.cfg)
		if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.file) {
			t.Errorf("%s: %v, want %v naming %q", c.file, err, c.err, c.want)
		}
	}
	if _, err := Load("junk", []byte("\x00asm\x01\x00\x00\x00\x07\x05"), Config{}); !errors.Is(err, ErrFormat) {
		t.Errorf("truncated: %v", err)
	}
}

func TestLoadReads(t *testing.T) {
	var lines []string
	m := loadFile(t, "counter.wasm", Config{Log: func(mod, l string) { lines = append(lines, mod+": "+l) }})
	if m.Players() != 4 || m.InputSize() != 2 || !m.HasView() || m.Globals() != 3 || m.MemoryCap() != 4*65536 {
		t.Fatalf("players %d input %d view %v globals %d cap %d", m.Players(), m.InputSize(), m.HasView(), m.Globals(), m.MemoryCap())
	}
	g := m.Game(42)
	if _, _, err := game.NewWorld[Input](g, nil); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0] != "counter.wasm: counter v1" {
		t.Errorf("log %q", lines)
	}
}

// ticker steps worlds of a game with seeded inputs.
type ticker struct {
	tk      game.Tick[Input]
	present []bool
	inputs  []Input
}

func newTicker() *ticker {
	return &ticker{present: make([]bool, 4), inputs: make([]Input, 4)}
}

// tick fills the tick t's inputs from a generator seeded by t (players 0
// and 2 playing from tick 1, player 1 joining at 20 and leaving at 150).
func (k *ticker) tick(t uint32) *game.Tick[Input] {
	r := rand.New(rand.NewPCG(uint64(t), 7))
	k.tk.Events = k.tk.Events[:0]
	k.present[0], k.present[2] = true, true
	k.present[1] = t >= 20 && t < 150
	switch t {
	case 20:
		k.tk.Events = append(k.tk.Events, game.Event{Kind: game.Join, Player: 1})
	case 150:
		k.tk.Events = append(k.tk.Events, game.Event{Kind: game.Leave, Player: 1})
	}
	for i := range k.inputs {
		k.inputs[i] = Input{}
		if k.present[i] {
			k.inputs[i] = InputOf([]byte{byte(r.IntN(256)), byte(r.IntN(256))})
		}
	}
	k.tk.Number, k.tk.Inputs, k.tk.Present = t, k.inputs, k.present
	return &k.tk
}

func TestGameRollbackAndJoin(t *testing.T) {
	m := loadFile(t, "counter.wasm", Config{})
	g := m.Game(7)
	s, w, err := game.NewWorld[Input](g, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := newTicker()
	snaps := make([]world.Snapshot, 201)
	hashes := make([]uint64, 201)
	w.SnapshotInto(&snaps[0])
	hashes[0] = w.Hash()
	for i := uint32(1); i <= 200; i++ {
		g.Step(w, k.tick(i))
		w.SnapshotInto(&snaps[i])
		hashes[i] = w.Hash()
	}
	if err := g.StepErr(w); err != nil {
		t.Fatal(err)
	}
	if w.Hash() == hashes[99] || g.mem.Len(w) != 3 {
		t.Fatalf("memory pages %d after the grow at tick 100", g.mem.Len(w))
	}
	// Rollback over the grow: the instance must shrink (a new one).
	for _, from := range []uint32{150, 60, 0} {
		if err := w.Restore(&snaps[from]); err != nil {
			t.Fatal(err)
		}
		for i := from + 1; i <= 200; i++ {
			g.Step(w, k.tick(i))
			if h := w.Hash(); h != hashes[i] {
				ref, _ := world.New(s)
				ref.Restore(&snaps[i])
				d, _, _ := world.Diff(w, ref, 5)
				t.Logf("%v", d)
				t.Fatalf("resimulated from %d: tick %d hash %x, want %x", from, i, h, hashes[i])
			}
		}
	}
	// A joiner: a world decoded from an encoding, stepped on its own instance.
	j, _ := world.New(s)
	if err := j.DecodeWorld(snapsWorld(t, s, &snaps[120])); err != nil {
		t.Fatal(err)
	}
	for i := uint32(121); i <= 200; i++ {
		g.Step(j, k.tick(i))
	}
	if j.Hash() != hashes[200] || g.StepErr(j) != nil {
		t.Fatalf("joiner: hash %x want %x (%v)", j.Hash(), hashes[200], g.StepErr(j))
	}
	// Another game of the same module on another world: the same ticks.
	g2 := m.Game(7)
	_, w2, err := game.NewWorld[Input](g2, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := uint32(1); i <= 200; i++ {
		g2.Step(w2, k.tick(i))
	}
	if w2.Hash() != hashes[200] {
		t.Fatal("a second game of the module differs")
	}
}

func snapsWorld(t *testing.T, s *world.Schema, snap *world.Snapshot) []byte {
	w, _ := world.New(s)
	if err := w.Restore(snap); err != nil {
		t.Fatal(err)
	}
	return w.AppendWorld(nil)
}

func TestStepErrors(t *testing.T) {
	m := loadFile(t, "loop.wasm", Config{StepBudget: 50 * time.Millisecond})
	g := m.Game(1)
	_, w, err := game.NewWorld[Input](g, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := newTicker()
	for i := uint32(1); i <= 5; i++ {
		g.Step(w, k.tick(i))
	}
	err = g.StepErr(w)
	if !errors.Is(err, ErrStep) || !strings.Contains(err.Error(), "loop.wasm") || !strings.Contains(err.Error(), "tick 3") || !strings.Contains(err.Error(), "budget") {
		t.Fatalf("loop: %v", err)
	}
	c := loadFile(t, "counter.wasm", Config{})
	cg := c.Game(1)
	_, cw, err := game.NewWorld[Input](cg, nil)
	if err != nil {
		t.Fatal(err)
	}
	k = newTicker()
	for i := uint32(1); i <= 700; i++ {
		cg.Step(cw, k.tick(i))
	}
	err = cg.StepErr(cw)
	if !errors.Is(err, ErrStep) || !strings.Contains(err.Error(), "tick 666") || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("trap: %v", err)
	}
}

func TestGlobalsAndDiff(t *testing.T) {
	m := loadFile(t, "counter.wasm", Config{})
	g := m.Game(3)
	_, a, err := game.NewWorld[Input](g, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, b, _ := game.NewWorld[Input](g, nil)
	k := newTicker()
	for i := uint32(1); i <= 10; i++ {
		g.Step(a, k.tick(i))
		g.Step(b, k.tick(i))
	}
	if a.Hash() != b.Hash() {
		t.Fatal("two worlds of one game differ")
	}
	g.glob.Cells(b)[1] ^= 1 // the float global's last bit
	d, _, err := world.Diff(a, b, 4)
	if err != nil || len(d) != 1 || d[0].Table != "globals" || Describe(d[0]) != "global 1" {
		t.Fatalf("%v %v", d, err)
	}
	g.glob.Cells(b)[1] ^= 1
	g.mem.At(b, 0)[2048+8] ^= 0x80
	d, _, err = world.Diff(a, b, 4)
	if err != nil || len(d) != 1 || Describe(d[0]) != "address 2056 (0x808)" {
		t.Fatalf("%v %v", d, err)
	}
}

func TestMatchSettings(t *testing.T) {
	m := loadFile(t, "counter.wasm", Config{})
	set := m.Game(77).MatchSettings()
	g, err := m.Game(1).WithMatchSettings(set)
	if err != nil || g.(*Game).Seed() != 77 {
		t.Fatalf("%v %v", g, err)
	}
	set[3] ^= 1
	if _, err := m.Game(1).WithMatchSettings(set); !errors.Is(err, ErrHash) || !strings.Contains(err.Error(), "counter.wasm") {
		t.Fatalf("another module's settings: %v", err)
	}
	if _, err := m.Game(1).WithMatchSettings(set[:39]); err == nil {
		t.Fatal("39 bytes of settings taken")
	}
}
