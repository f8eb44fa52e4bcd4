// worker.js: the bootstrap of a tab's match Worker (docs in view/README.md).
// It loads Go's wasm_exec.js, named in its own URL's query (?exec=…), and
// runs the Worker's wasm (view/page/worker), whose module page.js
// compiles while this Worker starts and posts it here (module: a
// WebAssembly.Module, or err); it carries the data channels:
// each one the page hands over (an RTCDataChannel transferred to this
// Worker, or a MessagePort over which the page forwards one) gets its
// handlers here at once, so nothing is missed before Go runs; Go takes
// datagrams with rewindRecv, sends with rewindSend, and is woken by
// rewindWake for every datagram and message. Every send is paced as the
// webrtc transport paces: at once under 32 KiB buffered, else queued (64
// at most, the oldest dropped) until the channel's bufferedamountlow.
// Started with ?sockets, it is the page's relay sockets' Worker instead
// (relaySocket, below), which runs no Go.
"use strict";
const params = new URLSearchParams(self.location.search);
// ?sockets: the page's relay sockets' own Worker (page.js RelaySocket),
// which runs no Go: only relaySocket, below.
const socketsOnly = params.has("sockets");
const mark = (stage) => postMessage({ t: "ready", stage, at: performance.timeOrigin + performance.now() }); // the page's timeline
if (!socketsOnly) {
  mark("wscript");
  importScripts(params.get("exec"));
}

const HIGH = 32 << 10, QUEUE = 64;
const chans = new Map(); // id → {ch, port, inbox, queue, open, closed}
self.rewindInbox = []; // the page's messages for Go, in order
let wake = null;
const poke = () => { if (wake) wake(); };
self.rewindSetWake = (fn) => { wake = fn; fn(); };

function take(id, ch, port) {
  const c = { id, ch, port, inbox: [], queue: [], open: false, closed: false };
  chans.set(id, c);
  ch.onmessage = (e) => { c.inbox.push(e.data); poke(); if (!port) live(c); };
  if (port) return; // the page says when it opens and closes
  ch.binaryType = "arraybuffer";
  ch.bufferedAmountLowThreshold = HIGH / 2;
  ch.onbufferedamountlow = () => drain(c);
  ch.onopen = () => opened(c);
  ch.onclose = () => gone(c);
  if (ch.readyState === "open") opened(c);
}

// opened marks a transferred channel open, once: at its open event, or
// when its readyState says "open" without one. A channel a host's page
// got from ondatachannel is transferred after the browser may have
// queued its open event on the page's thread, where the transfer can
// lose it (w3c/webrtc-pc#3058), so every send and every datagram that
// comes looks at readyState too. Datagrams can come before the channel
// is open in this Worker (Chromium 156 delivers them first): only
// readyState "open" makes it open (a send before throws).
function opened(c) {
  if (c.open || c.closed) return;
  c.open = true;
  postMessage({ t: "opened", id: c.id });
  drain(c);
  poke();
}

// gone marks a transferred channel closed, once, at its close event.
function gone(c) {
  if (c.closed) return;
  c.closed = true;
  postMessage({ t: "closed", id: c.id });
  self.rewindInbox.push({ t: "closed", id: c.id });
  poke();
}

// live says whether channel c can send now, catching up with an open
// whose event the transfer lost.
function live(c) {
  if (c.ch.readyState === "open") opened(c);
  return c.open && !c.closed;
}

function drain(c) {
  while (c.queue.length && live(c) && c.ch.bufferedAmount < HIGH) send(c, c.queue.shift());
}

// send sends bytes on channel c; a send the channel refuses (it closed
// meanwhile, its close event not in yet) drops the datagram, as the
// network may: an exception must not reach Go.
function send(c, bytes) {
  try { c.ch.send(bytes); } catch (err) { /* dropped */ }
}

self.rewindSend = (id, bytes) => {
  const c = chans.get(id);
  if (!c || c.closed) return;
  if (c.port) { c.ch.postMessage(bytes.buffer, [bytes.buffer]); return; }
  if (live(c) && !c.queue.length && c.ch.bufferedAmount < HIGH) { send(c, bytes); return; }
  if (c.queue.length >= QUEUE) c.queue.shift();
  c.queue.push(bytes);
};

self.rewindRecv = (id) => {
  const c = chans.get(id);
  return c && c.inbox.length ? new Uint8Array(c.inbox.shift()) : null;
};

// rewindDrop forgets channel id; a transferred channel is closed a little
// later, so that the goodbye just sent leaves first.
self.rewindDrop = (id) => {
  const c = chans.get(id);
  if (!c) return;
  chans.delete(id);
  c.ch.onmessage = null;
  if (!c.port) setTimeout(() => c.ch.close(), 200);
};

// The page's WebSockets (page.js's RelaySocket): opened in a Worker of
// their own (?sockets), so that a relay's ping to a room this tab hosts
// is answered from a thread that does nothing else, whatever the page's
// thread and the match's Worker are doing (a match's Go holds its
// Worker's thread while it runs, and a loaded machine starves a busy
// thread far longer than an idle one it wakes); every other message
// goes to the page.
const sockets = new Map(); // id → WebSocket
function relaySocket(m) {
  switch (m.t) {
    case "ws": {
      const id = m.id;
      let ws;
      try { ws = new WebSocket(m.url, m.protocols); } catch (err) {
        postMessage({ t: "wserror", id });
        postMessage({ t: "wsclosed", id, code: 1006, reason: String(err), wasClean: false });
        return;
      }
      ws.binaryType = "arraybuffer";
      sockets.set(id, ws);
      ws.onopen = () => postMessage({ t: "wsopen", id, protocol: ws.protocol });
      ws.onerror = () => postMessage({ t: "wserror", id });
      ws.onclose = (e) => { sockets.delete(id); postMessage({ t: "wsclosed", id, code: e.code, reason: e.reason, wasClean: e.wasClean }); };
      ws.onmessage = (e) => {
        if (typeof e.data === "string" && e.data.length < 64 && e.data.includes('"ping"')) {
          try {
            const p = JSON.parse(e.data);
            if (p.type === "ping") { ws.send(JSON.stringify({ type: "pong", n: p.n })); return; }
          } catch (err) { /* not a ping: the page's */ }
        }
        postMessage({ t: "wsmsg", id, data: e.data });
      };
      return;
    }
    case "wssend": {
      const ws = sockets.get(m.id);
      if (ws && ws.readyState === 1) ws.send(m.data);
      return;
    }
    case "wsclose": {
      const ws = sockets.get(m.id);
      if (ws) ws.close(m.code, m.reason);
    }
  }
}

let gotModule;
const module = new Promise((r) => { gotModule = r; });

self.onmessage = (e) => {
  const m = e.data;
  if (m.t === "module") { gotModule(m); return; }
  if (m.t === "channel") { take(m.id, m.ch, m.port); return; }
  if (m.t === "ws" || m.t === "wssend" || m.t === "wsclose") { relaySocket(m); return; }
  if (m.t === "hold") { const t0 = Date.now(); while (Date.now() - t0 < m.ms) { /* held */ } return; } // view/e2e: as a long run of Go holds this thread
  if ((m.t === "opened" || m.t === "closed") && chans.has(m.id)) { chans.get(m.id)[m.t === "opened" ? "open" : "closed"] = true; }
  self.rewindInbox.push(m);
  poke();
};

if (!socketsOnly) {
  const go = new Go();
  module
    .then((m) => { if (m.err) throw m.err; mark("wcompiled"); return WebAssembly.instantiate(m.module, go.importObject); })
    .then((instance) => go.run(instance))
    .catch((err) => postMessage({ t: "tick", status: "", error: String(err) }));
}
