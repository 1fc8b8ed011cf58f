#!/usr/bin/env bash
# Builds the static site into dist/ for the path it will be served from:
#   scripts/build-site.sh              for the root of a host (https://example.org/)
#   scripts/build-site.sh /vramfit/    for a sub-path (GitHub Pages: https://USER.github.io/vramfit/)
# Asset URLs, the web app manifest's start_url and scope, and the service
# worker's scope all follow the path. With VRAMFIT_SITE_URL set to the full
# address (https://vramfit.github.io/vramfit/), link previews get absolute
# image URLs, which chat apps need. Further arguments go to `trunk build`
# (e.g. --dist DIR). Upload the contents of dist/ as they are.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE_PATH="${1:-/}"
shift || true
case "$BASE_PATH" in
  /*) ;;
  *) echo "build-site: the path must start with /, e.g. /vramfit/" >&2; exit 2 ;;
esac
# Trunk joins asset names straight onto the path: it must end with /.
case "$BASE_PATH" in
  */) ;;
  *) BASE_PATH="$BASE_PATH/" ;;
esac
exec scripts/build-web.sh --public-url "$BASE_PATH" "$@"
