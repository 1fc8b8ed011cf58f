#!/usr/bin/env bash
# Builds the web app (the calculator page and the tools page, scripts/build-web.sh)
# and serves it on http://127.0.0.1:8080, installing what is missing first
# (scripts/setup-web.sh). Run it again after a change.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-web.sh
scripts/build-web.sh "$@"
echo "serving dist/ on http://127.0.0.1:${PORT:-8080}/"
exec python3 -m http.server --bind 127.0.0.1 --directory dist "${PORT:-8080}"
