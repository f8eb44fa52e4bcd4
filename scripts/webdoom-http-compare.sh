#!/usr/bin/env bash
# Serves a WebDoom tree (scripts/webdoom-tree.sh; `npm install ws` in
# TREE/server) with `rewind webdoom` and with WebDoom's own server side by
# side and compares, request by request, the status, content-type,
# cache-control, content-length and body: every file of client/, the
# engine, a WAD, the API routes and the demo store's statuses. Prints the
# requests whose answers differ (a body, or a header WebDoom sends that
# rewind does not send alike), then counts.
#
#   scripts/webdoom-http-compare.sh TREE [PORT]
set -euo pipefail
tree=${1:?usage: webdoom-http-compare.sh TREE [PORT]}
port=${2:-18680}
rw=$port wd=$((port + 1))
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/webdoom-compare.XXXXXX)
(cd "$repo" && go build -o "$work/rewind" ./cmd/rewind)
"$work/rewind" webdoom --dir "$tree" --host 127.0.0.1 --port "$rw" --quiet >"$work/rewind.log" 2>&1 &
p1=$!
(cd "$tree" && DOOM_HOST=127.0.0.1 DOOM_PORT=$wd exec node server/serve.js >"$work/webdoom.log" 2>&1) &
p2=$!
trap 'kill $p1 $p2 2>/dev/null; wait 2>/dev/null || true' EXIT
for p in $rw $wd; do
  for _ in $(seq 1 100); do curl -fs -o /dev/null "http://127.0.0.1:$p/api/wads" && break; sleep 0.1; done
done
zero=$(printf '0%.0s' $(seq 64))
head -c 300 /dev/zero | tr '\0' '\7' >"$work/demo"
python3 -c "print('{\"tics\":3,\"trace\":[' + '0,'*200000 + '0]}', end='')" >"$work/bigtrace"
head -c 4194305 /dev/zero | tr '\0' ' ' >"$work/bigbody"
id=$(curl -s -X POST --data-binary @"$work/demo" "http://127.0.0.1:$rw/api/demos?wad=doom.wad" | sed 's/.*"id":"\([0-9a-f]*\)".*/\1/')
curl -s -o /dev/null -X POST --data-binary @"$work/demo" "http://127.0.0.1:$wd/api/demos?wad=doom.wad"
# method path body(- none, @file, or literal)
reqs=$(
  for f in $(cd "$tree/client" && find . -type f | sed 's|^\.||' | sort); do echo "GET $f -"; done
  cat <<REQS
GET / -
GET /index.html?v=1 -
GET //index.html -
POST /index.html x
GET /engine/doom.js -
GET /engine/doom.wasm -
GET /wads/doom.wad?v=abc -
HEAD /wads/doom.wad -
GET /api/wads -
GET /api/ui-assets -
GET /nope.html -
GET /engine/ -
GET /a..b -
GET /api/demos -
GET /api/demos/stats -
GET /api/demos/$zero -
GET /api/demos/$id -
PUT /api/demos/$id -
HEAD /api/demos/$id -
GET /api/demos/$id/verify -
POST /api/demos/xyz/verify {"tics":3,"trace":[1]}
POST /api/demos/$zero/verify {"tics":3,"trace":[1]}
POST /api/demos/$zero/verify {"tics":1}
POST /api/demos/$zero/verify {
POST /api/demos/$id/verify {"tics":"3","trace":[]}
POST /api/demos/$id/verify {"tics":3,"trace":[1,-1]}
POST /api/demos/$id/verify {"tics":3,"trace":[0.5]}
POST /api/demos/$id/verify @$work/bigtrace
POST /api/demos/$id/verify @$work/bigbody
DELETE /api/demos/$id/verify -
POST /api/demos/$id/verify {"tics":3,"trace":[1,2,3]}
REQS
)
n=0 bad=0 added=0
while read -r m p b; do
  for s in $rw $wd; do
    args=(-s -X "$m" -o "$work/body-$s" -D "$work/head-$s")
    [ "$m" = HEAD ] && { args=(-s -I -o /dev/null -D "$work/head-$s"); : >"$work/body-$s"; }
    [ "$b" != - ] && args+=(--data-binary "$b")
    curl "${args[@]}" "http://127.0.0.1:$s$p" || true
    grep -i '^HTTP\|^content-type\|^cache-control\|^content-length' "$work/head-$s" | tr -d '\r' |
      tr 'A-Z' 'a-z' | sed 's/^http\/[0-9.]* \([0-9]*\).*/status \1/' | sort >"$work/h-$s"
  done
  n=$((n + 1))
  # A difference: a body, or a header WebDoom sends that rewind does not
  # send alike (the status is one). Headers only rewind sends (it adds
  # content-length where WebDoom streams chunked, and text/plain where
  # WebDoom names no type) are counted apart.
  only_wd=$(comm -13 "$work/h-$rw" "$work/h-$wd")
  only_rw=$(comm -23 "$work/h-$rw" "$work/h-$wd")
  [ -n "$only_rw" ] && added=$((added + 1))
  if [ -n "$only_wd" ] || ! cmp -s "$work/body-$rw" "$work/body-$wd"; then
    bad=$((bad + 1))
    echo "$m $p:"
    [ -z "$only_wd" ] || { echo "$only_wd" | sed 's/^/    webdoom: /'; echo "$only_rw" | sed 's/^/    rewind:  /'; }
    cmp -s "$work/body-$rw" "$work/body-$wd" || echo "    bodies differ"
  fi
done <<<"$reqs"
echo "$n requests compared, $bad answered differently; rewind added headers (content-length, text/plain) to $added"
