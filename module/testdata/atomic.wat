;; atomic.wat: an atomic instruction on an unshared memory (threads).
(module
  (memory (export "memory") 1 1)
  (func (export "rewind_abi") (result i32) (i32.const 1))
  (func (export "rewind_players") (result i32) (i32.const 2))
  (func (export "rewind_input_size") (result i32) (i32.const 1))
  (func (export "rewind_inputs") (result i32) (i32.const 16))
  (func (export "rewind_init") (param i64))
  (func (export "rewind_step") (param i32) (drop (i32.atomic.load (i32.const 0))))
)
