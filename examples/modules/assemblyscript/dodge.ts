// dodge: a rewind game module in AssemblyScript (TypeScript), contract v1
// (docs/modules.md).
//
// Up to 8 players move squares around a 320×240 field while rocks fly
// across it, bouncing off the edges and off each other. A player's score
// grows by 1 every half second; a rock that hits the player sends it back
// to its corner with a score of 0 (its best is kept). Fire (space) holds
// the player still. Integers only: positions are in 1/16 pixel.
//
// Built with the AssemblyScript compiler pinned in package-lock.json and
// the stub runtime (no allocator, no garbage collector: the game keeps its
// state in static memory and two globals): build.sh.

const MAXP: i32 = 8;
const INSZ: i32 = 1;
const FX: i32 = 16;
const AW: i32 = 320 * FX;
const AH: i32 = 240 * FX;
const PS: i32 = 6 * FX; // half a player's side
const RR: i32 = 7 * FX; // rock radius
const NROCK: i32 = 6;
const SPEED: i32 = 2 * FX;

// Static memory: the inputs, the players (x, y, score, best, on, hit:
// 6 i32), the rocks (x, y, vx, vy: 4 i32), and the view's buffers.
const INPUTS = memory.data(MAXP * (1 + INSZ));
const PLAYERS = memory.data(MAXP * 24);
const ROCKS = memory.data(NROCK * 16);
const CONTROL = memory.data(INSZ);
const LIST = memory.data(4 + 48 * 20);
const TEXT = memory.data(MAXP * 32);

// The world's two mutable globals.
let rng: u32 = 1;
let tick: i32 = 0;

// abort replaces AssemblyScript's imported env.abort (build.sh: --use
// abort=...): a failed assertion traps, and the module imports nothing.
function trap(msg: usize, file: usize, line: u32, col: u32): void {
  unreachable();
}

function rnd(): u32 {
  let x = rng;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  rng = x;
  return x;
}

function pget(i: i32, f: i32): i32 {
  return load<i32>(PLAYERS + <usize>(i * 24 + f * 4));
}
function pset(i: i32, f: i32, v: i32): void {
  store<i32>(PLAYERS + <usize>(i * 24 + f * 4), v);
}
function rget(i: i32, f: i32): i32 {
  return load<i32>(ROCKS + <usize>(i * 16 + f * 4));
}
function rset(i: i32, f: i32, v: i32): void {
  store<i32>(ROCKS + <usize>(i * 16 + f * 4), v);
}

export function rewind_abi(): i32 {
  return 1;
}
export function rewind_players(): i32 {
  return MAXP;
}
export function rewind_input_size(): i32 {
  return INSZ;
}
export function rewind_inputs(): usize {
  return INPUTS;
}

export function rewind_init(seed: i64): void {
  rng = <u32>(seed ^ (seed >>> 32));
  if (rng == 0) rng = 0x9e3779b9;
  for (let i = 0; i < NROCK; i++) {
    rset(i, 0, <i32>(rnd() % <u32>(AW - 2 * RR)) + RR);
    rset(i, 1, <i32>(rnd() % <u32>(AH - 2 * RR)) + RR);
    rset(i, 2, <i32>(rnd() % 49) - 24);
    rset(i, 3, <i32>(rnd() % 49) - 24);
  }
}

function spawn(i: i32): void {
  pset(i, 0, i & 1 ? AW - 4 * PS : 4 * PS);
  pset(i, 1, (i >> 1) * (AH / 4) + AH / 8);
}

function moveRocks(): void {
  for (let i = 0; i < NROCK; i++) {
    let x = rget(i, 0) + rget(i, 2);
    let y = rget(i, 1) + rget(i, 3);
    if (x < RR || x > AW - RR) rset(i, 2, -rget(i, 2));
    if (y < RR || y > AH - RR) rset(i, 3, -rget(i, 3));
    rset(i, 0, min(max(x, RR), AW - RR));
    rset(i, 1, min(max(y, RR), AH - RR));
  }
  // Rocks that touch swap their speeds.
  for (let i = 0; i < NROCK; i++) {
    for (let j = i + 1; j < NROCK; j++) {
      const dx = (rget(i, 0) - rget(j, 0)) / FX;
      const dy = (rget(i, 1) - rget(j, 1)) / FX;
      const approach = (rget(j, 2) - rget(i, 2)) * dx + (rget(j, 3) - rget(i, 3)) * dy;
      if (dx * dx + dy * dy < (2 * RR / FX) * (2 * RR / FX) && approach > 0) {
        for (let f = 2; f < 4; f++) {
          const t = rget(i, f);
          rset(i, f, rget(j, f));
          rset(j, f, t);
        }
      }
    }
  }
}

function movePlayer(i: i32, keys: i32): void {
  if (keys & 16) return;
  const dx = ((keys >> 1) & 1) - (keys & 1);
  const dy = ((keys >> 3) & 1) - ((keys >> 2) & 1);
  pset(i, 0, min(max(pget(i, 0) + dx * SPEED, PS), AW - PS));
  pset(i, 1, min(max(pget(i, 1) + dy * SPEED, PS), AH - PS));
}

function hit(i: i32): bool {
  for (let r = 0; r < NROCK; r++) {
    // The square against the rock's bounding square: close enough.
    const dx = abs(pget(i, 0) - rget(r, 0));
    const dy = abs(pget(i, 1) - rget(r, 1));
    if (dx < PS + RR && dy < PS + RR) return true;
  }
  return false;
}

export function rewind_step(t: i32): void {
  tick = t;
  moveRocks();
  for (let i = 0; i < MAXP; i++) {
    const status = load<u8>(INPUTS + <usize>(i * (1 + INSZ)));
    if (status == 2) {
      for (let f = 0; f < 6; f++) pset(i, f, 0);
      spawn(i);
      pset(i, 4, 1);
    } else if (status != 1) {
      pset(i, 4, 0);
    }
    if (!pget(i, 4)) continue;
    movePlayer(i, load<u8>(INPUTS + <usize>(i * (1 + INSZ) + 1)));
    if (hit(i)) {
      spawn(i);
      pset(i, 2, 0);
      pset(i, 5, pget(i, 5) + 1);
    } else if (t % 30 == 0) {
      pset(i, 2, pget(i, 2) + 1);
      if (pget(i, 2) > pget(i, 3)) pset(i, 3, pget(i, 2));
    }
  }
}

// The view: called on a copy of the world only.

export function rewind_control(me: i32, keys: i32, x: i32, y: i32, w: i32, h: i32): usize {
  let k = keys & 31;
  if (keys & 1024 && me >= 0 && me < MAXP && w > 0 && h > 0) {
    const px = <i32>((<i64>pget(me, 0) * w) / AW);
    const py = <i32>((<i64>pget(me, 1) * h) / AH);
    if (x < px - 4) k |= 1;
    if (x > px + 4) k |= 2;
    if (y < py - 4) k |= 4;
    if (y > py + 4) k |= 8;
  }
  store<u8>(CONTROL, k);
  return CONTROL;
}

function cmd(op: i32, rgb: u32, a: i32, b: i32, c: i32, d: i32): void {
  const n = load<u32>(LIST);
  if (n >= 48) return;
  const p = LIST + 4 + <usize>(n * 20);
  store<u32>(p, <u32>op | ((rgb >> 16) & 255) << 8 | ((rgb >> 8) & 255) << 16 | (rgb & 255) << 24);
  store<i32>(p, a, 4);
  store<i32>(p, b, 8);
  store<i32>(p, c, 12);
  store<i32>(p, d, 16);
  store<u32>(LIST, n + 1);
}

function sx(v: i32, w: i32): i32 {
  return <i32>((<i64>v * w) / AW);
}
function sy(v: i32, h: i32): i32 {
  return <i32>((<i64>v * h) / AH);
}

// digits writes v in decimal at p and returns the bytes written.
function digits(p: usize, v: i32): i32 {
  let n = 0;
  let d = 1;
  while (d * 10 <= v) d *= 10;
  for (; d > 0; d /= 10) {
    store<u8>(p + <usize>n, 48 + ((v / d) % 10));
    n++;
  }
  return n;
}

const COLORS: StaticArray<u32> = [0xe6194b, 0x3cb44b, 0x4363d8, 0xf58231, 0x911eb4, 0x42d4f4, 0xf032e6, 0xbfef45];

export function rewind_draw(me: i32, w: i32, h: i32, alpha: i32): usize {
  store<u32>(LIST, 0);
  cmd(6, 0x202020, 0, 0, 0, 0);
  for (let r = 0; r < NROCK; r++) {
    const x = rget(r, 0) + (rget(r, 2) * alpha) / 1000;
    const y = rget(r, 1) + (rget(r, 3) * alpha) / 1000;
    cmd(3, 0x8a7f70, sx(x, w), sy(y, h), sx(RR, w), 0);
  }
  let row = 0;
  for (let i = 0; i < MAXP; i++) {
    if (!pget(i, 4)) continue;
    const c = COLORS[i];
    const s = sx(PS, w);
    const x = sx(pget(i, 0), w);
    const y = sy(pget(i, 1), h);
    cmd(1, c, x - s, y - s, 2 * s, 2 * s);
    if (i == me) cmd(2, 0xffffff, x - s - 2, y - s - 2, 2 * s + 4, 2 * s + 4);
    const t = TEXT + <usize>(i * 32);
    store<u8>(t, 80); // "P1 12 best 30"
    store<u8>(t, 49 + i, 1);
    store<u8>(t, 32, 2);
    let n = 3 + digits(t + 3, pget(i, 2));
    store<u8>(t + <usize>n, 32);
    store<u8>(t + <usize>n, 98, 1);
    store<u8>(t + <usize>n, 101, 2);
    store<u8>(t + <usize>n, 115, 3);
    store<u8>(t + <usize>n, 116, 4);
    store<u8>(t + <usize>n, 32, 5);
    n += 6;
    n += digits(t + <usize>n, pget(i, 3));
    row++;
    cmd(5, c, 8, 16 * row, <i32>t, n);
  }
  return LIST;
}
