// first-run-tab.mjs URL: opens URL in headless Chromium (the DevTools
// protocol over its WebSocket: Node 20 with --experimental-websocket) and
// prints one line when the tab's first verified tick arrives
// ("verified_at_ms=<Date.now()>"), polling window.rewindTimes every
// 250 ms. scripts/first-run runs it; it exits when verified (0) or when
// killed.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const url = process.argv[2];
const exe = process.env.CHROMIUM || 'chromium';
const profile = mkdtempSync(join(tmpdir(), 'first-run-tab-'));
const chrome = spawn(exe, ['--headless', '--no-sandbox', '--remote-debugging-port=0', '--user-data-dir=' + profile,
  '--disable-features=WebRtcHideLocalIpsWithMdns', '--allow-loopback-in-peer-connection',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
  '--window-size=1280,900', 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
process.on('exit', () => chrome.kill());
for (const s of ['SIGTERM', 'SIGINT']) process.on(s, () => process.exit(1));

const browserWS = await new Promise((resolve, reject) => {
  let buf = '';
  chrome.stderr.on('data', (d) => {
    buf += d;
    const m = buf.match(/DevTools listening on (ws:\/\/\S+)/);
    if (m) resolve(m[1]);
  });
  chrome.on('exit', (c) => reject(new Error('chromium exited ' + c + ': ' + buf)));
});
const port = new URL(browserWS).port;
const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
const target = list.find((t) => t.type === 'page');
const ws = new WebSocket(target.webSocketDebuggerUrl);
await new Promise((r) => ws.addEventListener('open', r));
let id = 0;
const pending = new Map();
ws.addEventListener('message', (e) => {
  const m = JSON.parse(e.data);
  if (m.id && pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); }
});
const call = (method, params) => new Promise((r) => { const i = ++id; pending.set(i, r); ws.send(JSON.stringify({ id: i, method, params })); });
await call('Page.navigate', { url });
for (;;) {
  const r = await call('Runtime.evaluate', { expression: 'window.rewindTimes && window.rewindTimes.verified !== undefined', returnByValue: true });
  if (r.result && r.result.result && r.result.result.value === true) {
    console.log('verified_at_ms=' + Date.now());
    process.exit(0);
  }
  await new Promise((r) => setTimeout(r, 250));
}
