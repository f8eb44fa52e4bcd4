// boot.js: the start of a tab's match (docs in view/README.md). The demo
// writes it inline at the top of the page's head, so that it runs before
// any file is fetched: it starts the match's Worker (worker.js), compiles
// the Worker's wasm on the browser's compiling threads (compileStreaming;
// the module is posted to the Worker), hands the Worker the page's
// settings and joins the room (join, below: the relay's WebSocket on the
// page's thread, the RTCPeerConnection and the data channel, handed to
// the Worker at its creation) while page.js, wasm_exec.js and both
// programs download. The settings and the files' content-hashed names
// are the <html> element's data attributes. It routes the Worker's
// posts from the first: #status and the timeline (window.rewindTimes)
// are written here, from the Worker's tick handler's messages, hidden
// tab or not; the newest frame to draw waits in window.rewindFrame for
// the page's drawing program (view/page), which gets the join's failure
// (rewindFromWorker). The Worker's claims at a host migration, and its
// leaves of the channels they opened, go to the page's relay program
// (view/page/relay: rewindToRelay), which page.js starts at the first
// claim (at once in a tab that hosts) and which hands each data channel
// it opens (hosting, and a claim's) to the Worker with rewindHandover.
// page.js (the relay WebSockets of the relay program, the join-a-room
// field, the start of both programs) takes the rest from
// window.rewindBoot.
// A tab that hosts (?host=1) joins nothing here: its relay program
// registers the room once started, over a relay WebSocket that a Worker
// of its own holds (page.js's RelaySocket), which answers the relay's
// pings.
"use strict";
(() => {
  const times = window.rewindTimes = { boot: performance.now() };
  const d = document.documentElement.dataset;
  const origin = performance.timeOrigin;
  const worker = new Worker(d.workerJs + "?exec=" + encodeURIComponent(d.exec));
  window.rewindWorker = worker;
  window.rewindFromWorker = [];
  window.rewindToRelay = []; // the Worker's claims and leaves, for the relay program
  window.rewindFrame = null;
  // The Worker's wasm compiles here while the Worker's thread starts and
  // loads its scripts; the page's own wasm downloads meanwhile (page.js
  // compiles it later: fetched only once the Worker's had arrived, it
  // came while the Worker's Go started, and the first verified tick came
  // later, docs/benchmarks.md).
  WebAssembly.compileStreaming(fetch(d.workerWasm))
    .then((module) => worker.postMessage({ t: "module", module }))
    .catch((err) => worker.postMessage({ t: "module", err: "the Worker's wasm: " + err }));
  const pageWasm = fetch(d.wasm);
  let wake = null, relayWake = null;
  window.rewindSetWake = (fn) => { wake = fn; fn(); };
  window.rewindSetRelayWake = (fn) => { relayWake = fn; fn(); };
  // rewindToPage leaves the drawing program a message (the relay
  // program's say and hosting).
  window.rewindToPage = (m) => { window.rewindFromWorker.push(m); if (wake) wake(); };
  const handed = new Map(); // transferred channel id → {opened, closed}
  let joined = null; // the join's {id, leave}, once its channel is made
  let gaveUp = false; // the Worker said failed
  // The page's own program waits for the Worker (page.js).
  let workerUp, canDraw, relayNeeded;
  const workerStarted = new Promise((r) => { workerUp = r; });
  const drawing = new Promise((r) => { canDraw = r; });
  // The relay program (view/page/relay) is started once it is needed
  // (page.js): at once in a tab that hosts, else at the Worker's first
  // claim.
  const relayWanted = new Promise((r) => { relayNeeded = r; });
  // #status is written from the Worker's ticks; one that comes before
  // the body is parsed waits for it.
  let statusText = null;
  const showStatus = (text) => {
    statusText = text;
    const el = document.getElementById("status");
    if (el) el.textContent = text;
  };
  document.addEventListener("DOMContentLoaded", () => { if (statusText !== null) showStatus(statusText); });
  const boot = { worker, workerStarted, drawing, relayWanted, wasm: pageWasm };
  window.rewindBoot = boot;
  worker.onmessage = (e) => {
    const m = e.data;
    switch (m.t) {
      case "tick":
        if (m.status) showStatus(m.status);
        if (m.error) { gaveUp = true; if (joined) joined.leave(); } // the Worker gave up (its settings, or the match)
        if (m.error) showStatus((statusText || "").replace(/state=\w+/, "state=failed") + " error=" + m.error.replaceAll(" ", "_"));
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
      case "game": { // the room plays another game than data-game guessed: the page of that game
        const q = new URLSearchParams(location.search);
        q.set("room", m.room);
        q.set("game", m.game);
        location.replace("?" + q.toString());
        return;
      }
      case "help": { // the Worker's game and its controls, under the canvas
        const set = () => { const h = document.getElementById("hint"); if (h) h.textContent = m.game + ": " + m.help; };
        if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", set); else set();
        return;
      }
      case "bench":
        window.rewindBench = m;
        return;
      case "claim": // a host migration's claim: the relay program's
        relayNeeded();
        // fall through
      case "leave": // the Worker's session is done with channel m.id: this join's, or a claim's
        if (m.t === "leave" && joined && joined.id === m.id) { joined.leave(); return; }
        window.rewindToRelay.push(m);
        if (relayWake) relayWake();
        return;
    }
    window.rewindFromWorker.push(m);
    if (wake) wake();
  };
  const settings = {};
  for (const k of ["relay", "room", "game", "settings", "tickRate"]) if (d[k] !== undefined) settings[k] = d[k];
  worker.postMessage({ t: "start", data: settings, search: location.search });

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

  // join joins the room the page names, as roomclient.JoinRoom does
  // (docs/rooms.md): the relay's WebSocket (on this thread: a player's
  // relay connection carries only the join's signaling and the relay's
  // notices), join, the relay's answer, then the RTCPeerConnection with
  // the relay's ICE servers and the unordered, unreliable data channel,
  // handed to the Worker at its creation (rewindHandover), the offer and
  // the trickled candidates; once the channel opens, connected to the
  // relay and joined to the Worker (failed, with the reason, if not
  // within 30 s). The relay's host_lost goes to the Worker (lost), which
  // claims the room again through the relay program (started then); after the relay's
  // ended nothing more is signalled (a join not open yet fails: the room
  // ended); the Worker's leave closes the connection. It resolves to true
  // once the channel is open, to false if the join failed.
  function join(relay, room, watch) {
    return new Promise((settled) => {
      const ws = new WebSocket(relay);
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
          case "host_lost": if (id) { relayNeeded(); worker.postMessage({ t: "lost", id }); } return; // the claim that follows needs the relay program
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

  // What the page joins, read as tab.ParseConfig reads it (the Worker
  // checks the rest and says failed in #status): no join for a tab that
  // hosts (the relay program registers the room) or names no relay or room.
  function target() {
    const q = new URLSearchParams(location.search);
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
  boot.joining = to ? join(to.relay, to.room, to.watch) : Promise.resolve(true);
  if (!to) canDraw(); // a tab that hosts: the relay program registers the room
  const host = new URLSearchParams(location.search).get("host");
  if (host && host !== "0") relayNeeded();
  boot.joining.then((ok) => { if (!ok) { workerUp(); canDraw(); } });
})();
