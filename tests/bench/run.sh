#!/usr/bin/env bash
# run.sh: runs every benchmark in tests/bench (bench_*.sh, bench_*.py) against the build in $1; each prints its ratios.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:-build}" && pwd)"
export WORDLAB="$build/wordlab" WL_BUILD_DIR="$build" WL_SOURCE_DIR="$(cd "$here/../.." && pwd)"
status=0
for b in "$here"/bench_*; do
  echo "== $(basename "$b")"
  case "$b" in
    *.py) /usr/bin/python3 "$b" || status=1 ;;
    *.sh) bash "$b" || status=1 ;;
  esac
done
exit $status
