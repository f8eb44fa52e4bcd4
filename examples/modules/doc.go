// Package modules holds rewind's three example game modules, each a small
// real game written to the module contract v1 (docs/modules.md) in another
// language and checked in built, so that a machine without the toolchains
// still plays them:
//
//   - c/coins.wasm (Coins): discs that bump and collect coins, in C
//     (clang 14, no libc, integers only); games/coins is the same game in
//     Go, rule for rule.
//   - rust/puck.wasm (Puck): discs and a puck in f32 physics, in Rust
//     (rustc 1.63, no cargo).
//   - assemblyscript/dodge.wasm (Dodge): squares dodging rocks, in
//     TypeScript compiled by AssemblyScript (the stub runtime).
//
// scripts/build-modules.sh rebuilds them in place; the package's tests
// rebuild them into a temporary directory and compare the bytes, check
// each against the contract, play 1,800 ticks of seeded inputs under
// wazero's compiler and its interpreter, and compare the memory's hash
// with Node's WebAssembly engine (V8) playing the same ticks (play.js).
package modules

import _ "embed"

// Coins is c/coins.wasm: up to 8 players, 1 input byte (rewind_control's
// key bits 0–4), 128 KiB of memory, no globals.
//
//go:embed c/coins.wasm
var Coins []byte

// Puck is rust/puck.wasm: up to 6 players, 1 input byte, 128 KiB of
// memory, f32 physics.
//
//go:embed rust/puck.wasm
var Puck []byte

// Dodge is assemblyscript/dodge.wasm: up to 8 players, 1 input byte,
// 128 KiB of memory, one mutable global (its random generator).
//
//go:embed assemblyscript/dodge.wasm
var Dodge []byte

// Example is one example module: its name, its file under
// examples/modules and its bytes.
type Example struct {
	// Name is the game's name: "coins", "puck" or "dodge".
	Name string
	// Path is the built module's path under examples/modules.
	Path string
	// Wasm is the module's bytes.
	Wasm []byte
}

// All returns the three example modules, C first.
func All() []Example {
	return []Example{
		{Name: "coins", Path: "c/coins.wasm", Wasm: Coins},
		{Name: "puck", Path: "rust/puck.wasm", Wasm: Puck},
		{Name: "dodge", Path: "assemblyscript/dodge.wasm", Wasm: Dodge},
	}
}
