#!/usr/bin/env bash
# Runs every test: installs what is missing (scripts/setup-web.sh), then
# formatting and clippy (native and wasm32, warnings are errors), the native
# tests of the workspace (core: unit, accuracy against measured runs,
# properties; CLI run as a user would; web logic), then the web app's tests in
# headless Chromium (wasm-bindgen-test, and end-to-end against the release
# build served on 127.0.0.1).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo is missing: install Rust from https://rustup.rs" >&2
    exit 1
fi

scripts/setup-web.sh
# Lints first (the workspace's [lints] table and clippy.toml): a warning fails.
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy --target wasm32-unknown-unknown -p vramfit-web --all-targets -- -D warnings
cargo test --workspace --all-targets
scripts/test-web.sh
