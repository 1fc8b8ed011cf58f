#!/usr/bin/env bash
# Release build of the web app into dist/ (Trunk, wasm-opt -Oz from binaryen 132):
# the calculator page (index.html, what a link opens first) into dist/, then
# the tools page (tools.html: wizard, OOM doctor, log reader, its own wasm)
# into dist/tools/, then one service worker precaching both.
# Arguments go to both `trunk build`s: --public-url PATH and --dist DIR are
# read here too (the tools page lives at PATH/tools/ and DIR/tools/).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"

dist=dist
public_url=./
rest=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dist) dist="$2"; shift 2 ;;
    --dist=*) dist="${1#--dist=}"; shift ;;
    --public-url) public_url="$2"; shift 2 ;;
    --public-url=*) public_url="${1#--public-url=}"; shift ;;
    *) rest+=("$1"); shift ;;
  esac
done
case "$public_url" in
  /*) tools_url="${public_url%/}/tools/" ;;
  *) tools_url=./ ;;
esac

trunk build --release --offline --dist "$dist" --public-url "$public_url" ${rest[@]+"${rest[@]}"} index.html
trunk build --release --offline --dist "$dist/tools" --public-url "$tools_url" ${rest[@]+"${rest[@]}"} tools.html
# One worker and one manifest, at the root: the tools build's own are dropped,
# and the root's precache list is written again to include tools/.
rm -f "$dist/tools/sw.js" "$dist/tools/manifest.webmanifest"
TRUNK_STAGING_DIR="$dist" TRUNK_PUBLIC_URL="$public_url" TRUNK_PROFILE=release \
  TRUNK_SOURCE_DIR="$PWD" python3 scripts/precache.py
