#!/usr/bin/env bash
# build.sh: builds every libFuzzer target tests/fuzz/fuzz_*.c with clang (ASan + UBSan) into the folder $1.
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$src/build/fuzz}"
mkdir -p "$out/obj"
CC="${CC_FUZZ:-clang}"
flags=(-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined)
incs=()
for d in "$src"/runtime/*/; do incs+=(-I"$d"); done
read -r -a pc_cflags <<<"$(pkg-config --cflags libutf8proc libcjson openblas)"
objs=()
for c in "$src"/runtime/*/*.c; do
  o="$out/obj/$(basename "$(dirname "$c")")_$(basename "$c" .c).o"
  if [ ! -f "$o" ] || [ "$c" -nt "$o" ]; then
    "$CC" "${flags[@]}" "${incs[@]}" "${pc_cflags[@]}" -c "$c" -o "$o"
  fi
  objs+=("$o")
done
rm -f "$out/libwl_fuzz.a"
ar rcs "$out/libwl_fuzz.a" "${objs[@]}"
read -r -a pc_libs <<<"$(pkg-config --libs libutf8proc libcjson openblas)"
for f in "$src"/tests/fuzz/fuzz_*.c; do
  name="$(basename "$f" .c)"
  "$CC" "${flags[@]}" -fsanitize=fuzzer "${incs[@]}" "${pc_cflags[@]}" "$f" "$out/libwl_fuzz.a" \
    "${pc_libs[@]}" -lcrypto -lz -lm -lpthread -o "$out/$name"
  echo "built $out/$name"
done
