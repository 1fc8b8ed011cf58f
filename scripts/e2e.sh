#!/usr/bin/env bash
# End-to-end test in headless Chromium against the release build served on
# 127.0.0.1 (scripts/e2e.py says what it checks).
#   scripts/e2e.sh            build dist/ first
#   scripts/e2e.sh --no-build use the existing dist/
set -euo pipefail
cd "$(dirname "$0")/.."

WORK=$(mktemp -d)
if [ "${1:-}" != "--no-build" ]; then
  scripts/build-web.sh >&2
fi
[ -f dist/index.html ] || { echo "e2e: no dist/index.html; build first" >&2; exit 1; }
# The same app built for a sub-path, as GitHub Pages serves it (the compiled
# wasm is reused: only wasm-bindgen, wasm-opt and the hook run again).
scripts/build-site.sh /vramfit/ --dist "$WORK/site/vramfit" >&2
# A development build (no --release), which must not register the worker.
PATH="$PWD/node_modules/.bin:$PATH" trunk build --offline --dist "$WORK/dev" >&2
cargo build -q -p vramfit
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# Free ports picked by the OS, bound to loopback only.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
HTTP_PORT=$(free_port)
DRIVER_PORT=$(free_port)

python3 -m http.server --bind 127.0.0.1 --directory dist "$HTTP_PORT" >"$WORK/http.log" 2>&1 &
pids+=($!)
chromedriver --port="$DRIVER_PORT" --allowed-ips=127.0.0.1 >"$WORK/driver.log" 2>&1 &
pids+=($!)

for _ in $(seq 50); do
  if curl -sf "http://127.0.0.1:$HTTP_PORT/" >/dev/null && curl -sf "http://127.0.0.1:$DRIVER_PORT/status" >/dev/null; then
    break
  fi
  sleep 0.2
done

E2E_BASE="http://127.0.0.1:$HTTP_PORT/" \
WEBDRIVER_URL="http://127.0.0.1:$DRIVER_PORT" \
VRAMFIT_BIN="$PWD/target/debug/vramfit" \
E2E_SCENARIO="$PWD/tests/e2e/scenario.json" \
E2E_PROFILE="$WORK/profile" \
  python3 scripts/e2e.py

# Accessibility (axe-core), phone width and both languages, with screenshots
# kept in target/e2e-screenshots (scripts/e2e_a11y.py).
E2E_BASE="http://127.0.0.1:$HTTP_PORT/" \
WEBDRIVER_URL="http://127.0.0.1:$DRIVER_PORT" \
VRAMFIT_BIN="$PWD/target/debug/vramfit" \
E2E_SCENARIO="$PWD/tests/e2e/scenario.json" \
E2E_PROFILE="$WORK/profile-a11y" \
E2E_SHOTS="$PWD/target/e2e-screenshots" \
  python3 scripts/e2e_a11y.py

# Offline, a new release, the sub-path build and embedding (scripts/e2e_pwa.py).
E2E_BASE="http://127.0.0.1:$HTTP_PORT/" \
WEBDRIVER_URL="http://127.0.0.1:$DRIVER_PORT" \
VRAMFIT_BIN="$PWD/target/debug/vramfit" \
E2E_SCENARIO="$PWD/tests/e2e/scenario.json" \
E2E_PROFILE="$WORK/profile-pwa" \
E2E_SITE_ROOT="$WORK/site" \
E2E_WORK="$WORK" \
E2E_RELEASE_DIST="$PWD/dist" \
E2E_DEV_DIST="$WORK/dev" \
  python3 scripts/e2e_pwa.py
