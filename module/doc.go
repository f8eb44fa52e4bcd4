// Package module runs games written as WebAssembly modules (contract v1,
// docs/modules.md): any language that compiles to a .wasm file can write
// a rewind game, and the engine plays it with the prediction, rollback,
// repair, join, migration and replays Go games have.
//
// Load checks a module and compiles it (natively with wazero: its
// compiler where the platform has one, its interpreter elsewhere):
//
//	m, err := module.Load("tanks.wasm", b, module.Config{})
//	// err names what is wrong: "import not allowed:
//	// wasi_snapshot_preview1.fd_write (function)", "shared memory
//	// (threads)", "rewind_abi returned 2", ...
//	g := m.Game(seed)             // a game.Game[module.Input]
//	_, w, err := game.NewWorld[module.Input](g, nil)
//	g.Step(w, tick)               // rewind_step, after the inputs buffer
//	if err := g.StepErr(w); err != nil { ... } // a trap or an overrun budget
//
// The world. A module's world is its linear memory and the values of its
// mutable globals, nothing else: a world table "memory" of 64 KiB records
// (one per WebAssembly page; the byte at address a is record a/65536,
// index a%65536), whose length is the memory's size, and a grid "globals"
// of each mutable global's value as 64 raw bits (f32/f64 as their IEEE
// bits, so a NaN keeps its payload). The module's memory is the world's
// table itself: a wazero memory allocator hands wazero the table's bytes
// at capacity, so a world's snapshot, restore, decode, delta or page
// repair is what the module sees with no copy, and hashes and pages cover
// exactly the module's state. The globals (exported under
// "rewind:global:N" by rewriting the export section at load) are copied
// from the world before every call and back after it. Each world stepped
// gets an instance of its own, made on first use (what instantiation
// writes is undone: the world keeps its bytes) and freed when the world is
// collected; a world restored to a smaller memory than its instance's
// gets a new instance (a memory cannot shrink).
//
// Inputs. Input holds one player's input_size bytes. Before each step
// the engine writes, at the address rewind_inputs returns, players × (1 +
// input_size) bytes: per player a status (StatusAbsent, StatusPlaying,
// StatusJoined, StatusLeft) then its input (zeros when absent).
//
// Limits. Load refuses a module over Config.MaxBytes, one whose memory's
// minimum is over Config.MaxMemory, any import but rewind.log(i32, i32),
// threads (shared memory, atomics), relaxed SIMD and other features
// outside WebAssembly 2.0. A call that traps or runs past
// Config.StepBudget stops the world's instance with ErrStep naming the
// module and the tick (StepErr): the process and other worlds go on.
// memory.grow past the cap returns -1.
//
// Differences. Describe turns a world.Difference of a module's world into
// "address 2056 (0x808)" or "global 1" for the desync debugger.
//
// js/wasm builds hold no wazero: there (a tab's match Worker, Node) the
// same Load, Module and Game run the module in the JavaScript engine's
// own WebAssembly (module_js.go, game_js.go), the world's bytes copied
// into the module's memory before each step and back after it
// (typed-array copies); the step budget is not enforced there (a
// JavaScript call runs to its end). twin_test.go's golden world hashes
// hold for both.
package module
