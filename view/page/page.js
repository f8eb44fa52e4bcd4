// page.js: the page's side of a tab whose match runs in a Worker (docs in
// view/README.md). Loaded by the page's HTML with the content-hashed names
// of the files in its data attributes, it starts the match's Worker at once
// (worker.js and the Worker's wasm: compiled while the page's own wasm
// downloads), sends it the page's settings, and routes the Worker's posts:
// #status and the timeline (window.rewindTimes) are written here, from the
// Worker's tick handler's messages, hidden tab or not; the newest frame to
// draw waits in window.rewindFrame for the page's Go (view/page), which
// gets the rest (rewindFromWorker) and hands each data channel it opens to
// the Worker with rewindHandover.
"use strict";
(() => {
  const here = document.currentScript.dataset;
  const times = window.rewindTimes;
  const origin = performance.timeOrigin;
  const status = document.getElementById("status");
  const worker = new Worker(here.worker + "?exec=" + encodeURIComponent(here.exec) + "&wasm=" + encodeURIComponent(here.workerWasm));
  window.rewindWorker = worker;
  window.rewindFromWorker = [];
  window.rewindFrame = null;
  let wake = null;
  window.rewindSetWake = (fn) => { wake = fn; fn(); };
  const handed = new Map(); // transferred channel id → {opened, closed}
  worker.onmessage = (e) => {
    const m = e.data;
    switch (m.t) {
      case "tick":
        if (m.status) status.textContent = m.status;
        if (m.error) status.textContent = status.textContent.replace(/state=\w+/, "state=failed") + " error=" + m.error.replaceAll(" ", "_");
        window.rewindHandlerRuns = m.runs;
        if (m.predicting && times.predicting === undefined) times.predicting = m.predicting - origin;
        if (m.verified && times.verified === undefined) times.verified = m.verified - origin;
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
        return;
      case "bench":
        window.rewindBench = m;
        return;
      case "wsopen": case "wsmsg": case "wsclosed": case "wserror":
        relaySocketEvent(m);
        return;
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
  // close, binaryType, protocol). The Worker answers the relay's pings
  // itself, so that a room this tab hosts keeps its host while the page's
  // thread is busy or starved (the relay drops a host silent for 3 s);
  // every other message comes here in order.
  let nextSocket = 0;
  const sockets = new Map(); // id → RelaySocket
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
      worker.postMessage({ t: "ws", id: this.id, url: this.url, protocols: ps });
    }
    send(data) { worker.postMessage({ t: "wssend", id: this.id, data }); }
    close(code, reason) { worker.postMessage({ t: "wsclose", id: this.id, code, reason }); }
  }
  RelaySocket.CONNECTING = 0; RelaySocket.OPEN = 1; RelaySocket.CLOSING = 2; RelaySocket.CLOSED = 3;
  window.WebSocket = RelaySocket;
  function relaySocketEvent(m) {
    const s = sockets.get(m.id);
    if (!s) return;
    switch (m.t) {
      case "wsopen": s.readyState = 1; s.protocol = m.protocol; s.dispatchEvent(new Event("open")); return;
      case "wsmsg": s.dispatchEvent(new MessageEvent("message", { data: m.data })); return;
      case "wserror": s.dispatchEvent(new Event("error")); return;
      case "wsclosed":
        s.readyState = 3;
        sockets.delete(m.id);
        s.dispatchEvent(new CloseEvent("close", { code: m.code, reason: m.reason, wasClean: m.wasClean }));
    }
  }

  const go = new Go();
  WebAssembly.instantiateStreaming(fetch(here.wasm), go.importObject)
    .then((r) => { times.compiled = performance.now(); go.run(r.instance); })
    .catch((err) => { console.error("rewind: the page's wasm: " + err); worker.postMessage({ t: "failed", err: "the page's wasm: " + err }); });
})();
