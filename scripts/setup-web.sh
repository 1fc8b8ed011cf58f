#!/usr/bin/env bash
# Installs what building and testing the web app needs, skipping what is
# already there: the wasm32 target, Trunk, wasm-bindgen-cli (the version
# pinned in Cargo.toml), binaryen's wasm-opt (npm, in ./node_modules) and
# Chromium with chromedriver (apt) for the browser tests; `--no-browser`
# leaves Chromium out (building the site needs none: the release workflow).
set -euo pipefail
cd "$(dirname "$0")/.."
BROWSER=1
[ "${1:-}" = "--no-browser" ] && BROWSER=0

# Trunk 0.21.14: the newest that builds with the workspace's rustc (0.22 needs newer).
TRUNK_VERSION=0.21.14
# Must equal `wasm-bindgen = "=..."` in Cargo.toml (checked below).
WASM_BINDGEN_VERSION=0.2.130
# binaryen 132 from npm: Debian's binaryen 108 writes a module Chromium rejects.
BINARYEN_VERSION=132
# axe-core (npm): the accessibility check of the end-to-end test (scripts/e2e_a11y.py).
AXE_VERSION=4.14.1

pinned=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)
if [ "$pinned" != "$WASM_BINDGEN_VERSION" ]; then
  echo "setup-web: Cargo.toml pins wasm-bindgen $pinned but this script installs $WASM_BINDGEN_VERSION" >&2
  exit 1
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

# --debug: an unoptimized build compiles in about a third of the time on a
# 2-core machine; these tools only orchestrate, so their own speed hardly matters.
if ! trunk --version 2>/dev/null | grep -q "$TRUNK_VERSION"; then
  cargo install --debug --locked "trunk@$TRUNK_VERSION"
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q "$WASM_BINDGEN_VERSION"; then
  # Not --locked: the locked dependency set of this release fails to build here.
  cargo install --debug "wasm-bindgen-cli@$WASM_BINDGEN_VERSION"
fi

# One npm command for both: an --no-save install prunes packages it was not given.
if ! node_modules/.bin/wasm-opt --version 2>/dev/null | grep -q "version $BINARYEN_VERSION" \
  || ! grep -qs "\"version\": \"$AXE_VERSION\"" node_modules/axe-core/package.json; then
  npm install --no-save --no-audit --no-fund "binaryen@$BINARYEN_VERSION" "axe-core@$AXE_VERSION"
fi

if [ "$BROWSER" = 1 ] && { ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; }; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update
  $SUDO apt-get install -y chromium chromium-driver
fi

echo "setup-web: rustup target, trunk $TRUNK_VERSION, wasm-bindgen $WASM_BINDGEN_VERSION, wasm-opt $BINARYEN_VERSION, axe-core $AXE_VERSION, chromium: ready"
