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
# Objects are rebuilt when their source or any runtime header is newer; compiled $(nproc) at a time.
newest_h="$(ls -t "$src"/runtime/*/*.h | head -1)"
objs=(); pids=()
for c in "$src"/runtime/*/*.c; do
  o="$out/obj/$(basename "$(dirname "$c")")_$(basename "$c" .c).o"
  # The sequence lesson's vector code is written for gcc (clang 14 refuses its 4 x double vector
  # arguments without AVX and misnames its target_clones ifunc); gcc compiles it, uninstrumented:
  # its commands take only numbers.
  cc=("$CC" "${flags[@]}")
  case "$c" in */runtime/seq/*) cc=("${CC_SEQ:-gcc}" -g -O1 -std=c11 -D_GNU_SOURCE) ;; esac
  if [ ! -f "$o" ] || [ "$c" -nt "$o" ] || [ "$newest_h" -nt "$o" ]; then
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
    "${cc[@]}" "${incs[@]}" "${pc_cflags[@]}" -c "$c" -o "$o" &
    pids+=($!)
  fi
  objs+=("$o")
done
for p in "${pids[@]}"; do wait "$p"; done   # set -e: a failed compile ends the script
rm -f "$out/libwl_fuzz.a"
ar rcs "$out/libwl_fuzz.a" "${objs[@]}"
read -r -a pc_libs <<<"$(pkg-config --libs libutf8proc libcjson openblas)"
# A target may name more sources (`// wl-fuzz-extra: kernel/kernel_wire.c`, paths from the repository
# root; their folders go on the include path) and libraries (`// wl-fuzz-libs: -lzmq`).
for f in "$src"/tests/fuzz/fuzz_*.c; do
  name="$(basename "$f" .c)"
  extra=(); xincs=()
  for e in $(sed -n 's|^// wl-fuzz-extra: *||p' "$f"); do extra+=("$src/$e"); xincs+=(-I"$src/$(dirname "$e")"); done
  read -r -a xlibs <<<"$(sed -n 's|^// wl-fuzz-libs: *||p' "$f" | tr '\n' ' ')"
  "$CC" "${flags[@]}" -fsanitize=fuzzer "${incs[@]}" "${xincs[@]}" "${pc_cflags[@]}" "$f" "${extra[@]}" "$out/libwl_fuzz.a" \
    "${pc_libs[@]}" "${xlibs[@]}" -lcrypto -lz -lm -lpthread -o "$out/$name"
  echo "built $out/$name"
done
