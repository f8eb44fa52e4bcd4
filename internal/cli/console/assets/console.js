// rewind console: reads the event stream /console/api/events (Server-Sent
// Events, read with fetch so that the admin token can go in a header),
// shows rooms and players, draws the graphs on plain canvas, and sends the
// operator's actions with the token.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const state = { snap: null, hist: [], abort: null, gen: 0 };
  window.consoleState = state;
  const token = $('token');
  token.value = sessionStorage.getItem('rewind-token') || '';

  function headers() {
    const h = {};
    if (token.value) h.Authorization = 'Bearer ' + token.value;
    return h;
  }

  function fmtNum(v, d) {
    if (v === undefined || v === null) return '–';
    if (v >= 1e6) return (v / 1e6).toFixed(1) + 'M';
    if (v >= 1e4) return (v / 1e3).toFixed(1) + 'k';
    return d ? v.toFixed(d) : String(Math.round(v));
  }
  function fmtAge(since, now) {
    if (!since) return '–';
    let s = Math.max(0, Math.round((now - since) / 1000));
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm' + String(s % 60).padStart(2, '0') + 's';
    return Math.floor(s / 3600) + 'h' + String(Math.floor(s / 60) % 60).padStart(2, '0') + 'm';
  }
  function td(text, cls, title) {
    const c = document.createElement('td');
    c.textContent = text;
    if (cls) c.className = cls;
    if (title) c.title = title;
    return c;
  }
  // What a player row's cells mean, shown on hover (a dash: the process
  // serving this console does not see that figure).
  const tips = {
    ping: 'round trip between the player and the match server',
    rollbacks: 'rollbacks: ticks the player simulated again after a wrong guess of another player\'s input (counted in the player: a dash at a match server)',
    desyncs: 'desyncs: times the player\'s world hashed otherwise than the server\'s and was repaired page by page',
    resyncs: 'resyncs: whole worlds the server sent the player again (a rebase)',
    delay: 'input delay: ticks between pressing and the input taking effect (lockstep players; a dash: prediction, no delay)',
    late: 'late inputs: ticks that ran without this player\'s input (it arrived too late and was guessed)',
    rate: 'bytes a second from / to this player',
    addr: 'the player\'s address (a hash of it unless addresses is ticked with the admin token)',
  };
  function button(label, onClick) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.addEventListener('click', onClick);
    return b;
  }

  async function act(action, body, confirmText) {
    if (confirmText && !window.confirm(confirmText)) return;
    const r = await fetch('/console/api/' + action, {
      method: 'POST', headers: Object.assign({ 'Content-Type': 'application/json' }, headers()),
      body: JSON.stringify(body || {}),
    });
    const msg = $('message');
    if (r.ok) { msg.className = ''; msg.textContent = action + ' done'; return; }
    const j = await r.json().catch(() => ({}));
    msg.className = 'error';
    msg.textContent = action + ': ' + r.status + ' ' + (j.error || r.statusText);
  }

  function render() {
    const s = state.snap;
    if (!s) return;
    $('source').textContent = s.source + (s.fleet ? ' (fleet)' : '');
    $('draining').hidden = !s.draining;
    const can = new Set(token.value ? s.actions || [] : []); // buttons once a token is typed
    $('drain').hidden = !can.has('drain') || s.draining;
    const tb = document.querySelector('#rooms tbody');
    const rows = [];
    for (const r of s.rooms) {
      const tr = document.createElement('tr');
      tr.className = 'room' + (r.closed ? ' closed' : '') + (r.remote ? ' remote' : '');
      tr.dataset.code = r.code;
      tr.append(td(r.code), td(r.game || '–'),
        td(r.players + (r.maxPlayers ? '/' + r.maxPlayers : ''), 'num'), td(String(r.spectators), 'num'),
        td(r.tick === undefined ? '–' : String(r.tick), 'num'), td(fmtNum(r.ticksLateP99, 1), 'num'),
        td(fmtNum(r.inPerSec), 'num'), td(fmtNum(r.outPerSec), 'num'),
        td(fmtAge(r.since, s.now)), td(r.hosted), td(String(r.migrations), 'num'));
      const acts = document.createElement('td');
      if (!r.remote && can.has('end')) acts.append(button('end match', () => act('end', { code: r.code, reason: 'ended by the operator' }, 'End the match of ' + r.code + '?')));
      if (!r.remote && can.has('close') && !r.closed) acts.append(button('close to joins', () => act('close', { code: r.code })));
      tr.append(acts);
      rows.push(tr);
      for (const p of r.members || []) {
        const m = document.createElement('tr');
        m.className = 'member';
        m.dataset.code = r.code;
        m.dataset.player = p.id;
        m.append(td(p.id + (p.name ? ' ' + p.name : '')), td(p.state),
          td('ping ' + fmtNum(p.pingMs, 0) + ' ms', '', tips.ping),
          td('rollbacks ' + fmtNum(p.rollbacks) + ' · desyncs ' + fmtNum(p.desyncs) + ' · resyncs ' + fmtNum(p.resyncs), '',
            tips.rollbacks + '\n' + tips.desyncs + '\n' + tips.resyncs),
          td('input delay ' + fmtNum(p.inputDelay), '', tips.delay), td('late inputs ' + fmtNum(p.lateInputs), '', tips.late),
          td(fmtNum(p.inPerSec), 'num', tips.rate), td(fmtNum(p.outPerSec), 'num', tips.rate),
          td(fmtAge(p.since, s.now), '', 'time since the player joined'), td(p.addr || '–', '', tips.addr), td(''));
        const pa = document.createElement('td');
        if (can.has('remove')) pa.append(button('remove', () => act('remove', { code: r.code, player: p.id, reason: 'removed by the operator' }, 'Remove ' + p.id + ' from ' + r.code + '?')));
        m.append(pa);
        rows.push(m);
      }
    }
    tb.replaceChildren(...rows);
    $('empty').hidden = s.rooms.length > 0;
  }

  const colors = ['#1565c0', '#c62828', '#2e7d32', '#ef6c00', '#6a1b9a', '#00838f', '#5d4037'];
  function line(ctx, pts, x, y, color) {
    ctx.strokeStyle = color;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    let pen = false;
    for (let i = 0; i < pts.length; i++) {
      const v = pts[i].v;
      if (v === undefined || v === null || (i > 0 && pts[i].t - pts[i - 1].t > 3000)) { pen = false; if (v === undefined || v === null) continue; }
      if (pen) ctx.lineTo(x(pts[i].t), y(v)); else ctx.moveTo(x(pts[i].t), y(v));
      pen = true;
    }
    ctx.stroke();
  }
  function graph(id, series) {
    const c = $(id), ctx = c.getContext('2d');
    ctx.clearRect(0, 0, c.width, c.height);
    const h = state.hist;
    if (!h.length) return;
    const t1 = h[h.length - 1].t, t0 = Math.min(h[0].t, t1 - 60000);
    let max = 1;
    for (const s of series) for (const p of s.pts) if (p.v > max) max = p.v;
    const x = (t) => ((t - t0) / Math.max(1, t1 - t0)) * (c.width - 2) + 1;
    const y = (v) => c.height - 12 - (v / max) * (c.height - 16);
    ctx.fillStyle = '#57606a';
    ctx.font = '10px system-ui';
    ctx.fillText(fmtNum(max, max < 10 ? 1 : 0), 2, 10);
    ctx.fillText(fmtAge(t0, t1) + ' ago', 2, c.height - 2);
    series.forEach((s, i) => line(ctx, s.pts, x, y, s.color || colors[i % colors.length]));
  }
  function drawGraphs() {
    const h = state.hist;
    graph('g-players', [{ pts: h.map((s) => ({ t: s.t, v: s.players })) }]);
    graph('g-late', [{ pts: h.map((s) => ({ t: s.t, v: s.ticksLate })) }]);
    graph('g-bytes', [{ pts: h.map((s) => ({ t: s.t, v: s.bytesPerSec })) }]);
    const reasons = new Set();
    for (const s of h) for (const k of Object.keys(s.refusals || {})) reasons.add(k);
    const list = [...reasons].sort();
    graph('g-refusals', list.map((k, i) => ({ color: colors[i % colors.length], pts: h.map((s) => ({ t: s.t, v: (s.refusals || {})[k] || 0 })) })));
    const keys = $('refusal-keys');
    keys.replaceChildren(...list.map((k, i) => { const e = document.createElement('span'); e.style.color = colors[i % colors.length]; e.textContent = k; return e; }));
  }

  function handle(event, data) {
    if (event === 'history') { state.hist = JSON.parse(data) || []; drawGraphs(); return; }
    if (event !== 'snapshot') return;
    const m = JSON.parse(data);
    state.snap = m.snapshot;
    state.updates = (state.updates || 0) + 1;
    if (m.sample) { state.hist.push(m.sample); if (state.hist.length > 300) state.hist.shift(); drawGraphs(); }
    render();
  }

  async function connect() {
    const gen = ++state.gen;
    if (state.abort) state.abort.abort();
    const ab = new AbortController();
    state.abort = ab;
    const live = $('live');
    try {
      const url = '/console/api/events' + ($('addrs').checked ? '?addrs=1' : '');
      const r = await fetch(url, { headers: headers(), signal: ab.signal });
      if (!r.ok) {
        const j = await r.json().catch(() => ({}));
        $('message').className = 'error';
        $('message').textContent = r.status + ' ' + (j.error || r.statusText);
        if (r.status === 401) { $('addrs').checked = false; }
        throw new Error(String(r.status));
      }
      live.className = ''; live.textContent = 'live';
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let event = 'message', data = '';
          for (const l of block.split('\n')) {
            if (l.startsWith('event: ')) event = l.slice(7);
            else if (l.startsWith('data: ')) data += l.slice(6);
          }
          if (data) handle(event, data);
        }
      }
    } catch (e) {
      if (ab.signal.aborted) return;
    }
    if (gen !== state.gen) return;
    live.className = 'off'; live.textContent = 'reconnecting…';
    setTimeout(() => { if (gen === state.gen) connect(); }, 1000);
  }

  token.addEventListener('change', () => { sessionStorage.setItem('rewind-token', token.value); connect(); });
  $('auth').addEventListener('submit', (e) => e.preventDefault());
  $('addrs').addEventListener('change', connect);
  $('drain').addEventListener('click', () => act('drain', {}, 'Drain: refuse new rooms and let running ones end?'));
  setInterval(render, 1000); // ages
  connect();
})();
