//go:build !js

package module

import (
	"fmt"
	"runtime"
	"sync"
	"weak"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/world"
)

// Game is a module as a game of the engine (game.Game[Input]): its world
// is a table "memory" of 64 KiB pages (the linear memory, one record per
// WebAssembly page: the byte at address a is record a/65536, index
// a%65536) and, when the module has mutable globals, a grid "globals" of
// their values (as 64-bit patterns, in the order of their indexes). Step
// writes every player's record into the module's inputs buffer and calls
// rewind_step; a step that fails (StepErr) leaves the world as it is and
// no later step runs on that world.
//
// A Game is safe for concurrent use on different worlds (a host's
// matches); each world gets an instance of the module of its own.
type Game struct {
	m    *Module
	seed uint64
	mem  world.Table[[wasmPage]byte]
	glob world.Grid[uint64]

	mu      sync.Mutex
	insts   map[weak.Pointer[world.World]]*instance
	lastW   *world.World
	lastI   *instance
	scratch world.Snapshot
	rec     []byte       // one step's input records
	viewW   *world.World // the copy view exports run on (view_native.go)
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

// Setup instantiates the module on w (its data segments written into
// w's memory) and calls rewind_init with the game's seed.
func (g *Game) Setup(w *world.World) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	in := g.newInstance(w, true)
	g.keep(w, in)
	if in.err != nil {
		return in.err
	}
	init := in.mod.ExportedFunction("rewind_init")
	in.stack[0] = g.seed
	if err := in.call(init); err != nil {
		in.err = fmt.Errorf("%w: module %s: rewind_init: %v", ErrStep, g.m.name, err)
		return in.err
	}
	g.syncOut(in, w)
	return nil
}

// keep records in as w's instance (g.mu held).
func (g *Game) keep(w *world.World, in *instance) {
	k := weak.Make(w)
	if old, ok := g.insts[k]; ok && old != in {
		old.close()
	}
	if _, ok := g.insts[k]; !ok {
		runtime.AddCleanup(w, g.drop, k)
	}
	g.insts[k] = in
	g.lastW, g.lastI = w, in
}

// drop frees the instance of a world that is gone.
func (g *Game) drop(k weak.Pointer[world.World]) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if in, ok := g.insts[k]; ok {
		in.close()
		delete(g.insts, k)
	}
}

// instance returns w's instance, made on first use (g.mu held).
func (g *Game) instance(w *world.World) *instance {
	if g.lastW == w {
		return g.lastI
	}
	in, ok := g.insts[weak.Make(w)]
	if !ok {
		in = g.newInstance(w, false)
	}
	g.keep(w, in)
	return in
}

// Step runs rewind_step(t.Number) on w after writing the players' records.
func (g *Game) Step(w *world.World, t *game.Tick[Input]) {
	g.mu.Lock()
	defer g.mu.Unlock()
	in := g.instance(w)
	if in.err != nil {
		return
	}
	if in = g.syncIn(in, w); in.err != nil {
		return
	}
	if err := g.writeInputs(in, t); err != nil {
		in.err = fmt.Errorf("%w: module %s: tick %d: %v", ErrStep, g.m.name, t.Number, err)
		return
	}
	in.stack[0] = uint64(t.Number)
	if err := in.call(in.step); err != nil {
		in.err = fmt.Errorf("%w: module %s: tick %d: step %v", ErrStep, g.m.name, t.Number, err)
		return
	}
	g.syncOut(in, w)
}

// writeInputs writes every player's record into the module's inputs
// buffer.
func (g *Game) writeInputs(in *instance, t *game.Tick[Input]) error {
	if in.inAddr < 0 {
		// Asked once per instance: every call into a module costs wazero
		// a goroutine (its budget's watch).
		if err := in.call(in.inputs); err != nil {
			return fmt.Errorf("rewind_inputs %v", err)
		}
		in.inAddr = int64(uint32(in.stack[0]))
	}
	addr, size := uint64(in.inAddr), g.m.inputSize
	n := uint64(g.m.players * (1 + size))
	if addr+n > uint64(in.mem.Size()) {
		return fmt.Errorf("rewind_inputs returned %d: %d bytes there are past the memory's %d", addr, n, in.mem.Size())
	}
	buf := in.region[addr : addr+n]
	clear(buf)
	for id := 0; id < g.m.players && id < len(t.Present); id++ {
		r := buf[id*(1+size) : (id+1)*(1+size)]
		if t.Present[id] {
			r[0] = StatusPlaying
			b := t.Inputs[id].Bytes()
			copy(r[1:], b[:size])
		}
	}
	for _, e := range t.Events {
		if int(e.Player) >= g.m.players {
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
	return nil
}

// StepErr returns the error that stopped w's steps (ErrStep, naming the
// module and the tick), or nil.
func (g *Game) StepErr(w *world.World) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lastW == w {
		return g.lastI.err
	}
	if in, ok := g.insts[weak.Make(w)]; ok {
		return in.err
	}
	return nil
}
