//go:build js

package module

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"syscall/js"
	"unsafe"
	"weak"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// Game is a module as a game.Game[Input] (the js/wasm twin of game.go):
// the same world layout, each world an instance of its own in the
// browser's engine, its memory copied from the world before each step
// and back after it.
type Game struct {
	m    *Module
	seed uint64
	mem  world.Table[[wasmPage]byte]
	glob world.Grid[uint64]

	insts map[weak.Pointer[world.World]]*instance
	lastW *world.World
	lastI *instance
	rec   []byte

	viewIn  *instance // the instance view exports run on (view_js.go)
	viewMem []byte    // its memory after a view call
}

// An instance runs the module on one world.
type instance struct {
	x       js.Value // the exports
	mem     js.Value // WebAssembly.Memory
	u8      js.Value // a Uint8Array over its buffer (renewed when it grows)
	step    js.Value
	inputs  js.Value
	globals []js.Value // WebAssembly.Global, the mutable ones in order
	inAddr  int64      // rewind_inputs' address, -1 until asked
	err     error
}

// Game returns the module as a game whose worlds start with
// rewind_init(seed).
func (m *Module) Game(seed uint64) *Game {
	return &Game{m: m, seed: seed, insts: map[weak.Pointer[world.World]]*instance{}}
}

// Module returns the game's module.
func (g *Game) Module() *Module { return g.m }

// Seed returns the seed rewind_init is called with.
func (g *Game) Seed() uint64 { return g.seed }

// Register declares the module's world: the memory table and the globals.
func (g *Game) Register(s *world.Schema) error {
	g.mem = world.AddTable[[wasmPage]byte](s, "memory", int(g.m.maxPages))
	if n := len(g.m.p.globals); n > 0 {
		g.glob = world.AddGrid[uint64](s, "globals", n, 1)
	}
	return s.Err()
}

// Setup instantiates the module for w, calls rewind_init with the game's
// seed and copies the memory and globals into w.
func (g *Game) Setup(w *world.World) error {
	in := g.newInstance()
	g.keep(w, in)
	if in.err != nil {
		return in.err
	}
	seed := js.Global().Get("BigInt").Invoke(strconv.FormatInt(int64(g.seed), 10))
	if _, err := jsTry(func() js.Value { return in.call("rewind_init", seed) }); err != nil {
		in.err = fmt.Errorf("%w: module %s: rewind_init: trapped: %v", ErrStep, g.m.name, err)
		return in.err
	}
	g.syncOut(in, w)
	return nil
}

func (g *Game) keep(w *world.World, in *instance) {
	k := weak.Make(w)
	if _, ok := g.insts[k]; !ok {
		runtime.AddCleanup(w, g.drop, k)
	}
	g.insts[k] = in
	g.lastW, g.lastI = w, in
}

func (g *Game) drop(k weak.Pointer[world.World]) { delete(g.insts, k) }

// instance returns w's instance, made on first use.
func (g *Game) instance(w *world.World) *instance {
	if g.lastW == w {
		return g.lastI
	}
	in, ok := g.insts[weak.Make(w)]
	if !ok {
		in = g.newInstance()
	}
	g.keep(w, in)
	return in
}

// newInstance instantiates the module (its data segments in its own
// memory: a world's bytes replace them at the first step).
func (g *Game) newInstance() *instance {
	m := g.m
	in := &instance{inAddr: -1}
	if m.closed {
		in.err = errors.New("module: closed")
		return in
	}
	inst, err := jsTry(func() js.Value {
		return js.Global().Get("WebAssembly").Get("Instance").New(m.jsMod, m.imports)
	})
	if err != nil {
		in.err = fmt.Errorf("%w: module %s: instantiate: %v", ErrStep, m.name, err)
		return in
	}
	x := inst.Get("exports")
	in.x = x
	in.mem, in.step, in.inputs = x.Get("memory"), x.Get("rewind_step"), x.Get("rewind_inputs")
	for _, gl := range m.p.globals {
		in.globals = append(in.globals, x.Get(globalExportPrefix+strconv.Itoa(gl.index)))
	}
	in.view()
	return in
}

// view renews in.u8 after the memory's buffer changed (a grow detaches
// the old buffer: a view over it has length 0) and returns the memory's
// size in pages. Reading the buffer each time would cost ~14 µs in Go
// (a js.Value per object, with its finalizer).
func (in *instance) view() int {
	if !in.u8.IsUndefined() {
		if n := in.u8.Length(); n > 0 {
			return n / wasmPage
		}
	}
	in.u8 = js.Global().Get("Uint8Array").New(in.mem.Get("buffer"))
	return in.u8.Length() / wasmPage
}

// call calls the export name with the instance's memory reachable by
// rewind.log.
func (in *instance) call(name string, args ...any) js.Value {
	logMemory = in.mem
	return in.x.Call(name, args...)
}

// region returns w's memory table as bytes: its length in pages.
func (g *Game) region(w *world.World) []byte {
	n := g.mem.Len(w)
	if n == 0 {
		return nil
	}
	return unsafe.Slice(&g.mem.At(w, 0)[0], n*wasmPage)
}

// Step runs rewind_step(t.Number) on w after writing the players' records.
func (g *Game) Step(w *world.World, t *game.Tick[Input]) {
	in := g.instance(w)
	if in.err != nil {
		return
	}
	if in = g.syncIn(in, w); in.err != nil {
		return
	}
	if err := g.writeInputs(in, w, t); err != nil {
		in.err = fmt.Errorf("%w: module %s: tick %d: %v", ErrStep, g.m.name, t.Number, err)
		return
	}
	logMemory = in.mem
	if _, err := jsTry(func() js.Value { return in.step.Invoke(int32(t.Number)) }); err != nil {
		in.err = fmt.Errorf("%w: module %s: tick %d: step trapped: %v", ErrStep, g.m.name, t.Number, err)
		return
	}
	g.syncOut(in, w)
}

// syncIn makes the instance hold w: its memory's size (growing it, or
// instantiating again when w is smaller: a memory cannot shrink), its
// bytes and its globals. It returns the instance to use.
func (g *Game) syncIn(in *instance, w *world.World) *instance {
	wp, ip := g.mem.Len(w), in.view()
	if ip > wp {
		in = g.newInstance()
		g.keep(w, in)
		if in.err != nil {
			return in
		}
		ip = in.view()
	}
	if ip < wp {
		if _, err := jsTry(func() js.Value { return in.mem.Call("grow", wp-ip) }); err != nil {
			in.err = fmt.Errorf("%w: module %s: memory of %d pages: cannot grow to %d", ErrStep, g.m.name, ip, wp)
			return in
		}
		in.view()
	}
	js.CopyBytesToJS(in.u8, g.region(w))
	for i, gl := range in.globals {
		gl.Set("value", g.toJS(i, g.glob.Cells(w)[i]))
	}
	return in
}

// syncOut copies the instance's memory (its size and bytes) and globals
// into w.
func (g *Game) syncOut(in *instance, w *world.World) {
	ip := in.view()
	for n := g.mem.Len(w); n < ip; n++ {
		g.mem.Add(w, [wasmPage]byte{})
	}
	js.CopyBytesToGo(g.region(w), in.u8)
	for i, gl := range in.globals {
		g.glob.Cells(w)[i] = g.fromJS(i, gl.Get("value"))
	}
}

// toJS returns global i's 64 raw bits as the JavaScript value of its type.
func (g *Game) toJS(i int, bits uint64) any {
	switch g.m.p.globals[i].typ {
	case 0x7E: // i64
		return js.Global().Get("BigInt").Invoke(strconv.FormatInt(int64(bits), 10))
	case 0x7D: // f32
		return float64(math.Float32frombits(uint32(bits)))
	case 0x7C: // f64
		return math.Float64frombits(bits)
	}
	return int32(uint32(bits))
}

// fromJS returns global i's JavaScript value as 64 raw bits (as wazero
// holds them: an i32 zero-extended, an f32 as its 32 bits).
func (g *Game) fromJS(i int, v js.Value) uint64 {
	switch g.m.p.globals[i].typ {
	case 0x7E:
		// Go's js.Value has no BigInt type: calling a method on one
		// panics, so the global String turns it into digits.
		u, _ := strconv.ParseUint(js.Global().Get("String").Invoke(js.Global().Get("BigInt").Call("asUintN", 64, v)).String(), 10, 64)
		return u
	case 0x7D:
		return uint64(math.Float32bits(float32(v.Float())))
	case 0x7C:
		return math.Float64bits(v.Float())
	}
	return uint64(uint32(int32(v.Int())))
}

// writeInputs writes every player's record into the module's inputs
// buffer, in w's bytes and in the instance's memory.
func (g *Game) writeInputs(in *instance, w *world.World, t *game.Tick[Input]) error {
	if in.inAddr < 0 {
		r, err := jsTry(func() js.Value { return in.inputs.Invoke() })
		if err != nil {
			return fmt.Errorf("rewind_inputs trapped: %v", err)
		}
		in.inAddr = int64(uint32(r.Int()))
	}
	addr, size := uint64(in.inAddr), g.m.inputSize
	n := uint64(g.m.players * (1 + size))
	region := g.region(w)
	if addr+n > uint64(len(region)) {
		return fmt.Errorf("rewind_inputs returned %d: %d bytes there are past the memory's %d", addr, n, len(region))
	}
	buf := region[addr : addr+n]
	fillRecords(buf, g.m.players, size, t)
	js.CopyBytesToJS(in.u8.Call("subarray", addr, addr+n), buf)
	return nil
}

// fillRecords writes the players' records of t into buf.
func fillRecords(buf []byte, players, size int, t *game.Tick[Input]) {
	clear(buf)
	for id := 0; id < players && id < len(t.Present); id++ {
		r := buf[id*(1+size) : (id+1)*(1+size)]
		if t.Present[id] {
			r[0] = StatusPlaying
			b := t.Inputs[id].Bytes()
			copy(r[1:], b[:size])
		}
	}
	for _, e := range t.Events {
		if int(e.Player) >= players {
			continue
		}
		r := buf[int(e.Player)*(1+size):]
		switch e.Kind {
		case game.Join:
			r[0] = StatusJoined
		case game.Leave:
			r[0] = StatusLeft
		}
	}
}

// StepErr returns the error that stopped w's steps (ErrStep, naming the
// module and the tick), or nil.
func (g *Game) StepErr(w *world.World) error {
	if g.lastW == w {
		return g.lastI.err
	}
	if in, ok := g.insts[weak.Make(w)]; ok {
		return in.err
	}
	return nil
}
