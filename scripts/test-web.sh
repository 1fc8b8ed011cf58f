#!/usr/bin/env bash
# The web app's browser tests: wasm-bindgen-test in headless Chromium
# (tests/web.rs; capabilities in webdriver.json), then the end-to-end test of
# the release build (scripts/e2e.sh). Native tests run with `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
# Generous: the first run in a cold browser compiles the test module.
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-120}"
# Chromium started by chromedriver leaves a ~100 MB profile in $TMPDIR when the
# runner ends it; give it a scratch folder removed on exit, so repeated runs
# do not fill the disk.
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
export TMPDIR="$SCRATCH"
# A starved headless renderer can miss chromedriver's 30 s deadline ("Timed
# out receiving message from renderer") on a loaded machine: one retry; a
# real failure fails twice.
# A fake Hugging Face Hub on loopback for the Hub tests (tests/web_hub.rs reads
# its address at build time): the tests never reach the real Hub.
HUB_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 scripts/fake_hub.py "$HUB_PORT" &
HUB_PID=$!
trap 'kill "$HUB_PID" 2>/dev/null; rm -rf "$SCRATCH"' EXIT
export VRAMFIT_FAKE_HUB="http://127.0.0.1:$HUB_PORT"
for suite in web web_inputs web_hub; do
    if ! cargo test --target wasm32-unknown-unknown -p vramfit-web --test "$suite"; then
        echo "test-web: the browser tests ($suite) failed; running them once more" >&2
        cargo test --target wasm32-unknown-unknown -p vramfit-web --test "$suite"
    fi
done
scripts/e2e.sh "$@"
