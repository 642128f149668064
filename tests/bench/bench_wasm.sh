#!/usr/bin/env bash
# bench_wasm.sh: milliseconds per model call of greedy generation, native wordlab against the WebAssembly build in Node and in the demo page (Debian's chromium), in one run (bench_wasm.mjs).
# usage: tests/bench/bench_wasm.sh   (env: WL_BUILD_DIR = the build with wordlab and demo/)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
build="${WL_BUILD_DIR:-$src/build}"
demo="$build/demo"
[ -f "$demo/wordlab-wasm.wasm" ] || { echo "bench_wasm: $demo is not built (the wasm_demo target)" >&2; exit 1; }
[ -x /usr/bin/chromium ] || { echo "bench_wasm: /usr/bin/chromium is missing" >&2; exit 1; }
if [ ! -f "$src/tests/browser/node_modules/playwright-core/package.json" ]; then
    (cd "$src/tests/browser" && npm ci --no-audit --no-fund --loglevel=error)
fi
tmp="$(mktemp -d /tmp/wordlab-benchwasm-XXXXXX)"
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
: >"$tmp/server.log"
/usr/bin/python3 "$src/scripts/serve-demo.py" "$demo" 0 >>"$tmp/server.log" 2>&1 &
server=$!
url=""
until [ -n "$url" ]; do
    url="$(sed -nE 's|.* at (http://127\.0\.0\.1:[0-9]+/).*|\1|p' "$tmp/server.log")"
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$tmp/server.log" >&2; exit 1; }
    sleep 0.05
done
node "$here/bench_wasm.mjs" "$url" "$build/wordlab" "$demo" "$tmp/chromium-profile" "$src/tests/browser/node_modules"
