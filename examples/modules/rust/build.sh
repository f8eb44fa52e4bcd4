#!/bin/sh
# Builds puck.wasm from puck.rs with Debian's rustc 1.63 and its
# wasm32-unknown-unknown standard library (apt-get install rustc
# libstd-rust-dev-wasm32), no cargo: no imports, 128 KiB of memory that
# cannot grow, symbols stripped, paths relative. The same compiler gives
# the same bytes: another rustc (rustup's on PATH before /usr/bin) is not
# used unless RUSTC names it and it is 1.63.
# Usage: build.sh [OUT] (default: puck.wasm beside this script).
# Exits 3, saying so, when rustc 1.63 for wasm32 is missing.
set -eu
cd "$(dirname "$0")"
out=${1:-puck.wasm}
rc=
for c in ${RUSTC:-} /usr/bin/rustc rustc; do
	if command -v "$c" >/dev/null 2>&1 && "$c" --version 2>/dev/null | grep -q '^rustc 1\.63\.' &&
		[ -d "$("$c" --print sysroot)/lib/rustlib/wasm32-unknown-unknown" ]; then
		rc=$c
		break
	fi
done
if [ -z "$rc" ]; then
	echo "build.sh: rustc 1.63 with the wasm32-unknown-unknown std (Debian's rustc and libstd-rust-dev-wasm32) is needed to build puck.wasm" >&2
	exit 3
fi
"$rc" --edition 2021 --target wasm32-unknown-unknown --crate-type cdylib \
	-C opt-level=2 -C panic=abort -C debuginfo=0 -C strip=symbols -C codegen-units=1 \
	-C link-arg=-zstack-size=32768 -C link-arg=--initial-memory=131072 -C link-arg=--max-memory=131072 \
	--remap-path-prefix="$PWD"=. \
	-o "$out" puck.rs
