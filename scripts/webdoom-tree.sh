#!/usr/bin/env bash
# Builds a WebDoom tree that `rewind webdoom --dir TREE` can serve to
# WebDoom's own browser client and tests, outside this repository: none of
# WebDoom's code, assets or build output belongs in rewind.
#
#   scripts/webdoom-tree.sh SRC [TREE]
#
# SRC is a WebDoom checkout or a bare git directory of
# github.com/mattafaak/webdoom; TREE defaults to a new temporary directory.
# Needs Debian's emscripten (3.1.6), nodejs and freedoom. The engine is
# built as WebDoom's engine/Makefile says, with what emscripten 3.1.6 needs:
# -sTOTAL_STACK for -sSTACK_SIZE, no --closure, -sINITIAL_MEMORY=96MB (the
# IWAD is loaded into wasm memory), no Node exit/rejection catching.
# freedoom1.wad becomes wads/lib/doom.wad and WebDoom's
# tools/wad-identify.mjs writes wads/manifest.json. Prints the tree's path.
set -euo pipefail
src=${1:?usage: webdoom-tree.sh SRC [TREE]}
tree=${2:-$(mktemp -d /tmp/webdoom-tree.XXXXXX)}
mkdir -p "$tree"
start=$(date +%s)
if git --git-dir="$src" rev-parse --verify -q HEAD >/dev/null 2>&1 && [ ! -d "$src/.git" ]; then
  git --git-dir="$src" archive HEAD | tar -x -C "$tree"
else
  git -C "$src" archive HEAD | tar -x -C "$tree"
fi
mk="$tree/engine/Makefile"
sed -i -e 's/--closure 1//' -e 's/-sSTACK_SIZE=/-sTOTAL_STACK=/' \
  -e 's/-sINITIAL_MEMORY=32MB/-sINITIAL_MEMORY=96MB -sNODEJS_CATCH_EXIT=0 -sNODEJS_CATCH_REJECTION=0/' "$mk"
export NODE_PATH=/usr/share/nodejs
make -C "$tree/engine" -j"$(nproc)" >"$tree/build.log" 2>&1 || { tail -30 "$tree/build.log" >&2; exit 1; }
mkdir -p "$tree/wads/lib"
cp /usr/share/games/doom/freedoom1.wad "$tree/wads/lib/doom.wad"
node "$tree/tools/wad-identify.mjs" "$tree/wads/lib" "$tree/wads/manifest.json" >>"$tree/build.log" 2>&1
echo "webdoom-tree: built $tree in $(( $(date +%s) - start )) s" >&2
echo "$tree"
