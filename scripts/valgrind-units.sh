#!/usr/bin/env bash
# valgrind-units.sh: runs every plain (non-sanitizer) C unit test of the build in $1 under valgrind memcheck,
# $VALGRIND_JOBS (default: the number of CPUs) at a time; any memcheck error or definite leak fails.
set -uo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$src/build}" && pwd)"
export WL_TEST_DATA="$src/tests/data" build
# One BLAS thread: OpenBLAS's idle workers spin, and valgrind runs one thread at a time, so with two the
# spinning thread eats most of the time slices (lang_test_doc took hours). Threads are the ASan run's job.
export OPENBLAS_NUM_THREADS=1
cd "$src"
tests=$(cd "$build" && ctest -N -L unit | sed -n 's/.*Test *#[0-9]*: unit\.\([a-z]*\)\.\(.*\)$/\1_\2/p')
run_one() {
  if valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$build/$1" \
      >"$build/valgrind_$1.log" 2>&1; then
    echo "ok      $1"
  else
    echo "FAILED  $1 (see $build/valgrind_$1.log)"
  fi
}
export -f run_one
results=$(printf '%s\n' $tests | xargs -P "${VALGRIND_JOBS:-$(nproc)}" -I{} bash -c 'run_one {}' | tee /dev/stderr)
pass=$(grep -c '^ok' <<<"$results"); fail=$(grep -c '^FAILED' <<<"$results")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
