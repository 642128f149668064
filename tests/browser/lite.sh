#!/usr/bin/env bash
# lite.sh: the wordlab Lite browser test: the native kernel runs the lessons (lite_native.py), then Debian's chromium
# runs them in the JupyterLite site served on 127.0.0.1 (lite.mjs) and compares every cell's text/plain outputs.
# usage: tests/browser/lite.sh SITE_DIR quick|full [RESULT.json]   (env: WORDLAB, WL_BUILD_DIR: screenshots go to
#   its browser-lite/)
#   quick: lesson 04 (the site, the kernel, the highlighting, a lesson's outputs, the replies, a live training display
#          and an interrupt) and lesson 02 on the build for engines without relaxed SIMD (its exact fma emulation);
#          about a minute, in `make test`; full: every lesson (`make test-lite`, `make bench`)
set -euo pipefail
source "$(dirname "$0")/paths.sh"
site="${1:?usage: lite.sh SITE_DIR quick|full [RESULT.json]}"
mode="${2:?usage: lite.sh SITE_DIR quick|full [RESULT.json]}"
export WORDLAB="$wordlab"
[ -x "$WORDLAB" ] || { echo "lite test: $WORDLAB is not built" >&2; exit 1; }
[ -f "$site/build.stamp" ] || { echo "lite test: $site is not built (make lite)" >&2; exit 1; }
[ -x /usr/bin/chromium ] || { echo "lite test: /usr/bin/chromium is missing (Debian package chromium)" >&2; exit 1; }
case "$mode" in
    quick) lessons=("$src"/notebooks/0[24]_*.ipynb) shots="$build/browser-lite-quick"
           export WL_LITE_PORTABLE="$(basename "$src"/notebooks/02_*.ipynb)" ;;
    full) lessons=("$src"/notebooks/*.ipynb) shots="$build/browser-lite" ;;
    *) echo "lite test: the mode is quick or full, not $mode" >&2; exit 2 ;;
esac
source "$here/demo-lib.sh"
wl_serve_dir "$site"
# The native kernel without the shared cache of computed results, as the browser kernel runs (it has none).
WORDLAB_CACHE=off /usr/bin/python3 "$here/lite_native.py" "$tmp/native.json" "${lessons[@]}"
rm -rf "$shots"
node "$here/lite.mjs" "$url" "$tmp/native.json" "$shots" "$tmp/chromium-profile" ${3:+"$3"}
