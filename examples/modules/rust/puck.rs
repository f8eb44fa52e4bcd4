//! puck: a rewind game module in Rust (contract v1, docs/modules.md).
//!
//! Up to 6 players push discs around a 320×240 rink with a puck in it.
//! Positions and speeds are f32: the discs glide with drag, bounce off the
//! boards and off each other, and knock the puck. Knocking the puck scores
//! 1, but only after another player (or the start) knocked it last. Fire
//! (space) brakes.
//!
//! Built with Debian's rustc 1.63 for wasm32-unknown-unknown, no cargo:
//! build.sh. std is linked (for f32::sqrt, which is WebAssembly's own
//! f32.sqrt), but nothing in it that needs the host is called, so the
//! module imports nothing; a panic (an index out of bounds) traps.

#![crate_type = "cdylib"]

const MAXP: usize = 6;
const INSZ: usize = 1;
const AW: f32 = 320.0;
const AH: f32 = 240.0;
const PR: f32 = 9.0; // player radius
const KR: f32 = 6.0; // puck radius
const ACCEL: f32 = 0.18;
const DRAG: f32 = 0.97;
const PUCK_DRAG: f32 = 0.998;
const VMAX: f32 = 4.0;

#[derive(Clone, Copy)]
#[repr(C)]
struct Body {
    x: f32,
    y: f32,
    vx: f32,
    vy: f32,
}

#[derive(Clone, Copy)]
#[repr(C)]
struct Player {
    b: Body,
    score: u32,
    on: u32,
}

#[repr(C)]
struct World {
    tick: u32,
    last: i32, // who knocked the puck last, -1 nobody
    puck: Body,
    p: [Player; MAXP],
}

const NOBODY: Body = Body { x: 0.0, y: 0.0, vx: 0.0, vy: 0.0 };
const EMPTY: Player = Player { b: NOBODY, score: 0, on: 0 };

static mut W: World = World { tick: 0, last: -1, puck: NOBODY, p: [EMPTY; MAXP] };
static mut INPUTS: [u8; MAXP * (1 + INSZ)] = [0; MAXP * (1 + INSZ)];

#[no_mangle]
pub extern "C" fn rewind_abi() -> i32 {
    1
}

#[no_mangle]
pub extern "C" fn rewind_players() -> i32 {
    MAXP as i32
}

#[no_mangle]
pub extern "C" fn rewind_input_size() -> i32 {
    INSZ as i32
}

#[no_mangle]
pub extern "C" fn rewind_inputs() -> *mut u8 {
    unsafe { INPUTS.as_mut_ptr() }
}

#[no_mangle]
pub extern "C" fn rewind_init(seed: i64) {
    let w = unsafe { &mut W };
    // The puck starts in the middle, sent off in one of 16 directions.
    let a = (seed as u64 % 16) as usize;
    const DIRS: [(f32, f32); 4] = [(1.0, 0.5), (-0.5, 1.0), (-1.0, -0.5), (0.5, -1.0)];
    let (dx, dy) = DIRS[a % 4];
    let s = 1.0 + (a / 4) as f32 * 0.5;
    w.puck = Body { x: AW / 2.0, y: AH / 2.0, vx: dx * s, vy: dy * s };
}

fn walls(b: &mut Body, r: f32) {
    if b.x < r {
        b.x = r;
        b.vx = -b.vx;
    }
    if b.x > AW - r {
        b.x = AW - r;
        b.vx = -b.vx;
    }
    if b.y < r {
        b.y = r;
        b.vy = -b.vy;
    }
    if b.y > AH - r {
        b.y = AH - r;
        b.vy = -b.vy;
    }
}

/// collide separates two overlapping discs and exchanges the parts of
/// their speeds along the line between them (equal masses when ma == mb);
/// it reports whether they touched.
fn collide(a: &mut Body, b: &mut Body, dist: f32, ma: f32, mb: f32) -> bool {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let d2 = dx * dx + dy * dy;
    if d2 >= dist * dist {
        return false;
    }
    let d = d2.sqrt();
    let (nx, ny) = if d > 0.0001 { (dx / d, dy / d) } else { (1.0, 0.0) };
    let push = (dist - d) * 0.5 + 0.01;
    a.x -= nx * push;
    a.y -= ny * push;
    b.x += nx * push;
    b.y += ny * push;
    let rel = (a.vx - b.vx) * nx + (a.vy - b.vy) * ny;
    if rel > 0.0 {
        let j = 2.0 * rel / (ma + mb);
        a.vx -= j * mb * nx;
        a.vy -= j * mb * ny;
        b.vx += j * ma * nx;
        b.vy += j * ma * ny;
    }
    true
}

fn steer(p: &mut Player, keys: u8) {
    let b = &mut p.b;
    let ax = (keys >> 1 & 1) as f32 - (keys & 1) as f32;
    let ay = (keys >> 3 & 1) as f32 - (keys >> 2 & 1) as f32;
    let drag = if keys & 16 != 0 { 0.8 } else { DRAG };
    b.vx = (b.vx + ax * ACCEL) * drag;
    b.vy = (b.vy + ay * ACCEL) * drag;
    b.vx = b.vx.clamp(-VMAX, VMAX);
    b.vy = b.vy.clamp(-VMAX, VMAX);
    b.x += b.vx;
    b.y += b.vy;
    walls(b, PR);
}

#[no_mangle]
pub extern "C" fn rewind_step(tick: i32) {
    let w = unsafe { &mut W };
    let inputs = unsafe { &INPUTS };
    w.tick = tick as u32;
    for i in 0..MAXP {
        let status = inputs[i * (1 + INSZ)];
        let p = &mut w.p[i];
        if status == 2 {
            let x = 40.0 + 120.0 * (i % 3) as f32;
            let y = if i < 3 { 40.0 } else { AH - 40.0 };
            *p = Player { b: Body { x, y, vx: 0.0, vy: 0.0 }, score: 0, on: 1 };
        } else if status != 1 {
            p.on = 0;
        }
        if p.on != 0 {
            steer(p, inputs[i * (1 + INSZ) + 1]);
        }
    }
    for i in 0..MAXP {
        for j in i + 1..MAXP {
            let (lo, hi) = w.p.split_at_mut(j);
            if lo[i].on != 0 && hi[0].on != 0 {
                collide(&mut lo[i].b, &mut hi[0].b, 2.0 * PR, 1.0, 1.0);
            }
        }
    }
    w.puck.x += w.puck.vx;
    w.puck.y += w.puck.vy;
    w.puck.vx *= PUCK_DRAG;
    w.puck.vy *= PUCK_DRAG;
    walls(&mut w.puck, KR);
    for i in 0..MAXP {
        let p = &mut w.p[i];
        if p.on != 0 && collide(&mut p.b, &mut w.puck, PR + KR, 3.0, 1.0) {
            if w.last != i as i32 {
                p.score += 1;
                w.last = i as i32;
            }
        }
    }
}

// The view: called on a copy of the world only.

static mut CONTROL: [u8; INSZ] = [0; INSZ];

#[no_mangle]
pub extern "C" fn rewind_control(me: i32, keys: i32, x: i32, y: i32, width: i32, height: i32) -> *const u8 {
    let w = unsafe { &W };
    let mut k = (keys & 31) as u8;
    if keys & 1024 != 0 && me >= 0 && (me as usize) < MAXP && width > 0 && height > 0 {
        let b = &w.p[me as usize].b;
        let (px, py) = ((b.x * width as f32 / AW) as i32, (b.y * height as f32 / AH) as i32);
        k |= (x < px - 4) as u8 | ((x > px + 4) as u8) << 1 | ((y < py - 4) as u8) << 2 | ((y > py + 4) as u8) << 3;
    }
    unsafe {
        CONTROL[0] = k;
        CONTROL.as_ptr()
    }
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Cmd {
    op: u8,
    r: u8,
    g: u8,
    b: u8,
    a: i32,
    b2: i32,
    c: i32,
    d: i32,
}

#[repr(C)]
pub struct List {
    n: u32,
    c: [Cmd; 32],
}

const NOCMD: Cmd = Cmd { op: 0, r: 0, g: 0, b: 0, a: 0, b2: 0, c: 0, d: 0 };
static mut LIST: List = List { n: 0, c: [NOCMD; 32] };
static mut TEXT: [[u8; 12]; MAXP] = [[0; 12]; MAXP];
const COLORS: [u32; MAXP] = [0xe6194b, 0x3cb44b, 0x4363d8, 0xf58231, 0x911eb4, 0x42d4f4];

fn cmd(l: &mut List, op: u8, rgb: u32, a: i32, b: i32, c: i32, d: i32) {
    if (l.n as usize) < l.c.len() {
        l.c[l.n as usize] = Cmd { op, r: (rgb >> 16) as u8, g: (rgb >> 8) as u8, b: rgb as u8, a, b2: b, c, d };
        l.n += 1;
    }
}

fn score_text(t: &mut [u8; 12], i: usize, mut score: u32) -> i32 {
    t[0] = b'P';
    t[1] = b'1' + i as u8;
    t[2] = b' ';
    let mut d = [0u8; 10];
    let mut k = 0;
    loop {
        d[k] = b'0' + (score % 10) as u8;
        k += 1;
        score /= 10;
        if score == 0 || k == d.len() {
            break;
        }
    }
    for j in 0..k {
        t[3 + j] = d[k - 1 - j];
    }
    (3 + k) as i32
}

#[no_mangle]
pub extern "C" fn rewind_draw(me: i32, width: i32, height: i32, alpha: i32) -> *const List {
    let w = unsafe { &W };
    let l = unsafe { &mut LIST };
    let (sx, sy) = (width as f32 / AW, height as f32 / AH);
    let f = alpha as f32 / 1000.0;
    let at = |b: &Body| (((b.x + b.vx * f) * sx) as i32, ((b.y + b.vy * f) * sy) as i32);
    l.n = 0;
    cmd(l, 6, 0xdfe8f0, 0, 0, 0, 0);
    cmd(l, 4, 0xc02020, width / 2, 0, width / 2, height);
    let (x, y) = at(&w.puck);
    cmd(l, 3, 0x101010, x, y, (KR * sx) as i32, 0);
    let mut row = 0;
    for i in 0..MAXP {
        let p = &w.p[i];
        if p.on == 0 {
            continue;
        }
        let (x, y) = at(&p.b);
        let r = (PR * sx) as i32;
        cmd(l, 3, COLORS[i], x, y, r, 0);
        if i as i32 == me {
            cmd(l, 2, 0x000000, x - r - 2, y - r - 2, 2 * r + 4, 2 * r + 4);
        }
        row += 1;
        let t = unsafe { &mut TEXT[i] };
        let n = score_text(t, i, p.score);
        cmd(l, 5, COLORS[i], 8, 16 * row, t.as_ptr() as i32, n);
    }
    l
}
