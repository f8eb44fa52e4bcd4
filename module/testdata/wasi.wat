;; wasi.wat: a module that imports WASI's fd_write (refused at load).
(module
  (import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1 1)
  (func (export "rewind_abi") (result i32) (i32.const 1))
  (func (export "rewind_players") (result i32) (i32.const 2))
  (func (export "rewind_input_size") (result i32) (i32.const 1))
  (func (export "rewind_inputs") (result i32) (i32.const 16))
  (func (export "rewind_init") (param i64))
  (func (export "rewind_step") (param i32))
)
