//go:build js

package module

import (
	"encoding/hex"
	"fmt"
	"strings"
	"syscall/js"
)

// The js/wasm twin of module.go: a tab's match Worker runs modules in the
// browser's own WebAssembly engine through syscall/js, with the same API
// as the native package (Load, Module, Game) and the same world (the
// memory table and the globals grid), so a tab's worlds hash as a
// server's. The differences: the world's bytes are copied into the
// module's memory before each call and back after it (typed-array
// copies: the browser's memory is not Go's); the step budget cannot stop
// a call (JavaScript runs a call to its end: the server's native engine
// ends a match whose step overruns); an f32 or f64 global holding a NaN
// comes back with the NaN JavaScript makes of it (its payload lost).

// Module is a checked, compiled WebAssembly game (contract v1), compiled
// by the JavaScript engine (WebAssembly.Module).
type Module struct {
	name      string
	hash      [32]byte
	raw       []byte
	cfg       Config
	p         *parsed
	maxPages  uint32
	players   int
	inputSize int
	view      bool
	closed    bool

	jsMod   js.Value // WebAssembly.Module of the rewritten bytes
	imports js.Value // the import object
	logFn   js.Func
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
	b := p.withGlobalExports(m.raw)
	u8 := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(u8, b)
	m.jsMod, err = jsTry(func() js.Value { return js.Global().Get("WebAssembly").Get("Module").New(u8) })
	if err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	m.imports = js.Global().Get("Object").New()
	if p.logImport {
		m.logFn = js.FuncOf(m.log)
		rw := js.Global().Get("Object").New()
		rw.Set("log", m.logFn)
		m.imports.Set("rewind", rw)
	}
	if err := m.checkExports(); err != nil {
		return err
	}
	return m.probe()
}

// jsTry runs f, turning a JavaScript exception into an error.
func jsTry(f func() js.Value) (v js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(js.Error); ok {
				err = fmt.Errorf("%s", firstLine(e.Error()))
				return
			}
			panic(r)
		}
	}()
	return f(), nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimPrefix(s, "JavaScript error: ")
}

// checkExports checks the exports' names and kinds (the JavaScript API
// gives no signatures: a wrong one shows as an error when called).
func (m *Module) checkExports() error {
	kinds := map[string]string{}
	list := js.Global().Get("WebAssembly").Get("Module").Call("exports", m.jsMod)
	for i := range list.Length() {
		e := list.Index(i)
		kinds[e.Get("name").String()] = e.Get("kind").String()
	}
	if kinds["memory"] != "memory" {
		return fmt.Errorf("%w: the module does not export its memory as \"memory\"", ErrContract)
	}
	for _, name := range []string{"rewind_abi", "rewind_players", "rewind_input_size", "rewind_init", "rewind_inputs", "rewind_step"} {
		if kinds[name] != "function" {
			return fmt.Errorf("%w: no export %s", ErrContract, name)
		}
	}
	m.view = kinds["rewind_control"] == "function" && kinds["rewind_draw"] == "function"
	return nil
}

// probe instantiates the module once to read rewind_abi, rewind_players
// and rewind_input_size.
func (m *Module) probe() error {
	inst, err := jsTry(func() js.Value {
		return js.Global().Get("WebAssembly").Get("Instance").New(m.jsMod, m.imports)
	})
	if err != nil {
		return fmt.Errorf("%w: instantiate: %v", ErrContract, err)
	}
	x := inst.Get("exports")
	read := func(name string, lo, hi int) (int, error) {
		r, err := jsTry(func() js.Value { return x.Call(name) })
		if err != nil {
			return 0, fmt.Errorf("%w: %s: %v", ErrContract, name, err)
		}
		v := r.Int()
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

// log passes a rewind.log line to Config.Log. It is called by the
// module, with the module's memory reachable through the instance that
// calls: the line is read from the last instance called.
func (m *Module) log(_ js.Value, args []js.Value) any {
	if m.cfg.Log == nil || len(args) < 2 || logMemory.IsUndefined() {
		return nil
	}
	ptr, n := uint32(args[0].Int()), min(uint32(args[1].Int()), 256)
	buf := logMemory.Get("buffer")
	if uint64(ptr)+uint64(n) > uint64(buf.Get("byteLength").Int()) {
		return nil
	}
	b := make([]byte, n)
	js.CopyBytesToGo(b, js.Global().Get("Uint8Array").New(buf, ptr, n))
	m.cfg.Log(m.name, strings.ToValidUTF8(string(b), "\uFFFD"))
	return nil
}

// logMemory is the memory of the instance being called (js/wasm runs one
// goroutine at a time into JavaScript: calls do not overlap).
var logMemory js.Value

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

// Close releases the module's JavaScript function (rewind.log). Worlds
// made with its games must not be stepped after.
func (m *Module) Close() error {
	if m.closed {
		return nil
	}
	m.closed = true
	if m.p != nil && m.p.logImport {
		m.logFn.Release()
	}
	return nil
}
