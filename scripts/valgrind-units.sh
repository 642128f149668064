#!/usr/bin/env bash
# valgrind-units.sh: runs every plain (non-sanitizer) C unit test of the build in $1 under valgrind memcheck.
set -uo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$src/build}" && pwd)"
export WL_TEST_DATA="$src/tests/data"
cd "$src"
pass=0; fail=0
for t in $(cd "$build" && ctest -N -L unit | sed -n 's/.*Test *#[0-9]*: unit\.\([a-z]*\)\.\(.*\)$/\1_\2/p'); do
  if valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$build/$t" >"$build/valgrind_$t.log" 2>&1; then
    pass=$((pass + 1)); echo "ok      $t"
  else
    fail=$((fail + 1)); echo "FAILED  $t (see $build/valgrind_$t.log)"
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
