#!/usr/bin/env bash
# bench_lite.sh: wordlab Lite against the native kernel in one run: each lesson's Run All (the Lite browser test,
# tests/browser/lite.sh), a training step and a generated token (bench_lite.wlab; native with 1 and 2 OpenBLAS
# threads, fastest of 3), and the site's first-load size before and after the checkpoints (bench_lite.mjs).
# usage: tests/bench/bench_lite.sh   (env: WL_BUILD_DIR = the build with wordlab and lite/)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
build="${WL_BUILD_DIR:-$src/build}"
lessons="$(mktemp /tmp/wordlab-bench-lite-XXXXXX.json)"
bash "$src/tests/browser/lite.sh" "$build/lite" full "$lessons" >"$lessons.log" 2>&1 ||
    { cat "$lessons.log" >&2; echo "bench_lite: the Lite browser test failed" >&2; exit 1; }
grep -E 'Run All|within|^lite:' "$lessons.log"   # each lesson's time and the outputs not equal to native's
rm -f "$lessons.log"
source "$src/tests/browser/demo-lib.sh"
wl_serve_dir "$build/lite"
mv "$lessons" "$tmp/lessons.json"
# Native: ms per training step (the fastest 16-step run less the fastest 4-step run, over 12) and per generated
# token (the fastest), of 3 runs, per thread count.
for threads in 1 2; do
    for _ in 1 2 3; do
        OPENBLAS_NUM_THREADS=$threads WORDLAB_ARTIFACTS="$src/share/artifacts" "$build/wordlab" run "$here/bench_lite.wlab" | sed -n 's/^bench //p'
    done | awk -v t="$threads" '{if (NR == 1 || $1 < a) a = $1; if (NR == 1 || $2 < b) b = $2; g = $3 / $4 * 1000; if (NR == 1 || g < bg) bg = g}
        END {printf "\"%s\": [%f, %f]", t, (b - a) / 12 * 1000, bg}'
    echo
done | paste -sd, | sed 's/^/{/; s/$/}/' >"$tmp/native.json"
node "$here/bench_lite.mjs" "$url" "$tmp/chromium-profile" "$tmp/native.json" "$tmp/lessons.json"
