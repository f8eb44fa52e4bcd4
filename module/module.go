//go:build !js

package module

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// Module is a checked, compiled WebAssembly game (contract v1). It is
// safe for concurrent use; each world it runs on gets an instance of its
// own (Game).
type Module struct {
	name      string
	hash      [32]byte
	raw       []byte
	cfg       Config
	p         *parsed
	rt        wazero.Runtime
	cm        wazero.CompiledModule
	players   int
	inputSize int
	view      bool
	maxPages  uint32

	mu     sync.Mutex
	closed bool
}

func (m *Module) load() error {
	p, err := parse(m.raw)
	if err != nil {
		return err
	}
	m.p = p
	capPages := uint32(m.cfg.MaxMemory / wasmPage)
	if p.memMin > capPages {
		return fmt.Errorf("%w: the module needs %d KiB of memory, the cap is %d KiB", ErrMemory, p.memMin*64, capPages*64)
	}
	if p.memMin == 0 {
		return fmt.Errorf("%w: the memory's initial size is 0 pages (contract v1 needs at least one)", ErrMemory)
	}
	m.maxPages = capPages
	if p.memHasMax && p.memMax < capPages {
		m.maxPages = max(p.memMax, p.memMin)
	}
	rc := wazero.NewRuntimeConfig()
	if m.cfg.Interpreter {
		rc = wazero.NewRuntimeConfigInterpreter()
	}
	rc = rc.WithCoreFeatures(api.CoreFeaturesV2).WithCloseOnContextDone(true).WithMemoryLimitPages(m.maxPages)
	ctx := context.Background()
	m.rt = wazero.NewRuntimeWithConfig(ctx, rc)
	if err := m.compile(ctx, p.withGlobalExports(m.raw)); err != nil {
		m.rt.Close(ctx)
		return err
	}
	if err := m.probe(ctx); err != nil {
		m.rt.Close(ctx)
		return err
	}
	return nil
}

// compile compiles the rewritten module and instantiates rewind.log.
func (m *Module) compile(ctx context.Context, b []byte) error {
	cm, err := m.rt.CompileModule(ctx, b)
	if err != nil {
		return compileError(err)
	}
	m.cm = cm
	if err := m.checkExports(); err != nil {
		return err
	}
	_, err = m.rt.NewHostModuleBuilder("rewind").NewFunctionBuilder().
		WithFunc(func(ctx context.Context, mod api.Module, ptr, n uint32) { m.log(mod, ptr, n) }).
		WithParameterNames("ptr", "len").Export("log").Instantiate(ctx)
	return err
}

// compileError names the feature behind a wazero validation error.
func compileError(err error) error {
	s := err.Error()
	switch {
	case strings.Contains(s, "threads"):
		return fmt.Errorf("%w: threads (atomics): %v", ErrFeature, err)
	case strings.Contains(s, "vector opcode") || strings.Contains(s, "relaxed"):
		return fmt.Errorf("%w: relaxed SIMD or an unknown vector instruction: %v", ErrFeature, err)
	case strings.Contains(s, "exception") || strings.Contains(s, "tail"):
		return fmt.Errorf("%w: %v", ErrFeature, err)
	}
	return fmt.Errorf("%w: %v", ErrFormat, err)
}

// exportSig is an export contract v1 names, with its signature.
type exportSig struct {
	name            string
	params, results string // valtype names
	view            bool
}

var contractExports = []exportSig{
	{name: "rewind_abi", results: "i32"},
	{name: "rewind_players", results: "i32"},
	{name: "rewind_input_size", results: "i32"},
	{name: "rewind_init", params: "i64"},
	{name: "rewind_inputs", results: "i32"},
	{name: "rewind_step", params: "i32"},
	{name: "rewind_control", params: "i32 i32 i32 i32 i32 i32", results: "i32", view: true},
	{name: "rewind_draw", params: "i32 i32 i32 i32", results: "i32", view: true},
}

func typeNames(ts []api.ValueType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = api.ValueTypeName(t)
	}
	return strings.Join(s, " ")
}

func (m *Module) checkExports() error {
	if _, ok := m.cm.ExportedMemories()["memory"]; !ok {
		return fmt.Errorf("%w: the module does not export its memory as \"memory\"", ErrContract)
	}
	fns := m.cm.ExportedFunctions()
	views := 0
	for _, e := range contractExports {
		d, ok := fns[e.name]
		if !ok {
			if e.view {
				continue
			}
			return fmt.Errorf("%w: no export %s", ErrContract, e.name)
		}
		if p, r := typeNames(d.ParamTypes()), typeNames(d.ResultTypes()); p != e.params || r != e.results {
			return fmt.Errorf("%w: %s is (%s) -> (%s), contract v1 says (%s) -> (%s)", ErrContract, e.name, p, r, e.params, e.results)
		}
		if e.view {
			views++
		}
	}
	m.view = views == 2
	return nil
}

// probe instantiates the module once, on a memory of its own, to read
// rewind_abi, rewind_players and rewind_input_size.
func (m *Module) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.StepBudget)
	defer cancel()
	mod, err := m.rt.InstantiateModule(ctx, m.cm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		return fmt.Errorf("%w: instantiate: %v", ErrContract, err)
	}
	defer mod.Close(ctx)
	read := func(name string, lo, hi int) (int, error) {
		r, err := mod.ExportedFunction(name).Call(ctx)
		if err != nil {
			return 0, fmt.Errorf("%w: %s: %v", ErrContract, name, err)
		}
		v := int(int32(r[0]))
		if v < lo || v > hi {
			return 0, fmt.Errorf("%w: %s returned %d, want %d..%d", ErrContract, name, v, lo, hi)
		}
		return v, nil
	}
	if _, err := read("rewind_abi", ABI, ABI); err != nil {
		return err
	}
	if m.players, err = read("rewind_players", 1, MaxPlayers); err != nil {
		return err
	}
	m.inputSize, err = read("rewind_input_size", 1, MaxInputSize)
	return err
}

// log passes a rewind.log line to Config.Log.
func (m *Module) log(mod api.Module, ptr, n uint32) {
	if m.cfg.Log == nil {
		return
	}
	n = min(n, 256)
	b, ok := mod.Memory().Read(ptr, n)
	if !ok {
		return
	}
	m.cfg.Log(m.name, strings.ToValidUTF8(string(b), "\uFFFD"))
}

// Name returns the name the module was loaded under.
func (m *Module) Name() string { return m.name }

// Hash returns the SHA-256 of the module's bytes as loaded.
func (m *Module) Hash() [32]byte { return m.hash }

// HashString returns the module's hash in hex, shortened to 16 digits.
func (m *Module) HashString() string { return hex.EncodeToString(m.hash[:8]) }

// Bytes returns the module's bytes as loaded (what travels to players).
// The caller must not modify them.
func (m *Module) Bytes() []byte { return m.raw }

// Players returns the most players the module takes (rewind_players).
func (m *Module) Players() int { return m.players }

// InputSize returns the bytes of one player's input per tick.
func (m *Module) InputSize() int { return m.inputSize }

// HasView reports whether the module exports rewind_control and
// rewind_draw.
func (m *Module) HasView() bool { return m.view }

// MemoryCap returns the most bytes of linear memory the module's worlds
// hold: its declared maximum, or Config.MaxMemory when it declares none.
func (m *Module) MemoryCap() int { return int(m.maxPages) * wasmPage }

// Globals returns the number of the module's mutable globals, which are
// part of its world.
func (m *Module) Globals() int { return len(m.p.globals) }

// Close frees the module's compiled code and every instance. Worlds made
// with its games must not be stepped after.
func (m *Module) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	return m.rt.Close(context.Background())
}

// errClosed is returned by a call on a closed module.
var errClosed = errors.New("module: closed")
