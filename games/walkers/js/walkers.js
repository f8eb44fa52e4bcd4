// The walkers game of games/walkers, simulated again in JavaScript
// from its rules (the Go package's doc), with rewind's world hash
// computed exactly as docs/world.md defines it.
'use strict';

const { xxh3 } = require('./xxh3.js');

const HALF_FIELD = 5000; // cm
const SPEED = 5; // cm per tick
const RADIUS = 30; // cm
const MIN_D2 = (2 * RADIUS) * (2 * RADIUS);
const RECORD = 20; // bytes of a Walker
const META = 32; // bytes of the meta region

// spawn returns where player p's walker appears.
function spawn(p) {
  return [(p % 8) * 200 - 700, Math.floor(p / 8) * 200 - 700];
}

// isqrt is the integer square root, rounded down (as Go's).
function isqrt(n) {
  if (n < 2) return n;
  let x = n;
  let y = Math.floor((x + 1) / 2);
  while (y < x) {
    x = y;
    y = Math.floor((x + Math.floor(n / x)) / 2);
  }
  return x;
}

const dist2 = (x0, y0, x1, y1) => (x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0);

class World {
  // fromState builds the world of an initial_state: its layoutHash and
  // state (the world rendered as JSON).
  constructor(layoutHash, state) {
    this.layoutHash = BigInt('0x' + layoutHash);
    this.walkers = state.walkers.map((w) => ({ X: w.X, Y: w.Y, TX: w.TX, TY: w.TY, Player: w.Player, Blocked: w.Blocked }));
    this.tick = state.state.Tick;
    this.blocked = BigInt(state.state.Blocked);
  }

  // step runs one tick: events ([{playerId, kind}]) and every player's
  // input (inputs[p] = {X, Y, Move}).
  step(tick, events, inputs) {
    for (const e of events) {
      if (e.kind === 'join') {
        const [x, y] = spawn(e.playerId);
        this.walkers.push({ X: x, Y: y, TX: x, TY: y, Player: e.playerId, Blocked: 0 });
      } else if (e.kind === 'leave') {
        const i = this.walkers.findIndex((w) => w.Player === e.playerId);
        if (i >= 0) {
          const last = this.walkers.pop(); // swap-remove, as world tables do
          if (i < this.walkers.length) this.walkers[i] = last;
        }
      }
    }
    const all = this.walkers;
    for (let i = 0; i < all.length; i++) {
      const a = all[i];
      const input = inputs[a.Player];
      if (input && input.Move) {
        a.TX = input.X;
        a.TY = input.Y;
      }
      a.Blocked = 0;
      if (a.X === a.TX && a.Y === a.TY) continue;
      const dx = a.TX - a.X, dy = a.TY - a.Y;
      const d = isqrt(dx * dx + dy * dy);
      let nx = a.TX, ny = a.TY;
      if (d > SPEED) {
        nx = a.X + Math.trunc((dx * SPEED) / d);
        ny = a.Y + Math.trunc((dy * SPEED) / d);
      }
      let blocked = false;
      for (let j = 0; j < all.length && !blocked; j++) {
        if (j === i) continue;
        const o = all[j];
        const after = dist2(nx, ny, o.X, o.Y);
        blocked = after < MIN_D2 && after < dist2(a.X, a.Y, o.X, o.Y);
      }
      if (blocked) {
        a.Blocked = 1;
        this.blocked += 1n;
        continue;
      }
      a.X = nx;
      a.Y = ny;
    }
    this.tick = tick;
  }

  // hash returns the world hash as 16 lowercase hex digits.
  hash() {
    const meta = new DataView(new ArrayBuffer(META));
    meta.setBigUint64(0, this.layoutHash, true);
    meta.setUint32(8, this.walkers.length, true);
    meta.setUint32(16, this.tick, true); // State.Tick (State aligns to 8)
    meta.setUint32(20, this.walkers.length, true); // State.Walkers
    meta.setBigUint64(24, this.blocked, true); // State.Blocked
    let h = xxh3(new Uint8Array(meta.buffer));
    const rec = new DataView(new ArrayBuffer(this.walkers.length * RECORD));
    this.walkers.forEach((w, i) => {
      const o = i * RECORD;
      rec.setInt32(o, w.X, true);
      rec.setInt32(o + 4, w.Y, true);
      rec.setInt32(o + 8, w.TX, true);
      rec.setInt32(o + 12, w.TY, true);
      rec.setUint8(o + 16, w.Player);
      rec.setUint8(o + 17, w.Blocked);
    });
    const chain = new DataView(new ArrayBuffer(16));
    chain.setBigUint64(0, h, true);
    chain.setBigUint64(8, xxh3(new Uint8Array(rec.buffer)), true);
    h = xxh3(new Uint8Array(chain.buffer));
    return h.toString(16).padStart(16, '0');
  }
}

module.exports = { World, spawn, isqrt, HALF_FIELD };
