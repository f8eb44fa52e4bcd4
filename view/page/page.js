// page.js: the page's side of a tab whose match runs in a Worker (docs in
// view/README.md). Loaded by the page's HTML with the content-hashed names
// of the files in its data attributes, it starts the match's Worker at once
// (worker.js), compiles the Worker's wasm meanwhile and posts it the module,
// sends it the page's settings, and joins the room itself (join, below:
// the relay's WebSocket, the RTCPeerConnection and the data channel,
// handed to the Worker at its creation) before either program has
// arrived. It routes the Worker's posts: #status and the timeline
// (window.rewindTimes) are written here, from the Worker's tick handler's
// messages, hidden tab or not; the newest frame to draw waits in
// window.rewindFrame for the page's Go (view/page), which gets the rest
// (rewindFromWorker) and hands each data channel it opens (hosting, and a
// host migration's claims) to the Worker with rewindHandover. The page's
// Go starts once the Worker has verified its first tick (the end of this
// file says when exactly), so that on a busy machine the drawing
// thread's start does not hold back the match's. It also minds the
// page's join-a-room field, which looks typed codes up at the relay
// (joinField, below).
"use strict";
(() => {
  const here = document.currentScript.dataset;
  const times = window.rewindTimes;
  times.script = performance.now();
  const origin = performance.timeOrigin;
  const status = document.getElementById("status");
  const worker = new Worker(here.worker + "?exec=" + encodeURIComponent(here.exec));
  // The Worker's wasm compiles here, on the browser's compiling threads,
  // while the Worker's thread starts and loads its scripts; the module
  // goes to the Worker.
  WebAssembly.compileStreaming(fetch(here.workerWasm))
    .then((module) => worker.postMessage({ t: "module", module }))
    .catch((err) => worker.postMessage({ t: "module", err: "the Worker's wasm: " + err }));
  window.rewindWorker = worker;
  window.rewindFromWorker = [];
  window.rewindFrame = null;
  let wake = null;
  window.rewindSetWake = (fn) => { wake = fn; fn(); };
  const handed = new Map(); // transferred channel id → {opened, closed}
  let joined = null; // the join's {id, leave}, once its channel is made
  let gaveUp = false; // the Worker said failed
  // The page's own program waits for the Worker (see the end).
  let workerUp, canDraw;
  const workerStarted = new Promise((r) => { workerUp = r; });
  const drawing = new Promise((r) => { canDraw = r; });
  worker.onmessage = (e) => {
    const m = e.data;
    switch (m.t) {
      case "tick":
        if (m.status) status.textContent = m.status;
        if (m.error) { gaveUp = true; if (joined) joined.leave(); } // the Worker gave up (its settings, or the match)
        if (m.error) status.textContent = status.textContent.replace(/state=\w+/, "state=failed") + " error=" + m.error.replaceAll(" ", "_");
        window.rewindHandlerRuns = m.runs;
        if (m.predicting && times.predicting === undefined) times.predicting = m.predicting - origin;
        if (m.verified && times.verified === undefined) times.verified = m.verified - origin;
        if (m.verified || m.error) { workerUp(); canDraw(); }
        return;
      case "frame":
        window.rewindFrame = m.buf;
        return;
      case "opened": case "closed": {
        const h = handed.get(m.id);
        if (h) h[m.t]();
        return;
      }
      case "ready": // the Worker's Go started, or (stage) a later mark of its
        times[m.stage || "worker"] = m.at - origin;
        if (!m.stage) workerUp();
        if (m.stage === "welcomed") setTimeout(canDraw, 3000); // a spectator's delay, a match waiting for players
        return;
      case "bench":
        window.rewindBench = m;
        return;
      case "leave": // the Worker's session is done with channel m.id
        if (joined && joined.id === m.id) { joined.leave(); return; }
    }
    window.rewindFromWorker.push(m);
    if (wake) wake();
  };
  worker.postMessage({ t: "start", data: Object.assign({}, document.body.dataset), search: location.search });

  // rewindHandover gives the data channel dc, just created, to the Worker
  // and returns its id: transferred where the browser can (Chromium; a
  // channel is transferable only in the task that created it, before any
  // send), else forwarded over a MessagePort, event by event (and always
  // with ?channel=port). opened and closed are called as it opens and
  // closes. window.rewindChannelPath says which path the last one took.
  let next = 0;
  window.rewindHandover = (dc, opened, closed) => {
    const id = ++next;
    let path = "port";
    if (new URLSearchParams(location.search).get("channel") !== "port") {
      try {
        worker.postMessage({ t: "channel", id, ch: dc }, [dc]);
        path = "transfer";
        handed.set(id, { opened, closed });
      } catch (err) {
        console.info("rewind: the data channel cannot be transferred to the Worker (" + err + "): forwarding it over a MessagePort");
      }
    }
    if (path === "port") forward(id, dc, opened, closed);
    window.rewindChannelPath = path;
    return id;
  };

  function forward(id, dc, opened, closed) {
    const mc = new MessageChannel();
    dc.binaryType = "arraybuffer";
    dc.onmessage = (e) => mc.port1.postMessage(e.data, [e.data]);
    mc.port1.onmessage = (e) => { if (dc.readyState === "open" && dc.bufferedAmount < (256 << 10)) dc.send(e.data); };
    dc.onopen = () => { worker.postMessage({ t: "opened", id }); opened(); };
    dc.onclose = () => { worker.postMessage({ t: "closed", id }); closed(); };
    worker.postMessage({ t: "channel", id, ch: mc.port2, port: true }, [mc.port2]);
    if (dc.readyState === "open") dc.onopen(); // a host's channel, announced open
  }

  // The page's WebSockets (its relay connections: roomclient's, through
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
      socketWorker = new Worker(here.worker + "?sockets=1");
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

  // join joins the room the page names, as roomclient.JoinRoom does
  // (docs/rooms.md): the relay's WebSocket (on this thread: a player's
  // relay connection carries only the join's signaling and the relay's
  // notices), join, the relay's answer, then the RTCPeerConnection with
  // the relay's ICE servers and the unordered, unreliable data channel,
  // handed to the Worker at its creation (rewindHandover), the offer and
  // the trickled candidates; once the channel opens, connected to the
  // relay and joined to the Worker (failed, with the reason, if not
  // within 30 s). The relay's host_lost goes to the Worker (lost), which
  // claims the room again through the page's Go; after the relay's
  // ended nothing more is signalled (a join not open yet fails: the room
  // ended); the Worker's leave closes the connection. It resolves to true once the channel is open,
  // to false if the join failed.
  function join(relay, room, watch) {
    return new Promise((settled) => {
      const ws = new PageSocket(relay);
      let pc = null, id = 0, done = false, described = false, remote = false, over = false;
      const outbox = [], inbox = [];
      const send = (m) => { if (ws.readyState === 1 && !over) ws.send(JSON.stringify(m)); }; // none once the room ended
      const signal = (s) => send({ type: "signal", signal: s });
      const close = () => { ws.onclose = null; ws.close(1000, "bye"); if (pc) pc.close(); };
      const fail = (why) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        const err = "relay: joining " + room + ": " + why;
        console.error("rewind: " + err);
        worker.postMessage({ t: "failed", err });
        window.rewindFromWorker.push({ t: "joinfailed", room, err });
        if (wake) wake();
        close();
        settled(false);
      };
      const timer = setTimeout(() => fail("data channel: not open within 30 s"), 30000);
      const opened = () => {
        if (gaveUp && joined) joined.leave();
        if (done) return;
        done = true;
        clearTimeout(timer);
        times.joined = performance.now();
        send({ type: "connected" });
        worker.postMessage({ t: "joined", id });
        settled(true);
      };
      const start = async (ice) => {
        times.answered = performance.now();
        pc = new RTCPeerConnection({ iceServers: (ice || []).map((s) => ({ urls: s.urls, username: s.username, credential: s.credential })) });
        const dc = pc.createDataChannel("rewind", { ordered: false, maxRetransmits: 0 });
        id = window.rewindHandover(dc, opened, () => fail("webrtc: the data channel closed before it opened"));
        joined = { id, leave: () => { joined = null; fail("left"); setTimeout(close, 250); } }; // the Worker's goodbye leaves first
        pc.onicecandidate = (e) => {
          const c = e.candidate;
          if (!c || !c.candidate) return; // the end of the candidates
          const s = { kind: "candidate", candidate: c.candidate, sdpMid: c.sdpMid || undefined, sdpMLineIndex: c.sdpMLineIndex || undefined };
          if (described) signal(s); else outbox.push(s);
        };
        pc.onconnectionstatechange = () => { if (pc.connectionState === "failed") fail("webrtc: the connection failed"); };
        const offer = await pc.createOffer();
        await pc.setLocalDescription(offer);
        signal({ kind: "offer", sdp: offer.sdp });
        described = true;
        outbox.splice(0).forEach(signal);
      };
      const fromHost = async (s) => {
        if (s.kind === "answer") {
          await pc.setRemoteDescription({ type: "answer", sdp: s.sdp });
          remote = true;
          inbox.splice(0).forEach(fromHost);
        } else if (s.kind === "candidate" && !remote) {
          inbox.push(s);
        } else if (s.kind === "candidate") {
          await pc.addIceCandidate({ candidate: s.candidate, sdpMid: s.sdpMid, sdpMLineIndex: s.sdpMLineIndex || 0 }).catch(() => {}); // a bad one fails ICE
        }
      };
      let first = true;
      ws.onopen = () => { times.socket = performance.now(); send({ type: "join", v: 1, code: room, spectator: watch || undefined }); };
      ws.onclose = (e) => fail("the relay closed the connection (" + e.code + (e.reason ? " " + e.reason : "") + ")");
      ws.onmessage = (e) => {
        let m;
        try { m = JSON.parse(e.data); } catch (err) { fail("the relay sent a bad message"); return; }
        if (first) {
          first = false;
          if (m.type === "error") fail("relay: " + m.error + " (" + m.re + "): " + m.reason);
          else if (m.type !== "joined") fail("relay answered " + JSON.stringify(m.type) + ", want \"joined\"");
          else start(m.ice).catch((err) => fail("webrtc: " + err));
          return;
        }
        switch (m.type) {
          case "signal": if (m.signal && pc) fromHost(m.signal).catch((err) => fail("webrtc: the host's " + m.signal.kind + ": " + err)); return;
          case "host_lost": if (id) worker.postMessage({ t: "lost", id }); return;
          case "ended": // no more signals (the relay closes a socket that signals outside a room); a join not done fails
            over = true;
            console.warn("rewind: room " + room + " ended: " + (m.reason || ""));
            fail("the room ended" + (m.reason ? " (" + m.reason + ")" : ""));
            return;
          case "error": console.warn("rewind: the relay: " + m.error + " (" + m.re + "): " + m.reason); return;
        }
      };
    });
  }

  // The join-by-code field (#join: the form, its input named room, its
  // button; #joinsay says what is known of the typed code). What a person
  // types is read as ?room= is (spaces dropped, upper-cased); a code of
  // the relay's length (the demo room's, else 7) is looked up at the
  // relay 150 ms after the last key, one of another length from 6 to 12
  // after a 1 s pause (a code being typed is not looked up at every
  // length: each lookup that finds nothing counts as a failed join at
  // the relay, docs/rooms.md), over a WebSocket of its own ("lookup",
  // answered "found" or no_room). The button joins a room found (or one
  // the relay cannot check: an old relay, a directory down): it goes to
  // ?room=CODE, keeping ?relay=, ?until-tick=, ?timeout= and ?channel=.
  const ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
  function joinField() {
    const form = document.getElementById("join");
    const input = form && form.querySelector("input[name=room]");
    const button = form && form.querySelector("button");
    const say = document.getElementById("joinsay");
    if (!input || !button || !say) return;
    const q = new URLSearchParams(location.search), d = document.body.dataset;
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

  // What the page joins, read as tab.ParseConfig reads it (the Worker
  // checks the rest and says failed in #status): no join for a tab that
  // hosts (the page's Go registers the room) or names no relay or room.
  function target() {
    const q = new URLSearchParams(location.search), d = document.body.dataset;
    let relay = d.relay || "", room = d.room || "";
    const typed = (q.get("room") || "").split(/\s+/).join("");
    if (typed) room = typed.toUpperCase();
    if (q.get("relay")) relay = q.get("relay");
    const watch = q.has("watch");
    if (q.get("watch")) room = q.get("watch").toUpperCase();
    const host = q.get("host");
    if ((host && host !== "0") || !relay || !room) return null;
    return { relay, room, watch };
  }
  const to = target();
  const joining = to ? join(to.relay, to.room, to.watch) : Promise.resolve(true);
  if (!to) canDraw(); // a tab that hosts: the page's Go registers the room

  // The page's program draws; the Worker plays. On a busy machine the
  // two share its cores, so the page's program waits: its wasm is
  // fetched at once (the head preloads it) but compiled once the
  // Worker's Go has started and the join has settled, and its Go starts
  // once the Worker has verified its first tick (or failed, or 3 s after
  // the welcome: a spectator's delay, a match waiting for its players),
  // or once the join failed, when the canvas says why.
  const go = new Go();
  const wasm = fetch(here.wasm);
  joining.then((ok) => { if (!ok) { workerUp(); canDraw(); } });
  Promise.all([workerStarted, joining])
    .then(() => WebAssembly.instantiateStreaming(wasm, go.importObject))
    .then((r) => { times.compiled = performance.now(); return drawing.then(() => go.run(r.instance)); })
    .catch((err) => { console.error("rewind: the page's wasm: " + err); worker.postMessage({ t: "failed", err: "the page's wasm: " + err }); });
})();
