#!/bin/sh
# run.sh FULL.wasm JOIN.wasm [N]: compiles (WebAssembly.compileStreaming,
# from bytes in memory) and starts (instantiate, Go's run until the
# Worker's main posts "ready") each of two builds of the page's Worker
# N times (default 9), alternating, in headless Chromium; prints the
# medians and every sample (docs/benchmarks.md, "What a joining tab's
# Worker needs").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
cp "$here/index.html" "$here/serve.py" "$dir"
cp "$1" "$dir/full.wasm"
cp "$2" "$dir/join.wasm"
cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$dir"
cd "$dir"
python3 serve.py . >port.txt &
sp=$!
while [ ! -s port.txt ]; do sleep 0.1; done
port=$(head -1 port.txt)
mkdir prof
chromium --headless --no-sandbox --disable-gpu --user-data-dir="$dir/prof" --enable-logging=stderr --v=0 \
  "http://127.0.0.1:$port/index.html?n=${3:-9}" >out.txt 2>&1 &
cp=$!
i=0
while ! grep -q "RESULT DONE\|RESULT ERROR" out.txt && [ $i -lt 600 ]; do sleep 0.5; i=$((i + 1)); done
kill $cp $sp
wait $cp $sp 2>/dev/null || true
grep RESULT out.txt | sed 's/.*"RESULT/RESULT/; s/", source.*//'
cd / && rm -rf "$dir"
