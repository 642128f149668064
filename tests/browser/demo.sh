#!/usr/bin/env bash
# demo.sh: the browser demo test: serves the built page (build/demo) on 127.0.0.1 and drives Debian's chromium through playwright-core (demo.mjs).
# usage: tests/browser/demo.sh DEMO_DIR   (env: WORDLAB = the native program, WL_BUILD_DIR = where the screenshot goes)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
demo="${1:?usage: demo.sh DEMO_DIR}"
build="${WL_BUILD_DIR:-$src/build}"
wordlab="${WORDLAB:-$build/wordlab}"
shot="$build/demo-page.png"

# Every tool must be there: a missing one fails the test, it is never skipped.
for tool in node npm /usr/bin/python3; do
    command -v "$tool" >/dev/null || { echo "demo test: $tool is missing (scripts/setup-deps.sh installs it)" >&2; exit 1; }
done
[ -x /usr/bin/chromium ] || { echo "demo test: /usr/bin/chromium is missing (Debian package chromium)" >&2; exit 1; }
[ -x "$wordlab" ] || { echo "demo test: $wordlab is not built" >&2; exit 1; }
for f in index.html wordlab-wasm.wasm demo-data.json artifacts/vocab.json; do
    [ -f "$demo/$f" ] || { echo "demo test: $demo/$f is missing (the wasm_demo target builds it)" >&2; exit 1; }
done

# playwright-core from the pinned package-lock.json, installed once into tests/browser/node_modules.
if [ ! -f "$here/node_modules/playwright-core/package.json" ]; then
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi

tmp="$(mktemp -d /tmp/wordlab-demo-XXXXXX)"
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

: >"$tmp/server.log"
/usr/bin/python3 "$src/scripts/serve-demo.py" "$demo" 0 >>"$tmp/server.log" 2>&1 &
server=$!
# The server prints its URL once it listens.
url=""
until [ -n "$url" ]; do
    url="$(sed -nE 's|.* at (http://127\.0\.0\.1:[0-9]+/).*|\1|p' "$tmp/server.log")"
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || { echo "demo test: the server exited:" >&2; cat "$tmp/server.log" >&2; exit 1; }
    sleep 0.05
done

rm -f "$shot"
node "$here/demo.mjs" "$url" "$shot" "$tmp/chromium-profile" "$wordlab" "$demo"
[ -s "$shot" ] || { echo "demo test: no screenshot at $shot" >&2; exit 1; }
