#!/usr/bin/env bash
# build.sh: the WebAssembly build of the runtime with Debian's emscripten: wordlab-wasm.mjs and wordlab-wasm.wasm in OUT.
# usage: wasm/build.sh SRC DEBIAN_SRC OBJ OUT
#   SRC         the source tree; its runtime text, vocabulary, io and model code is compiled as it is, with the
#               portable CBLAS subset of runtime/nn/portable in place of OpenBLAS
#   DEBIAN_SRC  what scripts/debian-sources.sh unpacked: the sources of cjson, zlib and utf8proc, the libraries
#               that the native build links
#   OBJ         where the objects go (the libraries' are compiled again only when their sources change)
set -euo pipefail
src="${1:?usage: build.sh SRC DEBIAN_SRC OBJ OUT}" deb="${2:?}" obj="${3:?}" out="${4:?}"
command -v emcc >/dev/null || { echo "wasm build: emcc is missing (Debian package emscripten; scripts/setup-deps.sh installs it)" >&2; exit 1; }
[ -f "$deb/.versions" ] || { echo "wasm build: no Debian sources in $deb (scripts/setup-deps.sh runs scripts/debian-sources.sh)" >&2; exit 1; }
# Debian's emcc runs its JavaScript tools with the node modules of Debian's node-* packages (acorn).
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

simd=()
if echo 'int main(void){return 0;}' | emcc -msimd128 -x c -c -o /dev/null - 2>/dev/null; then simd=(-msimd128); fi
common=(-O3 "${simd[@]}" -fno-math-errno)
mkdir -p "$obj" "$out"

# Compiles $1 into OBJ/$2.o unless that object is newer than the source and this script.
compile() {
    local o="$obj/$2.o" c="$1"
    shift 2
    if [ "$o" -nt "$c" ] && [ "$o" -nt "$0" ] && [ -z "${WL_WASM_FULL:-}" ]; then return 0; fi
    emcc "${common[@]}" "$@" -c "$c" -o "$o.tmp" && mv "$o.tmp" "$o"
}

objs=()
# The libraries, as their own builds compile them (warnings are theirs, not errors here).
for f in cJSON; do compile "$deb/cjson/$f.c" "cjson_$f" -I"$deb/cjson"; objs+=("$obj/cjson_$f.o"); done
compile "$deb/utf8proc/utf8proc.c" utf8proc -I"$deb/utf8proc" -DUTF8PROC_STATIC
objs+=("$obj/utf8proc.o")
for f in adler32 crc32 deflate inffast inflate inftrees trees zutil; do
    compile "$deb/zlib/$f.c" "zlib_$f" -I"$deb/zlib" -DHAVE_UNISTD_H -DHAVE_STDARG_H
    objs+=("$obj/zlib_$f.o")
done

# The runtime, with the project's warnings as errors. Project headers always count as changed: recompile all.
inc=(-I"$src/runtime/nn/portable" -I"$deb/include" -I"$deb/cjson" -I"$deb/utf8proc" -I"$deb/zlib")
for m in core text corpus io nn; do inc+=(-I"$src/runtime/$m"); done
flags=(-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -DUTF8PROC_STATIC "${inc[@]}")
for f in core/wl_core core/wl_buf core/wl_utf8 text/wl_text corpus/wl_vocab corpus/wl_context io/wl_npz io/wl_zip nn/wl_model nn/wl_layers \
         nn/wl_gemm nn/wl_rng nn/wl_pool nn/wl_generate nn/wl_checkpoint nn/portable/wl_cblas; do
    name="${f//\//_}"
    WL_WASM_FULL=1 compile "$src/runtime/$f.c" "$name" "${flags[@]}"
    objs+=("$obj/$name.o")
done
WL_WASM_FULL=1 compile "$src/wasm/wl_wasm.c" wl_wasm "${flags[@]}"
objs+=("$obj/wl_wasm.o")

emcc "${common[@]}" "${objs[@]}" -o "$out/wordlab-wasm.mjs" \
    -sMODULARIZE=1 -sEXPORT_ES6=1 -sENVIRONMENT=web -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=33554432 \
    -sFORCE_FILESYSTEM=1 -sEXPORTED_FUNCTIONS=_malloc,_free \
    -sEXPORTED_RUNTIME_METHODS=FS,ccall,cwrap,UTF8ToString,stringToUTF8,lengthBytesUTF8
echo "wasm build: $out/wordlab-wasm.mjs $(stat -c %s "$out/wordlab-wasm.wasm") bytes of wasm${simd:+ (SIMD128)}"
