#!/bin/sh
# Builds coins.wasm from coins.c with Debian's clang 14 and wasm-ld 14
# (apt-get install clang lld): no libc, no imports, 128 KiB of memory that
# cannot grow, names stripped. The same compiler gives the same bytes.
# Usage: build.sh [OUT] (default: coins.wasm beside this script).
# Exits 3, saying so, when clang 14 or wasm-ld is missing.
set -eu
cd "$(dirname "$0")"
out=${1:-coins.wasm}
cc=
for c in ${CLANG:-} clang-14 clang; do
	if command -v "$c" >/dev/null 2>&1 && "$c" --version 2>/dev/null | grep -q 'clang version 14\.'; then
		cc=$c
		break
	fi
done
if [ -z "$cc" ] || ! command -v wasm-ld-14 >/dev/null 2>&1 && ! command -v wasm-ld >/dev/null 2>&1; then
	echo "build.sh: clang 14 and wasm-ld (Debian's clang and lld) are needed to build coins.wasm" >&2
	exit 3
fi
"$cc" --target=wasm32 -O2 -nostdlib -ffreestanding -Wall -Wextra -Werror \
	-fdebug-prefix-map="$PWD"=. \
	-Wl,--no-entry -Wl,--strip-all \
	-Wl,-z,stack-size=32768 -Wl,--initial-memory=131072 -Wl,--max-memory=131072 \
	-o "$out" coins.c
