package module

import "errors"

// ErrFormat indicates bytes that are not a WebAssembly module wazero and
// package module can read (bad magic, version, a truncated section).
var ErrFormat = errors.New("module: not a WebAssembly module")

// ErrTooBig indicates a module over its size cap (Config.MaxBytes).
var ErrTooBig = errors.New("module: too big")

// ErrImport indicates an import other than rewind.log(i32, i32): the
// error names the import (wasi_snapshot_preview1.fd_write, env.memory).
var ErrImport = errors.New("module: import not allowed")

// ErrFeature indicates a feature contract v1 refuses: threads (shared
// memory, atomics), relaxed SIMD, 64-bit or several memories, a mutable
// v128 global, exception handling.
var ErrFeature = errors.New("module: feature not allowed")

// ErrContract indicates a module that does not follow contract v1: an
// export missing or of the wrong type, rewind_abi not 1, players or input
// size out of range.
var ErrContract = errors.New("module: contract v1 not followed")

// ErrMemory indicates a module whose memory is over the memory cap
// (Config.MaxMemory), or that has no memory.
var ErrMemory = errors.New("module: memory")

// ErrStep indicates a step that trapped or ran past its budget
// (Config.StepBudget): the error names the module and the tick; the
// world it ran on stays as the step left it and no later step runs on it.
var ErrStep = errors.New("module: step failed")

// ErrHash indicates module bytes whose SHA-256 is not the one asked for.
var ErrHash = errors.New("module: wrong hash")
