#!/usr/bin/env bash
# debian-sources.sh: unpacks the Debian source packages of the libraries the WebAssembly build compiles in, at the versions of the installed -dev packages, into DIR.
# usage: scripts/debian-sources.sh DIR LIBRARY=DEV_PACKAGE...   (CMakeLists.txt's WL_WASM_LIBS: cjson=libcjson-dev ...)
# The native build links these libraries; the WebAssembly build compiles the same sources with emcc. apt-get
# fetches them from this machine's own Debian archives (its configured sources, as deb-src) with a private
# list directory, so the system's apt configuration is left as it is.
set -euo pipefail
dir="${1:?usage: debian-sources.sh DIR LIBRARY=DEV_PACKAGE...}"
shift
[ $# -gt 0 ] || { echo "debian-sources: no libraries given (usage: debian-sources.sh DIR LIBRARY=DEV_PACKAGE...)" >&2; exit 1; }
declare -A DEV=()
libs=()
for arg in "$@"; do libs+=("${arg%%=*}"); DEV[${arg%%=*}]="${arg#*=}"; done
stamp=""
for src in "${libs[@]}"; do
    ver="$(dpkg-query -W -f='${source:Version}' "${DEV[$src]}" 2>/dev/null)" ||
        { echo "debian-sources: ${DEV[$src]} is not installed (scripts/setup-deps.sh installs it)" >&2; exit 1; }
    stamp+="$src=$ver "
done
if [ -f "$dir/.versions" ] && [ "$(cat "$dir/.versions")" = "$stamp" ]; then exit 0; fi

for tool in apt-get dpkg-source; do
    command -v "$tool" >/dev/null || { echo "debian-sources: $tool is missing (apt-get install dpkg-dev)" >&2; exit 1; }
done
tmp="$(mktemp -d /tmp/wordlab-debsrc-XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/parts" "$tmp/lists/partial" "$tmp/cache/archives/partial"
# deb-src twins of the configured deb sources (deb822 .sources files and one-line sources.list entries).
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed -E 's/^Types:.*\bdeb\b.*/Types: deb-src/' "$f" >"$tmp/parts/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && sed -nE 's/^deb[[:space:]]+/deb-src /p' "$f" >>"$tmp/parts/one-line.list"
done
opts=(-q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$tmp/parts" -o Dir::State::Lists="$tmp/lists"
      -o Dir::Cache="$tmp/cache" -o APT::Sandbox::User=root)
apt-get "${opts[@]}" update >"$tmp/update.log" 2>&1 || { cat "$tmp/update.log" >&2; exit 1; }

rm -rf "$dir.new"
mkdir -p "$dir.new/include/cjson"
for src in "${libs[@]}"; do
    ver="$(dpkg-query -W -f='${source:Version}' "${DEV[$src]}")"
    (cd "$dir.new" && apt-get "${opts[@]}" source "$src=$ver" >"$tmp/$src.log" 2>&1) ||
        { cat "$tmp/$src.log" >&2
          echo "debian-sources: cannot fetch the source of $src $ver (if the archive has moved on to a newer" \
               "version: apt-get install --only-upgrade ${DEV[$src]})" >&2; exit 1; }
    # one directory per library whatever the upstream version: cjson/, zlib/, utf8proc/
    mv "$dir.new/$(cd "$dir.new" && ls -d "$src"-*/ | head -n 1)" "$dir.new/$src"
done
rm -f "$dir.new"/*.dsc "$dir.new"/*.tar.* "$dir.new"/*.diff.*
cp "$dir.new/cjson/cJSON.h" "$dir.new/include/cjson/cJSON.h"   # the native build includes <cjson/cJSON.h> too
echo "$stamp" >"$dir.new/.versions"
rm -rf "$dir"
mv "$dir.new" "$dir"
echo "debian-sources: $stamp-> $dir"
