#!/usr/bin/env bash
# lab-singleuser.sh: one student's server under JupyterHub, with wordlab's JupyterLab application as its UI.
# usage (the hub's Spawner.cmd): lab-singleuser.sh BUILD_DIR [jupyterhub-singleuser arguments...]
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "$1" && pwd)"
shift
# lab/wordlab_lab.py is a jupyter_server extension; the application it serves is built into BUILD_DIR/jupyterlab.
export PYTHONPATH="$src/lab${PYTHONPATH:+:$PYTHONPATH}"
export WORDLAB_LAB_DIR="$build/jupyterlab"
exec jupyterhub-singleuser --ServerApp.jpserver_extensions='{"wordlab_lab": True}' "$@"
