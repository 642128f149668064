#!/usr/bin/env bash
# bench_wasm.sh: milliseconds per model call of greedy generation, native wordlab against the WebAssembly build in Node and in the demo page (Debian's chromium), in one run (bench_wasm.mjs).
# usage: tests/bench/bench_wasm.sh   (env: WL_BUILD_DIR = the build with wordlab and demo/)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
build="${WL_BUILD_DIR:-$src/build}"
source "$src/tests/browser/demo-lib.sh"
wl_serve_demo "$build/demo"
node "$here/bench_wasm.mjs" "$url" "$build/wordlab" "$build/demo" "$tmp/chromium-profile"
