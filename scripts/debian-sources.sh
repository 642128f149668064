#!/usr/bin/env bash
# debian-sources.sh: unpacks the Debian source packages of the libraries the WebAssembly build compiles in, at the versions of the installed -dev packages, into DIR.
# usage: scripts/debian-sources.sh DIR LIBRARY=DEV_PACKAGE...   (CMakeLists.txt's WL_WASM_LIBS: cjson=libcjson-dev ...)
# The native build links these libraries; the WebAssembly build compiles the same sources with emcc. apt-get
# fetches them from this machine's own Debian archives (its configured sources, as deb-src) with a private
# list directory, so the system's apt configuration is left as it is. Where the mirror does not serve the installed
# version's files, another version its Sources indexes list (see candidates below); DIR/.versions names both.
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
# .versions: the installed versions (the first line, what a later run compares), then the source versions unpacked.
if [ -f "$dir/.versions" ] && [ "$(head -n 1 "$dir/.versions")" = "$stamp" ]; then exit 0; fi

for tool in apt-get dpkg-source; do
    command -v "$tool" >/dev/null || { echo "debian-sources: $tool is missing (apt-get install dpkg-dev)" >&2; exit 1; }
done
tmp="$(mktemp -d /tmp/wordlab-debsrc-XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
# An archive set: its own source lists, list and cache directories under $tmp/SET, used with `aptin SET apt-get ...`.
aptin() {
    local set="$1" cmd="$2"
    shift 2
    "$cmd" -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$tmp/$set/parts" \
        -o Dir::State::Lists="$tmp/$set/lists" -o Dir::Cache="$tmp/$set/cache" -o APT::Sandbox::User=root "$@"
}
update() {
    mkdir -p "$tmp/$1/lists/partial" "$tmp/$1/cache/archives/partial"
    aptin "$1" apt-get update >"$tmp/$1/update.log" 2>&1 || { cat "$tmp/$1/update.log" >&2; exit 1; }
}
# "configured": the deb-src twins of the configured deb sources (deb822 .sources files and one-line entries).
mkdir -p "$tmp/configured/parts"
: >"$tmp/configured/parts/one-line.list"
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && sed -E 's/^Types:.*\bdeb\b.*/Types: deb-src/' "$f" >"$tmp/configured/parts/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] && sed -nE 's/^deb[[:space:]]+/deb-src /p' "$f" >>"$tmp/configured/parts/one-line.list"
done
update configured
# "other": the same archives' suite of the other Debian release wordlab supports, read only when a mirror serves
# none of a library's versions in the configured suites (Debian 13's utf8proc 2.9.0-1 on a mirror of binaries).
codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
case "$codename" in bookworm) other=trixie ;; trixie) other=bookworm ;; *) other="" ;; esac
other_ready=""
other_set() {
    if [ -z "$other" ]; then return 1; fi
    if [ -n "$other_ready" ]; then return 0; fi
    mkdir -p "$tmp/other/parts"
    # the one-line entries and the deb822 stanzas whose suite is the release itself, with the other release instead
    sed -nE "s/^(deb-src([[:space:]]+\[[^]]*\])?[[:space:]]+[^[:space:]]+[[:space:]]+)$codename([[:space:]])/\1$other\3/p" \
        "$tmp/configured/parts/one-line.list" >"$tmp/other/parts/one-line.list"
    for f in "$tmp/configured/parts"/*.sources; do
        [ -f "$f" ] || continue
        awk -v RS= -v ORS='\n\n' -v me="$codename" -v to="$other" '{
            n = split($0, ls, "\n"); hit = 0
            for (i = 1; i <= n; i++) if (ls[i] ~ /^Suites:/) {
                k = split(substr(ls[i], 8), w, /[ \t]+/)
                for (j = 1; j <= k; j++) if (w[j] == me) { hit = 1; ls[i] = "Suites: " to }
            }
            if (hit) { out = ls[1]; for (i = 2; i <= n; i++) out = out "\n" ls[i]; print out }
        }' "$f" >"$tmp/other/parts/$(basename "$f")"
    done
    update other
    other_ready=1
}
rm -rf "$dir.new"
mkdir -p "$dir.new/include/cjson"
used=""
# The versions of source package $2 that the set $1's Sources indexes list, but $3: those of $3's upstream version
# newest first, then the others newest first. A mirror may list a version whose files it does not serve (Debian 13's
# zlib 1+deb13u1, in the trixie and trixie-security indexes, answers 404 where the -1 it updated, kept as
# Extra-Source-Only, is served).
candidates() {
    local upstream="${3#*:}" v u w newer same
    upstream="${upstream%-*}"
    local vs=()
    while read -r v; do
        if [ "$v" != "$3" ]; then vs+=("$v"); fi
    done < <(aptin "$1" apt-cache showsrc --only-source "$2" 2>/dev/null | sed -n 's/^Version: //p' | sort -u)
    for v in "${vs[@]}"; do   # dpkg's order (a handful of versions)
        newer=0
        for w in "${vs[@]}"; do
            if dpkg --compare-versions "$w" gt "$v"; then newer=$((newer + 1)); fi
        done
        u="${v#*:}"
        same=1
        if [ "${u%-*}" = "$upstream" ]; then same=0; fi
        echo "$same $newer $v"
    done | sort -n -k1,1 -k2,2 | cut -d' ' -f3-
}
# apt-get checks every file it fetches against the hashes of the set's Sources index, dpkg-source against the .dsc.
fetch() {   # fetch SET SOURCE VERSION...: the first version the set's archives serve, unpacked in $dir.new
    local set="$1" src="$2" v
    shift 2
    for v in "$@"; do
        if (cd "$dir.new" && aptin "$set" apt-get source "$src=$v" >>"$tmp/$src.log" 2>&1); then got="$v" from="$set"; return 0; fi
    done
    return 1
}
for src in "${libs[@]}"; do
    ver="$(dpkg-query -W -f='${source:Version}' "${DEV[$src]}")"
    got="" from=""
    if ! fetch configured "$src" "$ver" && ! fetch configured "$src" $(candidates configured "$src" "$ver") &&
       ! { other_set && fetch other "$src" $(candidates other "$src" "$ver"); }; then
        cat "$tmp/$src.log" >&2
        echo "debian-sources: cannot fetch the source of $src $ver nor of any version the Sources indexes of" \
             "this machine's archives${other:+ and of Debian $other} list (if the archive has moved on to a newer" \
             "version: apt-get install --only-upgrade ${DEV[$src]})" >&2
        exit 1
    fi
    if [ "$got" != "$ver" ]; then
        grep -E '^E:' "$tmp/$src.log" >&2 || true
        echo "debian-sources: the archive does not serve the source of $src $ver (installed); using $got$([ "$from" = other ] && echo ", Debian $other's")" >&2
    fi
    used+="$src=$got "
    # one directory per library whatever the upstream version: cjson/, zlib/, utf8proc/
    mv "$dir.new/$(cd "$dir.new" && ls -d "$src"-*/ | head -n 1)" "$dir.new/$src"
done
rm -f "$dir.new"/*.dsc "$dir.new"/*.tar.* "$dir.new"/*.diff.*
cp "$dir.new/cjson/cJSON.h" "$dir.new/include/cjson/cJSON.h"   # the native build includes <cjson/cJSON.h> too
printf '%s\nsources: %s\n' "$stamp" "$used" >"$dir.new/.versions"
rm -rf "$dir"
mv "$dir.new" "$dir"
echo "debian-sources: $used-> $dir"
