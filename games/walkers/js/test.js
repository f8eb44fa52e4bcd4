// Unit tests of the reference client's pieces: node games/walkers/js/test.js
'use strict';

const assert = require('node:assert');
const { xxh3 } = require('./xxh3.js');
const { World, isqrt } = require('./walkers.js');

// XXH3-64 of bytes (i*7+3)&255 of each length, from github.com/zeebo/xxh3.
const vectors = {
  0: '2d06800538d394c2', 1: '13e608bc156defed', 2: '1c9074b93943b86c', 3: 'a9088dda485b481c',
  4: '6d9253b16c8b1ed3', 8: '60539db630471163', 9: 'feff668361d723a8', 16: 'b8c859b0f030b585',
  17: '714a04408e79b80f', 33: '3e44983ad21679c8', 65: '829218de4d798646', 97: '1daa83271a8e7b7c',
  128: '67425a03650261bf', 129: 'c664bf3311c6abc4', 200: '746cd0025327bf5b', 240: '64556dc6b462a6cf',
  241: '8beadd3a8874fe17', 500: 'b8bc3e5683ce226a', 1024: '9b81661c641c72b1', 1025: '806c2072ed713576',
  3000: 'c89178bb873c6b3d',
};
for (const [n, want] of Object.entries(vectors)) {
  const b = new Uint8Array(Number(n));
  for (let i = 0; i < b.length; i++) b[i] = (i * 7 + 3) & 255;
  assert.strictEqual(xxh3(b).toString(16).padStart(16, '0'), want, `xxh3 of ${n} bytes`);
}

// The empty walkers world of docs/world.md.
const empty = { state: { Tick: 0, Walkers: 0, Blocked: '0' }, walkers: [] };
assert.strictEqual(new World('94dd89abafeb432d', empty).hash(), '05c97a4f0b1dd4fc');

for (let n = 0; n < 100000; n++) {
  const r = isqrt(n);
  assert.ok(r * r <= n && (r + 1) * (r + 1) > n, `isqrt(${n}) = ${r}`);
}

// Two walkers, one walking into the other, stop 60 cm apart.
const w = new World('94dd89abafeb432d', empty);
const inputs = [];
w.step(1, [{ playerId: 0, kind: 'join' }, { playerId: 1, kind: 'join' }], inputs);
inputs[0] = { X: 4000, Y: -700, Move: true };
for (let t = 2; t <= 100; t++) w.step(t, [], inputs);
assert.strictEqual(w.walkers[0].X, -500 - 60);
assert.strictEqual(w.walkers[0].Blocked, 1);
console.log('ok');
