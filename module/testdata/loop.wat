;; loop.wat: a module whose step loops forever from tick 3 on.
(module
  (memory (export "memory") 1 1)
  (func (export "rewind_abi") (result i32) (i32.const 1))
  (func (export "rewind_players") (result i32) (i32.const 2))
  (func (export "rewind_input_size") (result i32) (i32.const 1))
  (func (export "rewind_inputs") (result i32) (i32.const 16))
  (func (export "rewind_init") (param i64))
  (func (export "rewind_step") (param $t i32)
    (i32.store (i32.const 0) (local.get $t))
    (if (i32.ge_u (local.get $t) (i32.const 3))
      (then (loop $forever (br $forever)))))
)
