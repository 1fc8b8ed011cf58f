#!/usr/bin/env bash
# Builds the release web app and prints the first load as a static host
# serves it: every file index.html pulls in (wasm, JS, CSS; the catalogs are
# inside the wasm) and what registering for offline use adds to it (the
# service worker and the web app manifest), each gzip-compressed at level 9.
# Fails above the budget.
#   scripts/size-report.sh            build, then measure
#   scripts/size-report.sh --no-build measure the existing dist/
set -euo pipefail
cd "$(dirname "$0")/.."

# Budget: issue 3 set 400 KB gzipped for the first load. On 2026-11-25 the
# calculator gained vLLM's pool, llama.cpp's buffers and offload planner,
# the VLM importer and torch.compile's terms and measured 436 KB; the budget
# is 440 KB until the config importer loads on demand (it is most of the
# growth and only runs when a config is pasted or fetched), which brings
# the page back under 400 KB (issue 10).
BUDGET_BYTES=440000

if [ "${1:-}" != "--no-build" ]; then
  scripts/build-web.sh >&2
fi
[ -f dist/index.html ] || { echo "size-report: no dist/index.html; build first" >&2; exit 1; }

total=0
printf '%-48s %10s %10s\n' "file" "raw" "gzip -9"
for file in dist/index.html dist/*.js dist/*.wasm dist/*.css dist/manifest.webmanifest; do
  [ -f "$file" ] || continue
  raw=$(wc -c < "$file")
  gz=$(gzip -9 -c "$file" | wc -c)
  total=$((total + gz))
  printf '%-48s %10d %10d\n' "${file#dist/}" "$raw" "$gz"
done
printf '%-48s %10s %10d  (%d.%d KB of %d KB)\n' "first load" "" "$total" \
  $((total / 1000)) $(((total % 1000) / 100)) $((BUDGET_BYTES / 1000))
if [ "$total" -ge "$BUDGET_BYTES" ]; then
  echo "size-report: first load $total bytes is over the $BUDGET_BYTES-byte budget" >&2
  exit 1
fi
