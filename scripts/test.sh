#!/usr/bin/env bash
# Runs every test of the workspace: core (unit, accuracy against measured
# runs, properties), CLI (commands run as a user would), on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo is missing: install Rust from https://rustup.rs" >&2
    exit 1
fi

cargo test --workspace --all-targets
