#!/usr/bin/env bash
# run.sh: the Notebook 6 browser test: serves a copy of lesson 01 with Jupyter Notebook on 127.0.0.1 and drives Debian's chromium through playwright-core.
# usage: tests/browser/run.sh   (env: WORDLAB = the built program, WL_BUILD_DIR = where the screenshot goes)
set -euo pipefail
source "$(dirname "$0")/common.sh"
lesson=01_one_head_and_four_heads.ipynb
shot="$build/browser-lesson01.png"
command -v jupyter >/dev/null || { echo "browser test: jupyter is missing (scripts/setup-deps.sh installs it)" >&2; exit 1; }
[ -f "$src/notebooks/$lesson" ] || { echo "browser test: notebooks/$lesson is missing" >&2; exit 1; }

# A copy of the notebook, so that running it (and autosave) never touches the committed file; trusted for this
# (private) user as `make notebook` trusts the lessons, so that its saved outputs show on first open.
cp "$src/notebooks/$lesson" "$tmp/notebooks/"
/usr/bin/python3 "$src/scripts/trust-notebooks.py" "$tmp/notebooks/$lesson" >/dev/null

major="$(jupyter notebook --version | cut -d. -f1)"
if [ "$major" -ge 7 ]; then
    opts=(--IdentityProvider.token="$token" --ServerApp.root_dir="$tmp/notebooks" --ServerApp.port_retries=0)
else
    opts=(--NotebookApp.token="$token" --NotebookApp.notebook_dir="$tmp/notebooks" --NotebookApp.port_retries=0)
fi
if [ "$(id -u)" -eq 0 ]; then opts+=(--allow-root); fi
jupyter notebook --no-browser --ip=127.0.0.1 --port="$port" "${opts[@]}" >"$tmp/server.log" 2>&1 &
browser_server=$!
browser_wait_server "jupyter notebook"

rm -f "$shot"
saved="$(/usr/bin/python3 "$here/saved_outputs.py" "$src/notebooks/$lesson")"
if ! node "$here/lesson01.mjs" "http://127.0.0.1:$port/notebooks/$lesson?token=$token" "$shot" "$tmp/chromium-profile" "$saved"; then
    echo "browser test failed; the notebook server's log:" >&2
    tail -n 40 "$tmp/server.log" >&2
    exit 1
fi
[ -s "$shot" ] || { echo "browser test: no screenshot at $shot" >&2; exit 1; }
