#!/usr/bin/env bash
# Release build of the web app into dist/ (Trunk, wasm-opt -Oz from binaryen 132).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
trunk build --release --offline "$@"
