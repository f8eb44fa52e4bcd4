// Four WebDoom-like clients on one tic relay (rewind webdoom, the bare
// relay of `rewind-bench webdoom --serve-bare`, or WebDoom's own Node
// server): each joins the lobby, the first starts the game, each opens
// /ws/game?slot=N, and at 35 Hz all four send their 12-byte command for
// tic T at the same moment. Latency = the last of the four commands sent
// -> the bundle for T received, per player. Prints one JSON line:
// {samples, p50_ms, p99_ms, max_ms, late} (late: bundles sealed before the
// last command was sent, left out).
//
//   node client.mjs ws://127.0.0.1:PORT SECONDS
import WebSocket from 'ws';

const [base, secondsArg] = process.argv.slice(2);
const tics = Math.round(Number(secondsArg || 12) * 35);
const now = () => Number(process.hrtime.bigint()) / 1e6; // ms

function open(path) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(base + path, { perMessageDeflate: false });
    ws.binaryType = 'nodebuffer';
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function until(ws, type) {
  return new Promise((resolve) => {
    const on = (data, binary) => {
      if (binary) return;
      try {
        if (JSON.parse(data.toString()).t === type) { ws.off('message', on); resolve(); }
      } catch { /* not JSON */ }
    };
    ws.on('message', on);
  });
}

const lobby = [];
for (let i = 0; i < 4; i++) lobby.push(await open('/ws/lobby'));
const launched = until(lobby[0], 'launch');
lobby[0].send(JSON.stringify({ t: 'start' }));
await launched;
const games = [];
for (let i = 0; i < 4; i++) games.push(await open(`/ws/game?slot=${i}`));

const sentLast = new Float64Array(tics);
const recv = games.map(() => new Float64Array(tics));
let got = 0;
const done = new Promise((resolve) => {
  games.forEach((ws, i) => ws.on('message', (data) => {
    if (data.length !== 38) return;
    const tic = data.readUInt32LE(0);
    if (tic < tics && recv[i][tic] === 0) {
      recv[i][tic] = now();
      if (++got === 4 * tics) resolve();
    }
  }));
});

const cmds = games.map((_, i) => {
  const b = Buffer.alloc(12);
  b[5] = i; // sidemove: the slot, so the four differ
  return b;
});
const start = now() + 200;
let t = 0;
function tick() {
  while (t < tics && now() >= start + (t * 1000) / 35) {
    for (let i = 0; i < 4; i++) {
      cmds[i].writeUInt32LE(t, 0);
      cmds[i][4] = t & 0xff;
      games[i].send(cmds[i]);
    }
    sentLast[t] = now();
    t++;
  }
  if (t < tics) setTimeout(tick, Math.max(0, start + (t * 1000) / 35 - now() - 0.5));
}
setTimeout(tick, 190);
const timeout = setTimeout(() => { console.error(`timed out: ${got} of ${4 * tics} bundles`); process.exit(1); }, tics * 1000 / 35 + 30000);
await done;
clearTimeout(timeout);

const lat = [];
let late = 0;
for (let tic = 0; tic < tics; tic++) {
  for (let i = 0; i < 4; i++) {
    const d = recv[i][tic] - sentLast[tic];
    if (d < 0) late++; else lat.push(d);
  }
}
lat.sort((a, b) => a - b);
const q = (p) => lat[Math.floor(p * (lat.length - 1))];
const r3 = (x) => Math.round(x * 1000) / 1000;
console.log(JSON.stringify({ samples: lat.length, p50_ms: r3(q(0.5)), p99_ms: r3(q(0.99)), max_ms: r3(lat[lat.length - 1]), late }));
for (const ws of [...games, ...lobby]) ws.close();
setTimeout(() => process.exit(0), 200);
