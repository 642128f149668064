#!/usr/bin/env bash
# run.sh: the browser test: serves a copy of lesson 01 with Jupyter Notebook on 127.0.0.1 and drives Debian's chromium through playwright-core.
# usage: tests/browser/run.sh   (env: WORDLAB = the built program, WL_BUILD_DIR = where the screenshot goes)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
build="${WL_BUILD_DIR:-$src/build}"
wordlab="${WORDLAB:-$build/wordlab}"
lesson=01_one_head_and_four_heads.ipynb
shot="$build/browser-lesson01.png"

# Every tool must be there: a missing one fails the test, it is never skipped.
for tool in node npm jupyter /usr/bin/python3; do
    command -v "$tool" >/dev/null || { echo "browser test: $tool is missing (scripts/setup-deps.sh installs it)" >&2; exit 1; }
done
[ -x /usr/bin/chromium ] || { echo "browser test: /usr/bin/chromium is missing (Debian package chromium)" >&2; exit 1; }
[ -x "$wordlab" ] || { echo "browser test: $wordlab is not built" >&2; exit 1; }
[ -f "$src/notebooks/$lesson" ] || { echo "browser test: notebooks/$lesson is missing" >&2; exit 1; }

source "$here/demo-lib.sh"
wl_playwright

tmp="$(mktemp -d /tmp/wordlab-browser-XXXXXX)"
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

# The kernel spec of this build on a private JUPYTER_PATH; private config, data and runtime directories.
"$wordlab" install-kernel --prefix "$tmp/prefix" >/dev/null
export JUPYTER_PATH="$tmp/prefix/share/jupyter"
export JUPYTER_CONFIG_DIR="$tmp/config" JUPYTER_DATA_DIR="$tmp/data" JUPYTER_RUNTIME_DIR="$tmp/runtime"
# A copy of the notebook, so that running it (and autosave) never touches the committed file.
mkdir -p "$tmp/notebooks"
cp "$src/notebooks/$lesson" "$tmp/notebooks/"

port="$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
token="$(/usr/bin/python3 -c 'import secrets; print(secrets.token_hex(24))')"
major="$(jupyter notebook --version | cut -d. -f1)"
if [ "$major" -ge 7 ]; then
    opts=(--IdentityProvider.token="$token" --ServerApp.root_dir="$tmp/notebooks" --ServerApp.port_retries=0)
else
    opts=(--NotebookApp.token="$token" --NotebookApp.notebook_dir="$tmp/notebooks" --NotebookApp.port_retries=0)
fi
if [ "$(id -u)" -eq 0 ]; then opts+=(--allow-root); fi
jupyter notebook --no-browser --ip=127.0.0.1 --port="$port" "${opts[@]}" >"$tmp/server.log" 2>&1 &
server=$!

# Wait until the server answers (60 s at most).
for _ in $(seq 600); do
    if /usr/bin/python3 -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)" \
        "http://127.0.0.1:$port/api/status?token=$token" 2>/dev/null; then
        break
    fi
    kill -0 "$server" 2>/dev/null || { echo "browser test: jupyter notebook exited:" >&2; cat "$tmp/server.log" >&2; exit 1; }
    sleep 0.1
done

rm -f "$shot"
if ! node "$here/lesson01.mjs" "http://127.0.0.1:$port/notebooks/$lesson?token=$token" "$shot" "$tmp/chromium-profile"; then
    echo "browser test failed; the notebook server's log:" >&2
    tail -n 40 "$tmp/server.log" >&2
    exit 1
fi
[ -s "$shot" ] || { echo "browser test: no screenshot at $shot" >&2; exit 1; }
