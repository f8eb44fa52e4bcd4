// The reference JSON client of rewind's gateway (docs/gateway.md): it plays
// walkers through one WebSocket, simulating the game itself, and checks
// every tick's stateHash against its own world's hash. Midway it drops its
// connection and resumes with its token, keeping its slot.
//
//   node --experimental-websocket client.js ws://HOST:PORT/ [--ticks 2000] [--resume-at 1000] [--seed 1]
//
// It prints one line of key=value pairs and exits 0 when every tick it
// applied hashed as the server's, 1 otherwise.
'use strict';

const { World, HALF_FIELD } = require('./walkers.js');

function parseArgs(argv) {
  const o = { url: argv[0], ticks: 2000, resumeAt: -1, seed: 1, timeoutMs: 120000 };
  for (let i = 1; i < argv.length; i += 2) {
    const k = argv[i], v = Number(argv[i + 1]);
    if (k === '--ticks') o.ticks = v;
    else if (k === '--resume-at') o.resumeAt = v;
    else if (k === '--seed') o.seed = v;
    else if (k === '--timeout-ms') o.timeoutMs = v;
    else throw new Error(`unknown flag ${k}`);
  }
  if (!o.url) throw new Error('usage: client.js ws://HOST:PORT/ [--ticks N] [--resume-at N] [--seed S]');
  if (o.resumeAt < 0) o.resumeAt = Math.floor(o.ticks / 2);
  return o;
}

// A small seeded generator (xorshift32) for the destinations.
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

class Player {
  constructor(opts) {
    this.o = opts;
    this.rand = rng(opts.seed);
    this.world = null;
    this.inputs = [];
    this.token = '';
    this.playerId = -1;
    this.sequence = 0;
    this.tick = 0; // the last tick applied
    this.checked = 0; // ticks applied with equal hashes
    this.mismatches = 0;
    this.initials = 0;
    this.resumed = 0;
    this.resumedFromHistory = 0;
    this.awaitingCheckpoint = false;
    this.errors = [];
    this.dropped = false;
  }

  send(type, payload) {
    this.ws.send(JSON.stringify({ protocolVersion: 2, type, payload }));
  }

  connect(resume) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.o.url);
      this.ws = ws;
      ws.onopen = () => {
        if (resume) this.send('resume', { resumeToken: this.token, lastTickId: this.tick });
        this.justResumed = resume;
      };
      ws.onmessage = (ev) => {
        try {
          this.onMessage(JSON.parse(ev.data));
        } catch (err) {
          reject(err);
          ws.close();
        }
      };
      ws.onclose = () => resolve();
      ws.onerror = (err) => { if (!this.dropped) reject(new Error(`websocket error: ${err.message || err.type}`)); };
      this.finish = resolve;
    });
  }

  onMessage(m) {
    if (m.protocolVersion !== 2) throw new Error(`protocolVersion ${m.protocolVersion}`);
    const p = m.payload;
    switch (m.type) {
      case 'initial_state': return this.onInitial(p);
      case 'tick': return this.onTick(p);
      case 'error': this.errors.push(`${p.code}: ${p.message}`); return undefined;
      default: throw new Error(`unknown message type ${m.type}`);
    }
  }

  onInitial(p) {
    if (this.playerId >= 0 && this.justResumed && p.playerId !== this.playerId) {
      throw new Error(`resumed as player ${p.playerId}, was ${this.playerId}`);
    }
    this.justResumed = false;
    this.initials++;
    this.playerId = p.playerId;
    this.token = p.resumeToken;
    this.world = new World(p.layoutHash, p.state);
    this.inputs = [];
    for (const x of p.inputs) this.inputs[x.playerId] = x.input;
    this.tick = p.snapshotTick;
    this.awaitingCheckpoint = false;
    const h = this.world.hash();
    if (h !== p.stateHash) throw new Error(`initial_state: our hash ${h}, stateHash ${p.stateHash}`);
  }

  onTick(p) {
    if (this.awaitingCheckpoint || !this.world) return;
    if (this.justResumed) {
      this.justResumed = false;
      this.resumedFromHistory++;
    }
    if (p.tickId !== this.tick + 1) throw new Error(`tick ${p.tickId} after tick ${this.tick}: not contiguous`);
    const events = p.events || [];
    for (const e of events) this.inputs[e.playerId] = undefined;
    for (const c of p.commands) this.inputs[c.playerId] = c.input;
    this.world.step(p.tickId, events, this.inputs);
    this.tick = p.tickId;
    const h = this.world.hash();
    if (h !== p.stateHash) {
      this.mismatches++;
      this.awaitingCheckpoint = true;
      this.send('desync', { tickId: p.tickId, stateHash: h });
      return;
    }
    this.checked++;
    if (this.checked % 300 === 0) process.stderr.write(`client.js: ${this.checked} of ${this.o.ticks} ticks checked, mismatches=${this.mismatches}\n`); // progress every 5 s at 60 Hz
    if (this.checked % 60 === 1) this.walkSomewhere();
    if (this.checked === this.o.resumeAt && !this.dropped) {
      this.dropped = true;
      this.ws.close(); // the connection is lost; the slot waits for the resume
    }
    if (this.checked >= this.o.ticks) {
      this.done = true;
      this.ws.close();
    }
  }

  walkSomewhere() {
    const r = HALF_FIELD / 100 / 2.5; // within ±20 m
    this.sequence++;
    this.send('destination_input', {
      sequence: this.sequence,
      target: { x: Math.round((this.rand() * 2 - 1) * r * 1000) / 1000, y: Math.round((this.rand() * 2 - 1) * r * 1000) / 1000 },
    });
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const p = new Player(o);
  const timer = setTimeout(() => {
    console.error(`timed out after ${o.timeoutMs} ms at tick ${p.tick} (${p.checked} checked)`);
    process.exit(1);
  }, o.timeoutMs);
  await p.connect(false);
  if (!p.done && p.dropped) {
    await new Promise((r) => setTimeout(r, 300));
    p.resumed++;
    await p.connect(true);
  }
  clearTimeout(timer);
  const ok = p.done && p.mismatches === 0 && p.checked >= o.ticks;
  console.log([
    `ticks=${p.checked}`, `last_tick=${p.tick}`, `player=${p.playerId}`, `mismatches=${p.mismatches}`,
    `resumes=${p.resumed}`, `resumed_from_history=${p.resumedFromHistory}`, `initial_states=${p.initials}`,
    `inputs_sent=${p.sequence}`, `hash=${p.world ? p.world.hash() : ''}`, `errors=${p.errors.length}`, `ok=${ok}`,
  ].join(' '));
  for (const e of p.errors) console.error(`error from the gateway: ${e}`);
  process.exit(ok ? 0 : 1);
}

main().catch((err) => {
  console.error(err.stack || String(err));
  process.exit(1);
});
