#!/usr/bin/env bash
# run.sh: runs every fuzz target built in $1 on its seed corpus: `run.sh DIR runs N` or `run.sh DIR seconds N`.
# `runs` (the smoke run of make test) is the same on every run: a fixed seed, mutating the seeds alone in a fresh
# folder. `seconds` (make fuzz) explores anew each time and keeps what it finds in DIR/corpus_NAME.
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
out="$1"; mode="${2:-runs}"; n="${3:-3000}"
status=0
for t in "$out"/fuzz_*; do
  [ -x "$t" ] || continue
  name="$(basename "$t")"; name="${name#fuzz_}"
  seeds="$src/tests/fuzz/corpus/$name"
  if [ "$mode" = seconds ]; then
    limit=(-max_total_time="$n"); work="$out/corpus_$name"
  else
    limit=(-runs="$n" -seed=1); work="$out/smoke_$name"; rm -rf "$work"
  fi
  mkdir -p "$work"
  if "$t" "${limit[@]}" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$out/$name-" "$work" "$seeds" >"$out/$name.log" 2>&1; then
    echo "fuzz_$name: $(grep -m1 -o 'stat::number_of_executed_units: [0-9]*' "$out/$name.log" | awk '{print $2}') inputs, no crash"
  else
    echo "fuzz_$name: FAILED (see $out/$name.log)"; tail -30 "$out/$name.log"; status=1
  fi
done
exit $status
