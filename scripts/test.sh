#!/usr/bin/env bash
# Runs every test: installs what is missing (scripts/setup-web.sh), then
# formatting and clippy (native and wasm32, warnings are errors), the native
# tests of the workspace (core: unit, accuracy against measured runs,
# properties; CLI run as a user would; web logic), the packaging of the two
# publishable crates, then the web app's tests in
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
# The crates as they would be published (`--allow-dirty`: a working tree
# with uncommitted edits packages as it is). The core's dry run packages it
# and builds it from the package (its data files inside). The CLI's dry run
# resolves vramfit-core on crates.io, so it can only run once the core is
# published (README: publish the core first); until then, its file list.
cargo publish --dry-run --allow-dirty -p vramfit-core
cargo package --list --allow-dirty -p vramfit >/dev/null
scripts/test-web.sh
# The first-load budget, on the release build the end-to-end test made.
scripts/size-report.sh --no-build
