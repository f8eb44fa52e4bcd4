#!/usr/bin/env bash
# Runs WebDoom's own browser tests (tools/browser-net-test.mjs: drill-down
# lobby, names and colours, sparse-slot co-op; tools/browser-join-test.mjs:
# drop-in through the menu) against `rewind webdoom --dir TREE`, or against
# WebDoom's own server on the same tree for comparison.
#
#   scripts/webdoom-browser-tests.sh TREE [rewind|webdoom] [PORT]
#
# TREE is made by scripts/webdoom-tree.sh (WebDoom's server needs
# `npm install ws` in TREE/server for the comparison). The tests start
# google-chrome-stable with fixed arguments on a fixed DevTools port and
# give it 1.5 s to come up, which a loaded machine misses. So this script
# starts Debian's Chromium itself, with the same arguments, in a process
# group of its own, and waits for its DevTools port; the google-chrome-stable
# the test starts is a shim that only waits and, when the test ends it,
# ends that group (exec'ing Debian's wrapper instead leaves the browser
# running, still in the game, which breaks the next test). The browser
# keeps one profile in TREE/.chrome-profile, as the tests' Chrome keeps its
# default one: the page caches the IWAD there (Cache API), so only the first
# run downloads and stores 27 MB before the engine boots. Nothing in the
# tests changes. Each test prints PASS or FAIL; screenshots go to a temp dir.
set -euo pipefail
tree=${1:?usage: webdoom-browser-tests.sh TREE [rewind|webdoom] [PORT]}
server=${2:-rewind}
port=${3:-18666}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/webdoom-browser.XXXXXX)
mkdir -p "$work/bin"
chrome=/usr/lib/chromium/chromium
[ -x "$chrome" ] || chrome=$(command -v chromium)
cat >"$work/bin/google-chrome-stable" <<SHIM
#!/bin/sh
trap 'kill -KILL -\$(cat "$work/chrome.pid") 2>/dev/null; exit 0' TERM INT
while kill -0 -\$(cat "$work/chrome.pid") 2>/dev/null; do sleep 0.2; done
SHIM
chmod +x "$work/bin/google-chrome-stable"

# start_chrome PORT: the browser the test would start (tools/browser-*-test.mjs).
start_chrome() {
  setsid "$chrome" --headless=new "--remote-debugging-port=$1" --no-first-run --no-sandbox \
    --disable-gpu-sandbox --use-angle=swiftshader --window-size=1280,960 \
    --autoplay-policy=no-user-gesture-required "--user-data-dir=$tree/.chrome-profile" about:blank \
    >"$work/chrome-$1.log" 2>&1 &
  echo $! >"$work/chrome.pid"
  for _ in $(seq 1 300); do
    curl -fs -o /dev/null "http://127.0.0.1:$1/json/version" && return 0
    sleep 0.1
  done
  echo "chromium did not come up on port $1" >&2
  return 1
}

case $server in
rewind)
  (cd "$repo" && go build -o "$work/rewind" ./cmd/rewind)
  "$work/rewind" webdoom --dir "$tree" --host 127.0.0.1 --port "$port" >"$work/server.log" 2>&1 &
  ;;
webdoom)
  DOOM_HOST=127.0.0.1 DOOM_PORT=$port node "$tree/server/serve.js" >"$work/server.log" 2>&1 &
  ;;
*) echo "server: rewind or webdoom" >&2; exit 2 ;;
esac
spid=$!
trap 'kill $spid 2>/dev/null; wait $spid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  curl -fs -o /dev/null "http://127.0.0.1:$port/api/wads" && break
  sleep 0.1
done

status=0
for t in browser-net-test browser-join-test; do
  mkdir -p "$work/$t"
  start_chrome "$(sed -n 's/^const CDP_PORT = \([0-9]*\);.*/\1/p' "$tree/tools/$t.mjs")"
  start=$(date +%s)
  if (cd "$tree" && PATH="$work/bin:$PATH" timeout 300 node --experimental-websocket "tools/$t.mjs" \
      "http://127.0.0.1:$port/" "$work/$t" >"$work/$t.log" 2>&1); then r=PASS; else r=FAIL; status=1; fi
  kill -KILL -"$(cat "$work/chrome.pid")" 2>/dev/null || true
  echo "$t against $server: $r in $(( $(date +%s) - start )) s: $(tail -1 "$work/$t.log")"
  sleep 2 # the previous test's sockets close and its session ends
done
echo "logs and screenshots: $work"
exit $status
