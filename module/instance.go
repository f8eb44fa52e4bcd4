//go:build !js

package module

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/rewindnet/rewind/world"
)

// An instance runs the module on one world: its linear memory IS the
// world's memory table (a wazero memory allocator hands the table's bytes,
// at capacity, to wazero), so a snapshot, restore, decode or page repair
// of the world changes what the module sees with no copy. The mutable
// globals are copied from the world before each call and back after it;
// the memory's size in pages is the table's length.
type instance struct {
	mod     api.Module
	mem     api.Memory
	step    api.Function
	inputs  api.Function
	globals []api.Global // mutable: api.MutableGlobal
	region  []byte       // the world's memory table at capacity
	inAddr  int64        // rewind_inputs' address, -1 until asked
	stack   []uint64

	ctx    context.Context
	cancel context.CancelFunc
	timer  *time.Timer
	budget time.Duration
	err    error // the failure that stopped this instance
}

// regionAlloc is a wazero memory allocator over a world's memory table.
type regionAlloc []byte

func (r regionAlloc) Allocate(_, _ uint64) experimental.LinearMemory { return r }

func (r regionAlloc) Reallocate(size uint64) []byte {
	if size > uint64(len(r)) {
		return nil
	}
	return r[:size]
}

func (r regionAlloc) Free() {}

// region returns w's memory table at capacity (its length at least 1).
func (g *Game) region(w *world.World) []byte {
	if g.mem.Len(w) == 0 {
		g.mem.Add(w, [wasmPage]byte{})
	}
	return unsafe.Slice(&g.mem.At(w, 0)[0], int(g.m.maxPages)*wasmPage)
}

// newInstance instantiates the module on w. Unless w is fresh (all zero,
// about to be set up), what instantiation writes (data segments, a start
// function) is undone: w is restored to what it held.
func (g *Game) newInstance(w *world.World, fresh bool) *instance {
	m := g.m
	in := &instance{budget: m.cfg.StepBudget, stack: make([]uint64, 8), inAddr: -1}
	in.ctx, in.cancel = context.WithCancel(context.Background())
	in.timer = time.AfterFunc(in.budget, in.cancel)
	defer in.timer.Stop()
	if !fresh {
		w.SnapshotInto(&g.scratch)
	}
	in.region = g.region(w)
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		in.err = errClosed
		return in
	}
	ctx := experimental.WithMemoryAllocator(in.ctx, regionAlloc(in.region))
	mod, err := m.rt.InstantiateModule(ctx, m.cm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if !fresh {
		if rerr := w.Restore(&g.scratch); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err != nil {
		in.err = fmt.Errorf("%w: module %s: instantiate: %v", ErrStep, m.name, err)
		return in
	}
	in.mod, in.mem = mod, mod.ExportedMemory("memory")
	in.step, in.inputs = mod.ExportedFunction("rewind_step"), mod.ExportedFunction("rewind_inputs")
	for _, gl := range m.p.globals {
		in.globals = append(in.globals, mod.ExportedGlobal(globalExportPrefix+itoa(gl.index)))
	}
	return in
}

func itoa(i int) string { return fmt.Sprint(i) }

// close frees the instance.
func (in *instance) close() {
	in.cancel()
	if in.mod != nil {
		in.mod.Close(context.Background())
	}
}

// call calls f with in.stack holding its parameters, within the budget.
func (in *instance) call(f api.Function) error {
	in.timer.Reset(in.budget)
	err := f.CallWithStack(in.ctx, in.stack)
	if !in.timer.Stop() && err != nil {
		return fmt.Errorf("ran past its budget of %v", in.budget)
	}
	if err != nil {
		return trapError(err)
	}
	return nil
}

// trapError shortens wazero's trap errors to their first line.
func trapError(err error) error {
	s := err.Error()
	for i := range len(s) {
		if s[i] == '\n' {
			return errors.New("trapped: " + s[:i])
		}
	}
	return errors.New("trapped: " + s)
}

// syncIn makes the instance match w: its memory's size (growing it, or
// instantiating again when w is smaller: a memory cannot shrink) and its
// globals. It returns the instance to use.
func (g *Game) syncIn(in *instance, w *world.World) *instance {
	wp, ip := uint32(g.mem.Len(w)), in.mem.Size()/wasmPage
	if ip > wp {
		in.close()
		in = g.newInstance(w, false)
		g.keep(w, in)
		if in.err != nil {
			return in
		}
		ip = in.mem.Size() / wasmPage
	}
	if ip < wp {
		if _, ok := in.mem.Grow(wp - ip); !ok {
			in.err = fmt.Errorf("%w: module %s: memory of %d pages: cannot grow to %d", ErrStep, g.m.name, ip, wp)
			return in
		}
	}
	if len(in.globals) > 0 {
		cells := g.glob.Cells(w)
		for i, gl := range in.globals {
			gl.(api.MutableGlobal).Set(cells[i])
		}
	}
	return in
}

// syncOut copies the instance's memory size and globals into w.
func (g *Game) syncOut(in *instance, w *world.World) {
	ip := int(in.mem.Size() / wasmPage)
	for n := g.mem.Len(w); n < ip; n++ {
		// Add copies the page onto itself: the module wrote it already.
		g.mem.Add(w, [wasmPage]byte(in.region[n*wasmPage:(n+1)*wasmPage]))
	}
	if len(in.globals) > 0 {
		cells := g.glob.Cells(w)
		for i, gl := range in.globals {
			cells[i] = gl.Get()
		}
	}
}
