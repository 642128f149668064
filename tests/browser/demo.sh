#!/usr/bin/env bash
# demo.sh: the browser demo test: serves the built page (build/demo) on 127.0.0.1 and drives Debian's chromium through playwright-core (demo.mjs).
# usage: tests/browser/demo.sh DEMO_DIR   (env: WORDLAB = the native program, WL_BUILD_DIR = where the screenshot goes)
set -euo pipefail
source "$(dirname "$0")/paths.sh"
demo="${1:?usage: demo.sh DEMO_DIR}"
shot="$build/demo-page.png"

# Every tool must be there: a missing one fails the test, it is never skipped.
command -v npm >/dev/null || { echo "demo test: npm is missing (scripts/setup-deps.sh installs it)" >&2; exit 1; }
[ -x "$wordlab" ] || { echo "demo test: $wordlab is not built" >&2; exit 1; }
for f in index.html demo-data.json artifacts/vocab.json; do
    [ -f "$demo/$f" ] || { echo "demo test: $demo/$f is missing (the wasm_demo target builds it)" >&2; exit 1; }
done
source "$here/demo-lib.sh"
wl_serve_demo "$demo"

rm -f "$shot"
node "$here/demo.mjs" "$url" "$shot" "$tmp/chromium-profile" "$wordlab" "$demo"
[ -s "$shot" ] || { echo "demo test: no screenshot at $shot" >&2; exit 1; }
