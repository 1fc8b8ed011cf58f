#!/usr/bin/env bash
# Builds the web calculator and serves it on http://127.0.0.1:8080, installing
# what is missing first (scripts/setup-web.sh). Rebuilds on every change.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-web.sh
export PATH="$PWD/node_modules/.bin:$PATH"
exec trunk serve --release --offline --address 127.0.0.1 --port "${PORT:-8080}" "$@"
