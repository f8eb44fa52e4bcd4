package module

import (
	"crypto/sha256"
	"fmt"
	"time"
)

// The part of the package that is the same natively (module.go, wazero)
// and in js/wasm (module_js.go, the browser's engine): the limits and
// Load.

// Defaults of Config's zero fields.
const (
	// DefaultMaxBytes is the largest module Load takes: 8 MiB.
	DefaultMaxBytes = 8 << 20
	// DefaultMaxMemory is the most linear memory a module may have: 64 MiB.
	DefaultMaxMemory = 64 << 20
	// DefaultStepBudget is how long one call into a module (rewind_init,
	// rewind_step, a view export) may run before it is stopped: 1 s (not
	// enforced in js/wasm: see module_js.go).
	DefaultStepBudget = time.Second
	// ABI is the contract version this package runs (rewind_abi).
	ABI = 1
)

// Config sets a module's limits. The zero Config means every default.
type Config struct {
	// MaxBytes is the largest module taken, in bytes (0: DefaultMaxBytes).
	MaxBytes int
	// MaxMemory caps the module's linear memory, in bytes, rounded down
	// to 64 KiB pages (0: DefaultMaxMemory). A module whose declared
	// minimum is over it is refused; its memory.grow past it fails (-1).
	// A world holds room for the module's declared maximum, or for
	// MaxMemory when it declares none.
	MaxMemory int
	// StepBudget is how long one call into the module may run (0:
	// DefaultStepBudget). A step past it ends with ErrStep; in js/wasm a
	// call is not stopped.
	StepBudget time.Duration
	// Interpreter runs the module in wazero's interpreter even where its
	// compiler runs (wazero picks the interpreter itself elsewhere); no
	// effect in js/wasm, where the browser's engine runs the module.
	Interpreter bool
	// Log receives the module's rewind.log lines (at most 256 bytes each);
	// nil drops them.
	Log func(module, line string)
}

func (c Config) withDefaults() Config {
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.MaxMemory <= 0 {
		c.MaxMemory = DefaultMaxMemory
	}
	if c.StepBudget <= 0 {
		c.StepBudget = DefaultStepBudget
	}
	return c
}

// Load checks wasm against contract v1 and compiles it. name names the
// module in errors and logs (a file name, say). The errors wrap ErrFormat,
// ErrTooBig, ErrImport, ErrFeature, ErrContract or ErrMemory and name
// what is wrong (an import as "wasi_snapshot_preview1.fd_write"). In
// js/wasm the browser's engine compiles it, synchronously (allowed in a
// Worker and in Node).
func Load(name string, wasm []byte, cfg Config) (*Module, error) {
	cfg = cfg.withDefaults()
	if len(wasm) > cfg.MaxBytes {
		return nil, fmt.Errorf("module %s: %w: %d bytes, the cap is %d", name, ErrTooBig, len(wasm), cfg.MaxBytes)
	}
	m := &Module{name: name, hash: sha256.Sum256(wasm), raw: append([]byte(nil), wasm...), cfg: cfg}
	if err := m.load(); err != nil {
		return nil, fmt.Errorf("module %s: %w", name, err)
	}
	return m, nil
}
