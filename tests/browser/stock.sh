#!/usr/bin/env bash
# stock.sh: wordlab in a stock JupyterLab 4, as a user who has their own: a second Python environment
# (BUILD/stock-venv, made here from the same lab/requirements.txt, with none of the project environment's settings)
# where only `wordlab install-kernel --prefix` of that environment was done; its JupyterLab serves a plain copy of
# lesson 01 on 127.0.0.1 and stock.mjs drives Debian's chromium: the wordlab extension highlights the cells, and
# after Run All the outputs are tables and pictures, not JSON trees.
# usage: tests/browser/stock.sh   (env: WORDLAB = the built program, WL_BUILD_DIR = the build, where the screenshots go)
set -euo pipefail
source "$(dirname "$0")/common.sh"
stock="$build/stock-venv"
shots="$build/browser-stock"
lesson=01_one_head_and_four_heads.ipynb

# The environment, made again only when the pinned file changed.
if ! cmp -s "$src/lab/requirements.txt" "$stock/wordlab-requirements.txt"; then
    rm -rf "$stock"
    /usr/bin/python3 -m venv "$stock"
    "$stock/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --require-hashes \
        --only-binary=:all: -r "$src/lab/requirements.txt"
    cp "$src/lab/requirements.txt" "$stock/wordlab-requirements.txt"
fi
rm -rf "$stock/share/jupyter/kernels/wordlab" "$stock/share/jupyter/labextensions/wordlab-jupyterlab"
"$wordlab" install-kernel --prefix "$stock"
# Only the environment's own places (and the private user directories of common.sh): not this test's JUPYTER_PATH.
unset JUPYTER_PATH
cp "$src/notebooks/$lesson" "$tmp/notebooks/"

opts=(--ServerApp.token="$token" --ServerApp.root_dir="$tmp/notebooks" --ServerApp.port_retries=0)
if [ "$(id -u)" -eq 0 ]; then opts+=(--allow-root); fi
"$stock/bin/jupyter-lab" --no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port="$port" "${opts[@]}" >"$tmp/server.log" 2>&1 &
browser_server=$!
browser_drive "the stock JupyterLab server" stock.mjs "$shots" "$lesson"
