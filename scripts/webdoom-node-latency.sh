#!/usr/bin/env bash
# Measures a WebDoom tic relay from outside, the way WebDoom's own clients
# talk to it: four Node `ws` clients (scripts/webdoom-latency/client.mjs,
# ws pinned by its package-lock.json) on loopback send their command for
# tic T at the same moment, 35 times a second; latency = the last command
# sent -> the bundle for T received, per player. Rounds alternate between
# `rewind webdoom` and the bare relay of `rewind-bench webdoom
# --serve-bare` (coder/websocket, the least work a seal can be), and, with
# a WebDoom tree (scripts/webdoom-tree.sh; `npm install` in TREE/server),
# WebDoom's own Node server.
#
#   scripts/webdoom-node-latency.sh [ROUNDS [SECONDS [TREE]]]
#
# Defaults: 3 rounds of 12 s. Prints a line per round and relay, then the
# p50 and p99 over all rounds of each relay and rewind's over the bare
# relay's (p50_vs_bare=, p99_vs_bare=; p99_vs_node= with a TREE).
set -euo pipefail
rounds=${1:-3}
seconds=${2:-12}
tree=${3:-}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/webdoom-latency.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

client="$repo/scripts/webdoom-latency"
[ -d "$client/node_modules/ws" ] || (cd "$client" && npm ci --no-audit --no-fund >/dev/null)
(cd "$repo" && go build -o "$work/rewind" ./cmd/rewind && go build -o "$work/rewind-bench" ./cmd/rewind-bench)

# free_port: a free TCP port on 127.0.0.1.
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
# wait_port PORT: until something listens on it.
wait_port() {
  for _ in $(seq 1 200); do
    node -e 'require("net").connect('"$1"',"127.0.0.1").on("connect",()=>process.exit(0)).on("error",()=>process.exit(1))' && return 0
    sleep 0.1
  done
  echo "nothing listens on $1" >&2
  return 1
}

declare -A port
port[rewind]=$(free_port)
"$work/rewind" webdoom --host 127.0.0.1 --port "${port[rewind]}" --quiet >"$work/rewind.log" 2>&1 &
pids+=($!)
port[bare]=$(free_port)
"$work/rewind-bench" webdoom --serve-bare "127.0.0.1:${port[bare]}" >"$work/bare.log" 2>&1 &
pids+=($!)
relays=(bare rewind)
if [ -n "$tree" ]; then
  port[node]=$(free_port)
  DOOM_HOST=127.0.0.1 DOOM_PORT=${port[node]} node "$tree/server/serve.js" >"$work/node.log" 2>&1 &
  pids+=($!)
  relays+=(node)
fi
for r in "${relays[@]}"; do wait_port "${port[$r]}"; done

echo "webdoom-node-latency: $rounds rounds of ${seconds} s, relays ${relays[*]}, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 0; i < rounds; i++)); do
  order=("${relays[@]}")
  if ((i % 2 == 1)); then # alternate which relay goes first
    order=()
    for ((k = ${#relays[@]} - 1; k >= 0; k--)); do order+=("${relays[$k]}"); done
  fi
  for r in "${order[@]}"; do
    out=$(node "$client/client.mjs" "ws://127.0.0.1:${port[$r]}" "$seconds")
    echo "round $((i + 1)) $r $out load $(cut -d' ' -f1 /proc/loadavg)"
    echo "$r $out" >>"$work/results"
  done
done

# The p50 and p99 of each relay over all rounds: the mean of the rounds'
# (each round has the same number of samples).
node -e '
const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n");
const by = {};
for (const l of lines) { const i = l.indexOf(" "); (by[l.slice(0, i)] ??= []).push(JSON.parse(l.slice(i + 1))); }
const mean = (r, k) => by[r].reduce((s, x) => s + x[k], 0) / by[r].length;
const f = (x) => x.toFixed(3);
const kv = [];
for (const r of Object.keys(by)) kv.push(`${r}_p50_ms=${f(mean(r, "p50_ms"))} ${r}_p99_ms=${f(mean(r, "p99_ms"))}`);
kv.push(`p50_vs_bare=${(mean("rewind", "p50_ms") / mean("bare", "p50_ms")).toFixed(2)}`);
kv.push(`p99_vs_bare=${(mean("rewind", "p99_ms") / mean("bare", "p99_ms")).toFixed(2)}`);
if (by.node) kv.push(`p99_vs_node=${(mean("rewind", "p99_ms") / mean("node", "p99_ms")).toFixed(2)}`);
console.log(kv.join(" "));
' "$work/results"
