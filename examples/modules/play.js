// play.js: plays a rewind game module (contract v1) in Node's own
// WebAssembly engine (V8) for N ticks with the seeded inputs of
// examples/modules' Go tests (modules_test.go: scriptedInputs) and prints
// the SHA-256 of the module's memory after the last tick, so that the Go
// test can compare V8 with wazero. Usage: node play.js MODULE.wasm TICKS
// [SEED] [PLAYERS].
'use strict';
const fs = require('fs');
const crypto = require('crypto');

const [file, ticksArg, seedArg, playersArg] = process.argv.slice(2);
const ticks = Number(ticksArg);
const seed = BigInt(seedArg || '42');
const instance = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(file)), {});
const x = instance.exports;
const players = x.rewind_players();
const size = x.rewind_input_size();
const want = Number(playersArg || Math.min(4, players));

// status says what the scripted match has player p doing at tick t: all
// join at tick 1; the last of them leaves at 600 and comes back at 900.
function status(p, t) {
  if (p >= want) return 0;
  if (t === 1) return 2;
  if (p === want - 1 && want > 1) {
    if (t === 600) return 3;
    if (t > 600 && t < 900) return 0;
    if (t === 900) return 2;
  }
  return 1;
}

// keys returns player p's input word at tick t: a new one every 8 ticks.
function keys(p, t) {
  let h = (Math.imul((t >>> 3) + 1, 0x9e3779b1) + Math.imul(p + 1, 0x85ebca77)) >>> 0;
  h = (h ^ (h >>> 15)) >>> 0;
  h = Math.imul(h, 0x2c1b3c6d) >>> 0;
  h = (h ^ (h >>> 12)) >>> 0;
  return h;
}

x.rewind_init(seed);
const base = x.rewind_inputs();
for (let t = 1; t <= ticks; t++) {
  const mem = new Uint8Array(x.memory.buffer);
  for (let p = 0; p < players; p++) {
    const at = base + p * (1 + size);
    const s = status(p, t);
    mem[at] = s;
    const k = keys(p, t);
    for (let j = 0; j < size; j++) {
      mem[at + 1 + j] = s === 0 || s === 3 ? 0 : ((k >>> (8 * (j & 3))) ^ j) & 0xff;
    }
  }
  x.rewind_step(t);
}
const h = crypto.createHash('sha256').update(new Uint8Array(x.memory.buffer)).digest('hex');
console.log(h);
