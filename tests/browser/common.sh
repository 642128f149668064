# common.sh: what the browser tests share (sourced by lab.sh and stock.sh): the tools, playwright-core, a private
# Jupyter environment with this build's kernel spec, a free port and a token, waiting for a server to answer.
# Sets: here src build wordlab tmp port token; browser_server PID is stopped and $tmp removed on exit;
# browser_drive runs a test script against the server.

source "$(dirname "${BASH_SOURCE[0]}")/paths.sh"

# Every tool must be there: a missing one fails the test, it is never skipped.
for tool in node npm /usr/bin/python3; do
    command -v "$tool" >/dev/null || { echo "browser test: $tool is missing (scripts/setup-deps.sh installs it)" >&2; exit 1; }
done
[ -x /usr/bin/chromium ] || { echo "browser test: /usr/bin/chromium is missing (Debian package chromium)" >&2; exit 1; }
[ -x "$wordlab" ] || { echo "browser test: $wordlab is not built" >&2; exit 1; }

# playwright-core from the pinned package-lock.json, installed once (under a lock) into tests/browser/node_modules.
source "$here/demo-lib.sh"
wl_playwright

tmp="$(mktemp -d /tmp/wordlab-browser-XXXXXX)"
browser_server=""
browser_cleanup() {
    if [ -n "$browser_server" ]; then kill "$browser_server" 2>/dev/null || true; wait "$browser_server" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap browser_cleanup EXIT

# The kernel spec of this build on a private JUPYTER_PATH; private home, config, data and runtime directories.
"$wordlab" install-kernel --prefix "$tmp/prefix" >/dev/null
export HOME="$tmp/home"
export JUPYTER_PATH="$tmp/prefix/share/jupyter"
export JUPYTER_CONFIG_DIR="$tmp/config" JUPYTER_DATA_DIR="$tmp/data" JUPYTER_RUNTIME_DIR="$tmp/runtime"
mkdir -p "$HOME" "$tmp/notebooks"

port="$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
token="$(/usr/bin/python3 -c 'import secrets; print(secrets.token_hex(24))')"

# browser_wait_server NAME: waits until the server started as $browser_server answers /api/status (60 s at most).
browser_wait_server() {
    for _ in $(seq 600); do
        if /usr/bin/python3 -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)" \
            "http://127.0.0.1:$port/api/status?token=$token" 2>/dev/null; then
            return 0
        fi
        kill -0 "$browser_server" 2>/dev/null || { echo "browser test: $1 exited:" >&2; cat "$tmp/server.log" >&2; exit 1; }
        sleep 0.1
    done
    echo "browser test: $1 did not answer on port $port within 60 s:" >&2
    cat "$tmp/server.log" >&2
    exit 1
}

# browser_drive NAME SCRIPT SHOTS [ARGS...]: once the server started as $browser_server answers, runs
# `node SCRIPT BASE_URL TOKEN SHOTS PROFILE ARGS...` with SHOTS emptied for its screenshots; fails with the server's log.
browser_drive() {
    local name="$1" script="$2" shots="$3"
    shift 3
    browser_wait_server "$name"
    rm -rf "$shots"
    mkdir -p "$shots"
    if ! node "$here/$script" "http://127.0.0.1:$port" "$token" "$shots" "$tmp/chromium-profile" "$@"; then
        echo "browser test failed; the log of $name:" >&2
        tail -n 60 "$tmp/server.log" >&2
        exit 1
    fi
}
