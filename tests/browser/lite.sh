#!/usr/bin/env bash
# lite.sh: the wordlab Lite browser test: the native kernel runs the lessons (lite_native.py), then Debian's chromium
# runs them in the JupyterLite site served on 127.0.0.1 (lite.mjs) and compares every cell's text/plain outputs.
# usage: tests/browser/lite.sh SITE_DIR [RESULT.json]   (env: WORDLAB, WL_BUILD_DIR: screenshots go to its browser-lite/)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
site="${1:?usage: lite.sh SITE_DIR [RESULT.json]}"
build="${WL_BUILD_DIR:-$src/build}"
export WORDLAB="${WORDLAB:-$build/wordlab}"
[ -x "$WORDLAB" ] || { echo "lite test: $WORDLAB is not built" >&2; exit 1; }
[ -f "$site/build.stamp" ] || { echo "lite test: $site is not built (make lite)" >&2; exit 1; }
[ -x /usr/bin/chromium ] || { echo "lite test: /usr/bin/chromium is missing (Debian package chromium)" >&2; exit 1; }
source "$here/demo-lib.sh"
wl_serve_dir "$site"
/usr/bin/python3 "$here/lite_native.py" "$tmp/native.json" "$src"/notebooks/*.ipynb
rm -rf "$build/browser-lite"
node "$here/lite.mjs" "$url" "$tmp/native.json" "$build/browser-lite" "$tmp/chromium-profile" ${2:+"$2"}
