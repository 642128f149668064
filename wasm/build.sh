#!/usr/bin/env bash
# build.sh: the WebAssembly build of the runtime with Debian's emscripten: wordlab-wasm.mjs and wordlab-wasm.wasm in OUT.
# usage: wasm/build.sh DEBIAN_SRC OBJ OUT FILE...
#   DEBIAN_SRC  what scripts/debian-sources.sh unpacked: the sources of cjson, zlib and utf8proc, the libraries
#               that the native build links
#   OBJ         where the objects go (the libraries' are compiled again only when their sources change)
#   FILE...     the C files, linked in this order: CMakeLists.txt's WL_WASM_LIB_SRCS (under DEBIAN_SRC, compiled
#               as their own builds compile them) and WL_WASM_SRCS (the project's, with its warnings as errors)
set -euo pipefail
deb="${1:?usage: build.sh DEBIAN_SRC OBJ OUT FILE...}" obj="${2:?}" out="${3:?}"
shift 3
[ $# -gt 0 ] || { echo "wasm build: no files given (CMakeLists.txt passes them)" >&2; exit 1; }
command -v emcc >/dev/null || { echo "wasm build: emcc is missing (Debian package emscripten; scripts/setup-deps.sh installs it)" >&2; exit 1; }
[ -f "$deb/.versions" ] || { echo "wasm build: no Debian sources in $deb (scripts/debian-sources.sh unpacks them)" >&2; exit 1; }
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

# The project's include path: the libraries' headers and the folder of every project file (runtime/nn/portable's
# cblas.h is the only one there is).
inc=(-I"$deb/include" -I"$deb/cjson" -I"$deb/utf8proc" -I"$deb/zlib")
for f in "$@"; do
    case "$f" in "$deb"/*) ;; *) d="-I$(dirname "$f")"; [[ " ${inc[*]} " == *" $d "* ]] || inc+=("$d") ;; esac
done
flags=(-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -DUTF8PROC_STATIC "${inc[@]}")
objs=()
for f in "$@"; do
    name="$(basename "$(dirname "$f")")_$(basename "$f" .c)"
    case "$f" in
        "$deb"/cjson/*) compile "$f" "$name" -I"$deb/cjson" ;;
        "$deb"/utf8proc/*) compile "$f" "$name" -I"$deb/utf8proc" -DUTF8PROC_STATIC ;;
        "$deb"/zlib/*) compile "$f" "$name" -I"$deb/zlib" -DHAVE_UNISTD_H -DHAVE_STDARG_H ;;
        "$deb"/*) echo "wasm build: no flags for the library file $f" >&2; exit 1 ;;
        # Project headers always count as changed: its files are compiled every time.
        *) WL_WASM_FULL=1 compile "$f" "$name" "${flags[@]}" ;;
    esac
    objs+=("$obj/$name.o")
done

emcc "${common[@]}" "${objs[@]}" -o "$out/wordlab-wasm.mjs" \
    -sMODULARIZE=1 -sEXPORT_ES6=1 -sENVIRONMENT=web -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=33554432 \
    -sFORCE_FILESYSTEM=1 -sEXPORTED_FUNCTIONS=_malloc,_free \
    -sEXPORTED_RUNTIME_METHODS=FS,ccall,cwrap,UTF8ToString,stringToUTF8,lengthBytesUTF8
echo "wasm build: $out/wordlab-wasm.mjs $(stat -c %s "$out/wordlab-wasm.wasm") bytes of wasm${simd:+ (SIMD128)}"
