#!/bin/sh
# Builds dodge.wasm from dodge.ts with the AssemblyScript compiler pinned
# in package-lock.json (run `npm ci` here first): the stub runtime, abort
# replaced by a trap (so nothing is imported), 128 KiB of memory that
# cannot grow. The same compiler gives the same bytes.
# Usage: build.sh [OUT] (default: dodge.wasm beside this script).
# Exits 3, saying so, when node or the pinned compiler is missing.
set -eu
cd "$(dirname "$0")"
out=${1:-dodge.wasm}
asc=node_modules/assemblyscript/bin/asc.js
if ! command -v node >/dev/null 2>&1 || [ ! -f "$asc" ]; then
	echo "build.sh: node and the pinned AssemblyScript compiler (npm ci in $PWD) are needed to build dodge.wasm" >&2
	exit 3
fi
node "$asc" dodge.ts --runtime stub -O3 --noAssert --use abort=dodge/trap \
	--initialMemory 2 --maximumMemory 2 -o "$out"
