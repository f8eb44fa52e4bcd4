#!/bin/sh
# Builds the three example game modules (examples/modules: C, Rust,
# AssemblyScript) in place, each with its own build.sh and pinned
# toolchain. The built .wasm files are checked in; examples/modules'
# TestModulesRebuild rebuilds them into a temporary directory and compares
# the bytes. Toolchains: apt-get install clang lld rustc
# libstd-rust-dev-wasm32, and `npm ci` in examples/modules/assemblyscript.
set -eu
cd "$(dirname "$0")/../examples/modules"
rc=0
for lang in c rust assemblyscript; do
	if "$lang/build.sh"; then
		echo "built $(ls "$lang"/*.wasm)"
	else
		rc=1
	fi
done
exit "$rc"
