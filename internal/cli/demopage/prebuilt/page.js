// page.js: the page's side of a tab whose match runs in a Worker (docs in
// view/README.md), after boot.js, which the page's head runs first and
// which started the Worker, the compile of its wasm and the join
// (window.rewindBoot). Loaded at the end of the body, after Go's
// wasm_exec.js, it gives the page's relay program (view/page/relay) its
// relay WebSockets (RelaySocket, below: opened in a Worker of their own,
// which answers the relay's pings), minds the page's join-a-room field,
// which looks typed codes up at the relay (joinField, below), starts the
// page's drawing program (view/page) once the Worker is far enough, so
// that on a busy machine the drawing thread's start does not hold back
// the match's, and the relay program once it is needed (the end of this
// file says when exactly).
"use strict";
(() => {
  const boot = window.rewindBoot;
  const times = window.rewindTimes;
  times.script = performance.now();
  const worker = boot.worker;

  // The footer's terminal hint names the room this tab is in: the one its
  // address names (?room=, ?watch=), or the one it hosts (#share's code,
  // once the relay program has it; "CODE" until then), not the demo's.
  (() => {
    const set = (c) => { for (const e of document.querySelectorAll("#bar .room")) e.textContent = c; };
    const q = new URLSearchParams(location.search);
    const named = (q.get("watch") || q.get("room") || "").split(/\s+/).join("").toUpperCase();
    const host = q.get("host");
    if (host && host !== "0") set("CODE");
    else if (named) set(named);
    const share = document.getElementById("share");
    if (share) new MutationObserver(() => {
      const c = document.getElementById("code");
      if (c && c.textContent) set(c.textContent.trim());
    }).observe(share, { childList: true, subtree: true, characterData: true });
  })();

  // The relay program's WebSockets (its relay connections: roomclient's, through
  // coder/websocket) live in the Worker: RelaySocket is the page's side of
  // one, a WebSocket as coder/websocket uses it (addEventListener, send,
  // close, binaryType, protocol). A Worker of their own (worker.js
  // ?sockets, started with the first) answers the relay's pings, so that
  // a room this tab hosts keeps its host while the page's thread or the
  // match's Worker is busy or starved (the relay drops a host silent for
  // 3 s); every other message comes here in order.
  let nextSocket = 0, socketWorker = null;
  const sockets = new Map(); // id → RelaySocket
  const toSockets = (m) => {
    if (!socketWorker) {
      socketWorker = new Worker(document.documentElement.dataset.workerJs + "?sockets=1");
      socketWorker.onmessage = (e) => relaySocketEvent(e.data);
    }
    socketWorker.postMessage(m);
  };
  class RelaySocket extends EventTarget {
    constructor(url, protocols) {
      super();
      this.id = ++nextSocket;
      this.url = String(url);
      this.binaryType = "blob";
      this.protocol = "";
      this.extensions = "";
      this.readyState = 0;
      sockets.set(this.id, this);
      const ps = protocols === undefined ? [] : [].concat(protocols).map(String);
      toSockets({ t: "ws", id: this.id, url: this.url, protocols: ps });
    }
    send(data) { toSockets({ t: "wssend", id: this.id, data }); }
    close(code, reason) { toSockets({ t: "wsclose", id: this.id, code, reason }); }
  }
  RelaySocket.CONNECTING = 0; RelaySocket.OPEN = 1; RelaySocket.CLOSING = 2; RelaySocket.CLOSED = 3;
  const PageSocket = window.WebSocket;
  window.WebSocket = RelaySocket;
  function relaySocketEvent(m) {
    const s = sockets.get(m.id);
    if (!s) return;
    switch (m.t) {
      case "wsopen": s.readyState = 1; s.protocol = m.protocol; s.dispatchEvent(new Event("open")); return;
      case "wsmsg": s.dispatchEvent(new MessageEvent("message", { data: m.data })); return;
      // An error is told after the close that always follows it:
      // coder/websocket's error handler closes the socket and waits for
      // the close event, which could never come while it held the page's
      // thread (Go's "all goroutines are asleep" when a relay dropped a
      // host that woke from a freeze).
      case "wserror": s.errored = true; return;
      case "wsclosed":
        s.readyState = 3;
        sockets.delete(m.id);
        s.dispatchEvent(new CloseEvent("close", { code: m.code, reason: m.reason, wasClean: m.wasClean }));
        if (s.errored) s.dispatchEvent(new Event("error"));
    }
  }

  // The join-by-code field (#join: the form, its input named room, its
  // button; #joinsay says what is known of the typed code). What a person
  // types is read as ?room= is (spaces dropped, upper-cased); a code of
  // the relay's length (the demo room's, else 7) is looked up at the
  // relay 150 ms after the last key, one of another length from 6 to 12
  // after a 1 s pause (a code being typed is not looked up at every
  // length: each lookup that finds nothing counts as a failed join at
  // the relay, docs/rooms.md; one of another length than the relay's
  // codes is answered bad_code and counts nowhere), over a WebSocket of
  // its own ("lookup", answered "found" or no_room). The button joins a room found (or one
  // the relay cannot check: an old relay, a directory down): it goes to
  // ?room=CODE, keeping ?relay=, ?until-tick=, ?timeout= and ?channel=.
  const ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
  function joinField() {
    const form = document.getElementById("join");
    const input = form && form.querySelector("input[name=room]");
    const button = form && form.querySelector("button");
    const say = document.getElementById("joinsay");
    if (!input || !button || !say) return;
    const q = new URLSearchParams(location.search), d = document.documentElement.dataset;
    const relay = q.get("relay") || d.relay || "";
    const want = (d.room || "").length >= 6 && (d.room || "").length <= 12 ? d.room.length : 7;
    const known = new Map(); // code → "found" | "none": asked once
    let timer = 0, asked = "";
    const code = () => input.value.split(/\s+/).join("").toUpperCase();
    const tell = (text, ok) => { say.textContent = text; button.disabled = !ok; };
    const show = (c, answer) => {
      if (c !== code()) return; // typed on meanwhile
      switch (answer) {
        case "found": return tell("room " + c + " is open: join it", true);
        case "none": return tell("no room " + c + " \u2014 check the code", false);
        case "throttled": return tell("too many codes that were wrong from here: try again in a minute", false);
        default: return tell("cannot check " + c + " (" + answer + "): join to try", true);
      }
    };
    const check = () => {
      const c = code();
      clearTimeout(timer);
      if (c === "") return tell("", false);
      if ([...c].some((ch) => !ALPHABET.includes(ch))) {
        return tell("no room " + c + " \u2014 check the code (codes have letters and digits, no 0, 1, I or O)", false);
      }
      if (c.length > 12) return tell("no room " + c + " \u2014 check the code (codes have 6 to 12 characters)", false);
      if (known.has(c)) return show(c, known.get(c));
      if (c.length < 6) return tell(want - c.length > 0 ? (want - c.length) + " more characters" : "", false);
      tell("", false);
      timer = setTimeout(() => lookup(c), c.length === want ? 150 : 1000);
    };
    const lookup = (c) => {
      if (!relay) return show(c, "the page names no relay");
      if (asked === c) return;
      asked = c;
      tell("checking " + c + " \u2026", false);
      let ws, done = false;
      const end = (answer) => {
        if (done) return;
        done = true;
        clearTimeout(late);
        if (asked === c) asked = "";
        if (answer === "found" || answer === "none") known.set(c, answer);
        if (ws.readyState <= 1) ws.close(1000, "bye");
        show(c, answer);
      };
      const late = setTimeout(() => end("the relay did not answer"), 10000);
      try { ws = new PageSocket(relay); } catch (err) { ws = { readyState: 3, close() {} }; return end(String(err)); }
      ws.onopen = () => ws.send(JSON.stringify({ type: "lookup", v: 2, code: c }));
      ws.onmessage = (e) => {
        let m = {};
        try { m = JSON.parse(e.data); } catch (err) { /* below */ }
        if (m.type === "found" && m.code === c) return end("found");
        if (m.error === "no_room") return end("none");
        if (m.error === "rate_limited") return end("throttled");
        if (m.error === "bad_code") return end("not of the length this relay checks");
        end(m.error || "a bad answer");
      };
      ws.onclose = () => end("the relay closed the connection");
    };
    input.addEventListener("input", check);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const c = code();
      if (button.disabled || c === "") return;
      const to = new URLSearchParams();
      to.set("room", c);
      for (const k of ["relay", "until-tick", "timeout", "channel"]) if (q.has(k)) to.set(k, q.get(k));
      location.search = "?" + to.toString();
    });
    check();
  }
  joinField();

  // The page's drawing program draws; the Worker plays. On a busy machine the
  // two share its cores, so the drawing program waits: its wasm
  // downloads at once (boot.js) but is compiled once
  // the Worker's Go has started and the join has settled, and its Go
  // starts once the Worker has verified its first tick (or failed, or 3 s
  // after the welcome: a spectator's delay, a match waiting for its
  // players), or once the join failed, when the canvas says why; a tab
  // that hosts starts it as soon as it is compiled.
  const go = new Go();
  Promise.all([boot.workerStarted, boot.joining])
    .then(() => WebAssembly.instantiateStreaming(boot.wasm, go.importObject))
    .then((r) => { times.compiled = performance.now(); return boot.drawing.then(() => go.run(r.instance)); })
    .catch((err) => { console.error("rewind: the page's wasm: " + err); worker.postMessage({ t: "failed", err: "the page's wasm: " + err }); });

  // The relay program (view/page/relay: pion's js side and the relay's
  // client, hosting and a host migration's claims) is fetched, compiled
  // and started once boot.js says it is needed: at once in a tab that
  // hosts, else at the Worker's first claim, so that a tab that only
  // joins neither downloads nor starts it. If it cannot start, the
  // claims waiting for it fail.
  const relayGo = new Go();
  boot.relayWanted
    .then(() => WebAssembly.instantiateStreaming(fetch(document.documentElement.dataset.relayWasm), relayGo.importObject))
    .then((r) => { times.relay = performance.now(); relayGo.run(r.instance); })
    .catch((err) => {
      console.error("rewind: the relay program's wasm: " + err);
      for (const m of window.rewindToRelay.splice(0)) if (m.t === "claim") worker.postMessage({ t: "claimfailed", n: m.n, err: "the relay program: " + err });
    });
})();
