#!/usr/bin/env bash
# lab.sh: the JupyterLab 4 browser test: `make notebook`'s scripts/notebook.sh serves the user's working copy of the
# lessons (made here in a private home) with the project environment's JupyterLab 4 on 127.0.0.1; lab.mjs drives
# Debian's chromium through playwright-core (JupyterLab 4, then lesson 01 in Notebook 7 on the same server).
# usage: tests/browser/lab.sh   (env: WORDLAB = the built program, WL_BUILD_DIR = the build, where the screenshots go)
set -euo pipefail
source "$(dirname "$0")/common.sh"
shots="$build/browser-lab"
# The environment and the extension are built by the build, never here.
[ -x "$build/venv/bin/jupyter-lab" ] || { echo "browser test: the project environment $build/venv is not made (cmake --build: target venv)" >&2; exit 1; }
[ -f "$build/lab/labextension/package.json" ] || { echo "browser test: the extension is not built in $build/lab (cmake --build: target labextension)" >&2; exit 1; }

expect="{"
for wlab in "$src"/lessons/*.wlab; do
    nb="$(basename "${wlab%.wlab}").ipynb"
    expect+="\"$nb\": $(/usr/bin/python3 "$here/saved_outputs.py" "$src/notebooks/$nb"),"
done
expect="${expect%,}}"

UI=lab bash "$src/scripts/notebook.sh" "$build" --ServerApp.token="$token" --ServerApp.port="$port" \
    --ServerApp.port_retries=0 >"$tmp/server.log" 2>&1 &
browser_server=$!
browser_drive "the JupyterLab server" lab.mjs "$shots" "$expect"
# Every lesson was run and saved in the working copy; the bundled ones stay as they were (the caller checks git).
for wlab in "$src"/lessons/*.wlab; do
    nb="$(basename "${wlab%.wlab}").ipynb"
    if cmp -s "$HOME/wordlab/lessons/$nb" "$src/notebooks/$nb"; then
        echo "browser test: $HOME/wordlab/lessons/$nb was not saved after Run All" >&2
        exit 1
    fi
done
echo "lab.sh: every lesson ran and was saved in the working copy $HOME/wordlab/lessons"
