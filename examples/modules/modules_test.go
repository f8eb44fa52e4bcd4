package modules

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/rewindnet/rewind/draw"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// golden is each module's SHA-256 of its memory after 1,800 ticks of
// scriptedInputs from rewind_init(42) at 4 players, as Node 20's V8
// (play.js), wazero's compiler and its interpreter all computed it.
var golden = map[string]string{
	"coins": "e5035944e0205d94dc9d85cb0ad68b6f1184ea8f2ab4fba6fa16526bd0513312",
	"puck":  "3d0a61a4c4cd1e76b1cdb7df7a629edff973845f9af540f94617da19f2dcc924",
	"dodge": "cdafeff79fc08500a22ada825d56875b18b8e4aa5bc51e54c5544600edd9a912",
}

const (
	goldenTicks   = 1800
	goldenSeed    = 42
	goldenPlayers = 4
)

// i32 is the WebAssembly i32 value type, shorter.
const i32, i64 = api.ValueTypeI32, api.ValueTypeI64

// contract lists contract v1's exported functions and their signatures.
var contract = map[string][2][]api.ValueType{
	"rewind_abi":        {nil, {i32}},
	"rewind_players":    {nil, {i32}},
	"rewind_input_size": {nil, {i32}},
	"rewind_init":       {{i64}, nil},
	"rewind_inputs":     {nil, {i32}},
	"rewind_step":       {{i32}, nil},
	"rewind_control":    {{i32, i32, i32, i32, i32, i32}, {i32}},
	"rewind_draw":       {{i32, i32, i32, i32}, {i32}},
}

// checkContract returns what in cm breaks contract v1's shape: an import
// other than rewind.log, a missing memory export, a missing export or
// one with another signature.
func checkContract(cm wazero.CompiledModule) []string {
	var bad []string
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		if mod != "rewind" || name != "log" {
			bad = append(bad, fmt.Sprintf("imports %s.%s", mod, name))
		}
	}
	for _, m := range cm.ImportedMemories() {
		mod, name, _ := m.Import()
		bad = append(bad, fmt.Sprintf("imports memory %s.%s", mod, name))
	}
	if _, ok := cm.ExportedMemories()["memory"]; !ok {
		bad = append(bad, "exports no memory named memory")
	}
	fns := cm.ExportedFunctions()
	for name, sig := range contract {
		f, ok := fns[name]
		if !ok {
			bad = append(bad, "does not export "+name)
			continue
		}
		if !slices.Equal(f.ParamTypes(), sig[0]) || !slices.Equal(f.ResultTypes(), sig[1]) {
			bad = append(bad, fmt.Sprintf("%s has params %v results %v", name, f.ParamTypes(), f.ResultTypes()))
		}
	}
	slices.Sort(bad)
	return bad
}

// instance is one instantiated module.
type instance struct {
	t             testing.TB
	ctx           context.Context
	mod           api.Module
	players, size int
	inputs        uint32
}

// load compiles and instantiates wasm under rc, checks the contract's
// shape and its constants, and calls rewind_init(seed).
func load(t testing.TB, rc wazero.RuntimeConfig, wasm []byte, seed int64) *instance {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, rc)
	t.Cleanup(func() { _ = r.Close(ctx) })
	cm, err := r.CompileModule(ctx, wasm)
	if err != nil {
		t.Fatal(err)
	}
	if bad := checkContract(cm); len(bad) > 0 {
		t.Fatalf("the module breaks contract v1: %q", bad)
	}
	mod, err := r.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	in := &instance{t: t, ctx: ctx, mod: mod}
	if abi := in.call("rewind_abi"); abi != 1 {
		t.Fatalf("rewind_abi() = %d, want 1", abi)
	}
	in.players, in.size = int(in.call("rewind_players")), int(in.call("rewind_input_size"))
	if in.players < 1 || in.players > 64 || in.size < 1 || in.size > 64 {
		t.Fatalf("rewind_players() = %d, rewind_input_size() = %d: want 1..64 each", in.players, in.size)
	}
	in.inputs = uint32(in.call("rewind_inputs"))
	if _, ok := mod.Memory().Read(in.inputs, uint32(in.players*(1+in.size))); !ok {
		t.Fatalf("rewind_inputs() = %#x: the buffer is past the memory's %d bytes", in.inputs, mod.Memory().Size())
	}
	in.call("rewind_init", api.EncodeI64(seed))
	return in
}

// call calls the exported function name and returns its first result
// (0 when it has none), failing the test on a trap.
func (in *instance) call(name string, args ...uint64) uint64 {
	in.t.Helper()
	res, err := in.mod.ExportedFunction(name).Call(in.ctx, args...)
	if err != nil {
		in.t.Fatalf("%s: %v", name, err)
	}
	if len(res) == 0 {
		return 0
	}
	return res[0]
}

// scriptedStatus is player p's status byte at tick t in a match of want
// players (play.js's status): all join at tick 1; the last of them leaves
// at 600 and comes back at 900.
func scriptedStatus(p, t, want int) byte {
	switch {
	case p >= want:
		return 0
	case t == 1:
		return 2
	case p == want-1 && want > 1 && t == 600:
		return 3
	case p == want-1 && want > 1 && t > 600 && t < 900:
		return 0
	case p == want-1 && want > 1 && t == 900:
		return 2
	}
	return 1
}

// scriptedKeys is player p's input word at tick t (play.js's keys): a new
// one every 8 ticks, from a hash of the period and the player.
func scriptedKeys(p, t int) uint32 {
	h := (uint32(t)>>3+1)*0x9e3779b1 + uint32(p+1)*0x85ebca77
	h ^= h >> 15
	h *= 0x2c1b3c6d
	h ^= h >> 12
	return h
}

// writeInputs writes tick t's scripted records into the inputs buffer.
func (in *instance) writeInputs(t, want int) {
	rec := make([]byte, in.players*(1+in.size))
	for p := range in.players {
		r := rec[p*(1+in.size):]
		s := scriptedStatus(p, t, want)
		r[0] = s
		k := scriptedKeys(p, t)
		for j := range in.size {
			if s == 1 || s == 2 {
				r[1+j] = byte(k>>(8*(j&3))) ^ byte(j)
			}
		}
	}
	if !in.mod.Memory().Write(in.inputs, rec) {
		in.t.Fatal("inputs buffer past the memory")
	}
}

// play steps ticks from+1 through to with the scripted inputs.
func (in *instance) play(from, to, want int) {
	in.t.Helper()
	step := in.mod.ExportedFunction("rewind_step")
	for t := from + 1; t <= to; t++ {
		in.writeInputs(t, want)
		if _, err := step.Call(in.ctx, api.EncodeI32(int32(t))); err != nil {
			in.t.Fatalf("rewind_step(%d): %v", t, err)
		}
	}
}

// memory returns a copy of the module's memory.
func (in *instance) memory() []byte {
	b, _ := in.mod.Memory().Read(0, in.mod.Memory().Size())
	return slices.Clone(b)
}

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// checkDrawListOf checks the draw list at addr in mem (checkDrawList)
// and returns it decoded.
func checkDrawListOf(t testing.TB, mem []byte, addr uint32) *draw.List {
	t.Helper()
	checkDrawList(t, mem, addr)
	var l draw.List
	if err := l.Decode(mem, addr); err != nil {
		t.Fatal(err)
	}
	return &l
}

// checkDrawList checks the draw list at addr in mem: its count and
// commands inside the memory, every text's bytes inside it and UTF-8.
// It returns the commands' count per op.
func checkDrawList(t testing.TB, mem []byte, addr uint32) map[byte]int {
	t.Helper()
	if uint64(addr)+4 > uint64(len(mem)) {
		t.Fatalf("draw list at %#x: past the memory", addr)
	}
	n := binary.LittleEndian.Uint32(mem[addr:])
	if uint64(addr)+4+20*uint64(n) > uint64(len(mem)) {
		t.Fatalf("draw list at %#x: %d commands run past the memory", addr, n)
	}
	ops := map[byte]int{}
	for i := range n {
		c := mem[addr+4+20*i:]
		ops[c[0]]++
		if c[0] < 1 || c[0] > 6 {
			t.Errorf("command %d: op %d is not one of contract v1's", i, c[0])
		}
		if c[0] == 5 {
			p, l := binary.LittleEndian.Uint32(c[12:]), binary.LittleEndian.Uint32(c[16:])
			if uint64(p)+uint64(l) > uint64(len(mem)) || !utf8.Valid(mem[p:p+l]) {
				t.Errorf("command %d: text at %#x, %d bytes: outside the memory or not UTF-8", i, p, l)
			}
		}
	}
	return ops
}

// TestModulesPlay checks each example module against contract v1 and
// plays 1,800 seeded ticks at 4 players under wazero's compiler (where
// the platform has it) and its interpreter: the memory hashes equal each
// other and the golden one (V8's, TestModulesNode). Then the view
// exports, on a copy of the world: a draw list inside the memory, with a
// clear, a circle or rectangle per player and a score text each; the
// control's input bytes inside the memory, with the keys pressed.
func TestModulesPlay(t *testing.T) {
	for _, ex := range All() {
		t.Run(ex.Name, func(t *testing.T) {
			var hashes []string
			var last *instance
			for _, rc := range []wazero.RuntimeConfig{wazero.NewRuntimeConfig(), wazero.NewRuntimeConfigInterpreter()} {
				in := load(t, rc, ex.Wasm, goldenSeed)
				in.play(0, goldenTicks, goldenPlayers)
				hashes = append(hashes, hashOf(in.memory()))
				last = in
			}
			if hashes[0] != hashes[1] {
				t.Fatalf("compiler %s, interpreter %s", hashes[0], hashes[1])
			}
			if hashes[0] != golden[ex.Name] {
				t.Errorf("memory hash after %d ticks %s, golden %s", goldenTicks, hashes[0], golden[ex.Name])
			}
			checkView(t, last)
		})
	}
}

// checkView calls the view exports of in and checks what they return.
func checkView(t *testing.T, in *instance) {
	addr := uint32(in.call("rewind_draw", api.EncodeI32(0), api.EncodeI32(640), api.EncodeI32(480), api.EncodeI32(500)))
	ops := checkDrawList(t, in.memory(), addr)
	if ops[6] != 1 || ops[5] != goldenPlayers || ops[3]+ops[1] < goldenPlayers {
		t.Errorf("draw list ops %v: want a clear, a score text per player (%d) and a shape each", ops, goldenPlayers)
	}
	const right, fire = 2, 16
	c := uint32(in.call("rewind_control", api.EncodeI32(0), api.EncodeI32(right|fire), 0, 0, api.EncodeI32(640), api.EncodeI32(480)))
	b, ok := in.mod.Memory().Read(c, uint32(in.size))
	if !ok {
		t.Fatalf("rewind_control returned %#x: past the memory", c)
	}
	if b[0] != right|fire {
		t.Errorf("rewind_control(right|fire) = %#x", b[0])
	}
}

// TestCheckContractRefuses: the test's own contract check names a WASI
// import and every missing export of a module that has only that import.
func TestCheckContractRefuses(t *testing.T) {
	wasm := []byte{
		0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 9, 1, 0x60, 4, 0x7f, 0x7f, 0x7f, 0x7f, 1, 0x7f, // type 0: (i32 i32 i32 i32) -> i32
		2, 35, 1, 22, 'w', 'a', 's', 'i', '_', 's', 'n', 'a', 'p', 's', 'h', 'o', 't', '_',
		'p', 'r', 'e', 'v', 'i', 'e', 'w', '1', 8, 'f', 'd', '_', 'w', 'r', 'i', 't', 'e', 0, 0,
	}
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	cm, err := r.CompileModule(ctx, wasm)
	if err != nil {
		t.Fatal(err)
	}
	bad := checkContract(cm)
	if len(bad) != 2+len(contract) || !slices.Contains(bad, "imports wasi_snapshot_preview1.fd_write") ||
		!slices.Contains(bad, "exports no memory named memory") || !slices.Contains(bad, "does not export rewind_step") {
		t.Errorf("checkContract = %q", bad)
	}
}
