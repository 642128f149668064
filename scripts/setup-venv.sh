#!/usr/bin/env bash
# setup-venv.sh: the project environment VENV (python3 -m venv, never the system Python) with JupyterLab 4 and
# Notebook 7 from PyPI, exactly the packages and hashes of lab/requirements.txt (pip --require-hashes), again only
# when that file changed (the only step that needs PyPI); and the environment's own settings: no network at run time
# (no news, no update check, a read-only extension manager: lab/settings/overrides.json, lab/jupyter_server_config.json),
# kernels on the ipc transport (see notebook.sh).
# usage: scripts/setup-venv.sh VENV   (the Makefile's `venv` target: build/venv)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
venv="${1:?usage: setup-venv.sh VENV}"
req="$src/lab/requirements.txt"
installed="$venv/wordlab-requirements.txt"
settings() {
    mkdir -p "$venv/share/jupyter/lab/settings" "$venv/etc/jupyter"
    cp "$src/lab/settings/overrides.json" "$venv/share/jupyter/lab/settings/overrides.json"
    cp "$src/lab/jupyter_server_config.json" "$venv/etc/jupyter/jupyter_server_config.json"
}
if cmp -s "$req" "$installed"; then settings; touch "$installed"; exit 0; fi
SECONDS=0
if [ ! -x "$venv/bin/python" ]; then
    /usr/bin/python3 -m venv "$venv" || { echo "setup-venv: python3 -m venv failed (Debian: python3-venv, scripts/setup-deps.sh installs it)" >&2; exit 1; }
fi
echo "setup-venv: installing lab/requirements.txt into $venv (JupyterLab 4, Notebook 7 from PyPI)"
if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --require-hashes --only-binary=:all: \
        -r "$req"; then
    echo "setup-venv: pip install failed: the first run downloads the packages of lab/requirements.txt from PyPI" >&2
    exit 1
fi
settings
cp "$req" "$installed"
echo "setup-venv: $venv ready in $SECONDS s ($("$venv/bin/jupyter-lab" --version 2>/dev/null | sed 's/^/JupyterLab /'))"
