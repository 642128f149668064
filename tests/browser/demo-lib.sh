# demo-lib.sh: sourced by the scripts that drive the demo page (tests/browser/demo.sh, tests/bench/bench_wasm.sh):
# playwright-core installed, the page served on 127.0.0.1, everything stopped and removed on exit.
# After wl_serve_demo DIR: $url is the page's address and $tmp a private directory.
wl_browser_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# playwright-core from the pinned package-lock.json, installed once into tests/browser/node_modules (under a lock:
# the browser tests may start at the same time).
wl_playwright() {
    (
        flock 9
        if [ ! -f "$wl_browser_dir/node_modules/playwright-core/package.json" ]; then
            cd "$wl_browser_dir" && npm ci --no-audit --no-fund --loglevel=error
        fi
    ) 9>"${TMPDIR:-/tmp}/wordlab-playwright-$(id -u).lock"
}

wl_serve_demo() {
    local demo="$1"
    [ -x /usr/bin/chromium ] || { echo "$0: /usr/bin/chromium is missing (Debian package chromium)" >&2; exit 1; }
    command -v node >/dev/null || { echo "$0: node is missing (scripts/setup-deps.sh installs it)" >&2; exit 1; }
    [ -f "$demo/wordlab-wasm.wasm" ] || { echo "$0: $demo is not built (the wasm_demo target builds it)" >&2; exit 1; }
    wl_serve_dir "$demo"
}

# wl_serve_dir DIR: serves DIR (cross-origin isolated) on 127.0.0.1; sets $url and $tmp.
wl_serve_dir() {
    local demo="$1"
    wl_playwright
    tmp="$(mktemp -d /tmp/wordlab-demo-XXXXXX)"
    wl_server=""
    trap 'if [ -n "$wl_server" ]; then kill "$wl_server" 2>/dev/null || true; wait "$wl_server" 2>/dev/null || true; fi; rm -rf "$tmp"' EXIT
    : >"$tmp/server.log"
    /usr/bin/python3 "$wl_browser_dir/../../scripts/serve-demo.py" "$demo" 0 >>"$tmp/server.log" 2>&1 &
    wl_server=$!
    url=""
    until [ -n "$url" ]; do   # the server prints its address once it listens
        url="$(sed -nE 's|.* at (http://127\.0\.0\.1:[0-9]+/).*|\1|p' "$tmp/server.log")"
        [ -n "$url" ] && break
        kill -0 "$wl_server" 2>/dev/null || { echo "$0: the demo server exited:" >&2; cat "$tmp/server.log" >&2; exit 1; }
        sleep 0.05
    done
}
