;; counter.wat: a test module of contract v1 (package module's tests).
;; 4 players, 2 input bytes each. The world: per player a running sum of
;; its first input byte times its second at 2048+8*id (i64), the status
;; seen at 2112+id, a mutable global $acc folding every tick's sums, and
;; a pseudo-random walk in a float global $f. It grows its memory by one
;; page at tick 100 and writes the tick at the start of the new page.
(module
  (import "rewind" "log" (func $log (param i32 i32)))
  (memory (export "memory") 2 4)
  (global $acc (mut i64) (i64.const 0))
  (global $f (mut f64) (f64.const 0.5))
  (global $seed (mut i64) (i64.const 0))
  (data (i32.const 4096) "counter v1")
  (func (export "rewind_abi") (result i32) (i32.const 1))
  (func (export "rewind_players") (result i32) (i32.const 4))
  (func (export "rewind_input_size") (result i32) (i32.const 2))
  (func (export "rewind_inputs") (result i32) (i32.const 1024))
  (func (export "rewind_init") (param $s i64)
    (global.set $seed (local.get $s))
    (global.set $acc (local.get $s))
    (call $log (i32.const 4096) (i32.const 10)))
  (func (export "rewind_step") (param $t i32)
    (local $i i32) (local $rec i32) (local $p i32)
    (loop $players
      (local.set $rec (i32.add (i32.const 1024) (i32.mul (local.get $i) (i32.const 3))))
      (i32.store8 (i32.add (i32.const 2112) (local.get $i)) (i32.load8_u (local.get $rec)))
      (local.set $p (i32.add (i32.const 2048) (i32.shl (local.get $i) (i32.const 3))))
      (i64.store (local.get $p)
        (i64.add (i64.load (local.get $p))
          (i64.extend_i32_u (i32.mul
            (i32.load8_u (i32.add (local.get $rec) (i32.const 1)))
            (i32.add (i32.const 1) (i32.load8_u (i32.add (local.get $rec) (i32.const 2))))))))
      (global.set $acc (i64.add (i64.mul (global.get $acc) (i64.const 31)) (i64.load (local.get $p))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $players (i32.lt_u (local.get $i) (i32.const 4))))
    (global.set $f (f64.add (f64.mul (global.get $f) (f64.const 1.0001))
      (f64.convert_i64_s (i64.rem_s (global.get $acc) (i64.const 7)))))
    (if (i32.eq (local.get $t) (i32.const 100))
      (then
        (drop (memory.grow (i32.const 1)))
        (i32.store (i32.const 131072) (local.get $t))))
    (if (i32.eq (local.get $t) (i32.const 666))
      (then (unreachable))))
  (func (export "rewind_control") (param i32 i32 i32 i32 i32 i32) (result i32)
    (i32.store8 (i32.const 3000) (local.get 1))
    (i32.store8 (i32.const 3001) (local.get 2))
    (i32.const 3000))
  (func (export "rewind_draw") (param i32 i32 i32 i32) (result i32)
    (i32.store (i32.const 3100) (i32.const 1))
    (i32.store8 (i32.const 3104) (i32.const 3))
    (i32.store (i32.const 3108) (local.get 1))
    (i32.const 3100))
)
