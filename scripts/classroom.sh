#!/usr/bin/env bash
# classroom.sh: serves the wordlab lessons to a class on this machine: JupyterHub 5 of the project environment, each
# student a Unix user of their own, a password for the class and one for the teacher (Ctrl-C stops it all).
#
# It runs as root: it makes each student's Unix account (wl-NAME) and starts each student's server as that account,
# never as root. What the students' servers run is installed to PREFIX, readable by every user (a build under /root
# is not): the program with its extension, the Python environment (JupyterLab 4, Notebook 7, JupyterHub 5 of
# lab/requirements.txt), the HTTP proxy (npm, share/classroom/proxy/package-lock.json), the bundled artifacts and
# the lessons as built from lessons/. The shared cache of computed results (WORDLAB_CACHE) is root's, filled once by
# running the lessons here; the students read it and cannot change it. The hub's state (its database, cookie
# secret and the two passwords, generated on the first start and printed then) is root's only.
#
# usage: scripts/classroom.sh [BUILD_DIR]
#   PORT=8700                         the port the hub listens on (127.0.0.1)
#   UI=lab|notebook                   the students' UI: JupyterLab 4 (default) or Notebook 7
#   PREFIX=/opt/wordlab-classroom     what the students' servers run
#   STATE=/var/lib/wordlab-classroom  the hub's state and the passwords (mode 0700)
#   HOMES=/home/wordlab-classroom     the students' homes (each mode 0700, its student's)
#   CACHE=/var/cache/wordlab-classroom  the shared cache of computed results
#   WORDLAB_CLASSROOM_API_TOKEN=...   a service token with admin scopes (the load test's)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$src/build}" && pwd)"
prefix="${PREFIX:-/opt/wordlab-classroom}"
state="${STATE:-/var/lib/wordlab-classroom}"
homes="${HOMES:-/home/wordlab-classroom}"
cache="${CACHE:-/var/cache/wordlab-classroom}"
ui="${UI:-lab}"
fail() { echo "classroom: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run it as root: each student's server runs as that student's own Unix account (wl-NAME)"
case "$ui" in lab|notebook) ;; *) fail "UI=$ui: lab or notebook" ;; esac
for f in "$build/wordlab" "$build/lab/labextension/package.json"; do
    [ -e "$f" ] || fail "$f is missing: cmake --build $build --target wordlab labextension"
done
for dir in "$prefix" "$homes" "$cache"; do
    case "$dir/" in "$build"/*|"$src"/*) fail "$dir lies in the source tree or the build: make clean would delete it" ;; esac
done
case "$state/" in "$build"/*|"$src"/*) fail "$state lies in the source tree or the build" ;; esac

# A folder of root's (made when missing) with the given mode.
root_dir() {
    mkdir -p "$1"
    [ "$(stat -c %u "$1")" = 0 ] && [ ! -L "$1" ] || fail "$1 is not root's own folder"
    chmod "$2" "$1"
}
# Fails unless every folder above DIR lets other users pass (the students reach their homes, the prefix, the cache).
reachable() {
    local p="$1"
    while [ "$p" != / ]; do
        p="$(dirname "$p")"
        [ "$(stat -c %A "$p" | cut -c10)" != - ] || fail "$p is closed to other users: students could not reach $1"
    done
}
root_dir "$prefix" 755
root_dir "$prefix/bin" 755
root_dir "$state" 700
root_dir "$homes" 755
root_dir "$cache" 755
for dir in "$prefix" "$homes" "$cache"; do reachable "$dir"; done

# The program and its extension, the scripts a student's server starts with, the artifacts, and the lessons as built
# from lessons/ (lessons/NAME.wlab and notebooks/NAME.ipynb, the layout lessons-copy.sh reads).
install -m 755 "$build/wordlab" "$prefix/bin/wordlab.new" && mv -f "$prefix/bin/wordlab.new" "$prefix/bin/wordlab"
rm -rf "$prefix/bin/lab" && mkdir -p "$prefix/bin/lab" && cp -r "$build/lab/labextension" "$prefix/bin/lab/"
mkdir -p "$prefix/scripts"
install -m 755 "$src/scripts/lab-singleuser.sh" "$src/scripts/kernel-dir.sh" "$src/scripts/lessons-copy.sh" \
    "$src/share/classroom/singleuser.py" "$prefix/scripts/"
rm -rf "$prefix/artifacts" && cp -r "$src/share/artifacts" "$prefix/artifacts"
rm -rf "$prefix/lessons" "$prefix/notebooks" && mkdir "$prefix/lessons" "$prefix/notebooks"
for wlab in "$src"/lessons/*.wlab; do
    nb="$src/notebooks/$(basename "${wlab%.wlab}").ipynb"
    [ -f "$nb" ] || fail "$nb (built from $wlab) is missing: make notebooks"
    cp "$wlab" "$prefix/lessons/" && cp "$nb" "$prefix/notebooks/"
done
bash "$src/scripts/setup-venv.sh" "$prefix/venv"
"$prefix/bin/wordlab" install-kernel --prefix "$prefix/venv" >/dev/null
if ! cmp -s "$src/share/classroom/proxy/package-lock.json" "$prefix/proxy/package-lock.json"; then
    rm -rf "$prefix/proxy" && mkdir -p "$prefix/proxy"
    cp "$src/share/classroom/proxy/package.json" "$src/share/classroom/proxy/package-lock.json" "$prefix/proxy/"
    (cd "$prefix/proxy" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error) ||
        fail "npm ci of share/classroom/proxy failed (the first start downloads configurable-http-proxy from npm)"
fi
chmod -R go-w,a+rX "$prefix"

# The shared cache, filled as root by running the lessons once (again only when the program, a lesson or an artifact
# changed).
stamp="$(cat "$prefix/bin/wordlab" "$src"/lessons/*.wlab "$prefix"/artifacts/* | sha256sum | cut -c1-64)"
if [ "$(cat "$cache/.filled" 2>/dev/null)" != "$stamp" ]; then
    echo "classroom: filling the shared cache $cache (the lessons run once; a minute or two)"
    work="$(mktemp -d)"
    for wlab in "$src"/lessons/*.wlab; do
        (cd "$work" && WORDLAB_CACHE="$cache" WORDLAB_ARTIFACTS="$prefix/artifacts" "$prefix/bin/wordlab" run "$wlab" >/dev/null) ||
            fail "running $wlab to fill the cache failed"
    done
    rm -rf "$work"
    echo "$stamp" > "$cache/.filled"
fi

# The two passwords: made once (the state folder is root's only), printed when made.
password() {
    local file="$state/$1" made=0
    if [ ! -s "$file" ]; then
        (umask 077 && "$prefix/venv/bin/python" -c "import secrets; print(secrets.token_urlsafe($2))" > "$file")
        made=1
    fi
    chmod 600 "$file"
    if [ $made = 1 ]; then echo "  $3: $(cat "$file")   (kept in $file)"; else echo "  $3: in $file"; fi
}

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
export WORDLAB_CLASSROOM_STATE="$state"
export WORDLAB_CLASSROOM_HOMES="$homes"
export WORDLAB_CLASSROOM_PORT="${PORT:-8700}"
export WORDLAB_CLASSROOM_HUB_PORT="${HUB_PORT:-$(free_port)}"
export WORDLAB_CLASSROOM_PROXY_API_PORT="${PROXY_API_PORT:-$(free_port)}"
export WORDLAB_CLASSROOM_PREFIX="$prefix"
export WORDLAB_CLASSROOM_CACHE="$cache"
export WORDLAB_CLASSROOM_UI="$ui"

echo "wordlab classroom: JupyterHub on http://127.0.0.1:$WORDLAB_CLASSROOM_PORT/ (UI: $ui)"
password class-password 9 "the class password (students: any name, this password)"
password teacher-password 24 "the teacher's password (name: teacher, the admin)"
echo "  homes: $homes (accounts wl-NAME); Ctrl-C stops the hub and every student's server"
cd "$state"
exec "$prefix/venv/bin/jupyterhub" -f "$src/share/classroom/jupyterhub_config.py"
