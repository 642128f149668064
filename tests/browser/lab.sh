#!/usr/bin/env bash
# lab.sh: the JupyterLab browser test: serves copies of the four lessons with wordlab's JupyterLab application
# (lab/wordlab_lab.py, built into build/jupyterlab) on 127.0.0.1 and drives Debian's chromium through playwright-core.
# usage: tests/browser/lab.sh   (env: WORDLAB = the built program, WL_BUILD_DIR = the build, where the screenshots go)
set -euo pipefail
source "$(dirname "$0")/common.sh"
shots="$build/browser-lab"
# The application is built by the build (scripts/build-lab.sh), never here.
[ -f "$build/jupyterlab/build.stamp" ] || { echo "browser test: the JupyterLab application is not built in $build/jupyterlab (cmake --build)" >&2; exit 1; }

# Copies of the lessons, trusted for this (private) user as `make notebook` trusts them.
lessons=()
for nb in "$src"/notebooks/0*.ipynb; do
    cp "$nb" "$tmp/notebooks/"
    lessons+=("$(basename "$nb")")
done
[ ${#lessons[@]} -eq 4 ] || { echo "browser test: expected the 4 lessons in notebooks/, found ${#lessons[@]}" >&2; exit 1; }
/usr/bin/python3 "$src/scripts/trust-notebooks.py" "$tmp"/notebooks/*.ipynb >/dev/null
expect="{"
for nb in "${lessons[@]}"; do expect+="\"$nb\": $(/usr/bin/python3 "$here/saved_outputs.py" "$tmp/notebooks/$nb"),"; done
expect="${expect%,}}"

opts=(--ServerApp.token="$token" --ServerApp.root_dir="$tmp/notebooks" --ServerApp.port_retries=0)
if [ "$(id -u)" -eq 0 ]; then opts+=(--allow-root); fi
WORDLAB_LAB_DIR="$build/jupyterlab" /usr/bin/python3 "$src/lab/wordlab_lab.py" --no-browser --ServerApp.ip=127.0.0.1 \
    --ServerApp.port="$port" "${opts[@]}" >"$tmp/server.log" 2>&1 &
browser_server=$!
browser_wait_server "the JupyterLab server"

rm -rf "$shots"
mkdir -p "$shots"
if ! node "$here/lab.mjs" "http://127.0.0.1:$port" "$token" "$shots" "$tmp/chromium-profile" "$expect"; then
    echo "browser test failed; the JupyterLab server's log:" >&2
    tail -n 60 "$tmp/server.log" >&2
    exit 1
fi
