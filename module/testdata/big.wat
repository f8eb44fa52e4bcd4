;; big.wat: a 1 MiB-memory module for the join benchmark (package
;; module's BenchmarkJoin1MiB). rewind_init fills 8,192 entities of 32
;; bytes at 64 KiB (x, y, vx, vy as i32 from a seeded LCG, small steps;
;; hp, kind bytes) and a 256 x 256 tile map of runs at 512 KiB; each step
;; moves every entity by its velocity. The rest of the memory stays zero.
(module
  (memory (export "memory") 16 16)
  (global $rng (mut i64) (i64.const 1))
  (func $next (result i32)
    (global.set $rng (i64.add (i64.mul (global.get $rng) (i64.const 6364136223846793005)) (i64.const 1442695040888963407)))
    (i32.wrap_i64 (i64.shr_u (global.get $rng) (i64.const 33))))
  (func (export "rewind_abi") (result i32) (i32.const 1))
  (func (export "rewind_players") (result i32) (i32.const 4))
  (func (export "rewind_input_size") (result i32) (i32.const 4))
  (func (export "rewind_inputs") (result i32) (i32.const 1024))
  (func (export "rewind_init") (param $s i64)
    (local $i i32) (local $p i32) (local $x i32) (local $y i32) (local $run i32) (local $tile i32)
    (global.set $rng (local.get $s))
    (loop $ents
      (local.set $p (i32.add (i32.const 65536) (i32.shl (local.get $i) (i32.const 5))))
      (local.set $x (i32.add (local.get $x) (i32.and (call $next) (i32.const 255))))
      (local.set $y (i32.and (call $next) (i32.const 65535)))
      (i32.store (local.get $p) (local.get $x))
      (i32.store offset=4 (local.get $p) (local.get $y))
      (i32.store offset=8 (local.get $p) (i32.sub (i32.and (call $next) (i32.const 15)) (i32.const 8)))
      (i32.store offset=12 (local.get $p) (i32.sub (i32.and (call $next) (i32.const 15)) (i32.const 8)))
      (i32.store8 offset=16 (local.get $p) (i32.const 100))
      (i32.store8 offset=17 (local.get $p) (i32.and (call $next) (i32.const 3)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $ents (i32.lt_u (local.get $i) (i32.const 8192))))
    (local.set $i (i32.const 0))
    (loop $tiles
      (if (i32.eqz (local.get $run))
        (then
          (local.set $run (i32.add (i32.const 1) (i32.and (call $next) (i32.const 63))))
          (local.set $tile (i32.and (call $next) (i32.const 7)))))
      (i32.store8 (i32.add (i32.const 524288) (local.get $i)) (local.get $tile))
      (local.set $run (i32.sub (local.get $run) (i32.const 1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $tiles (i32.lt_u (local.get $i) (i32.const 65536)))))
  (func (export "rewind_step") (param $t i32)
    (local $i i32) (local $p i32)
    (loop $ents
      (local.set $p (i32.add (i32.const 65536) (i32.shl (local.get $i) (i32.const 5))))
      (i32.store (local.get $p) (i32.add (i32.load (local.get $p)) (i32.load offset=8 (local.get $p))))
      (i32.store offset=4 (local.get $p) (i32.add (i32.load offset=4 (local.get $p)) (i32.load offset=12 (local.get $p))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $ents (i32.lt_u (local.get $i) (i32.const 8192)))))
)
