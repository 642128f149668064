#!/usr/bin/env bash
# lab-singleuser.sh: one student's server under JupyterHub: the project environment's JupyterLab 4 (BUILD_DIR/venv)
# inside Debian's jupyterhub-singleuser (its jupyterhub module, found after the environment's own packages).
# usage (the hub's Spawner.cmd): lab-singleuser.sh BUILD_DIR [jupyterhub-singleuser arguments...]
set -euo pipefail
build="$(cd "$1" && pwd)"
shift
[ -x "$build/venv/bin/python" ] || { echo "lab-singleuser: $build/venv is not made (cmake --build: target venv)" >&2; exit 1; }
export JUPYTERHUB_SINGLEUSER_APP=jupyter_server.serverapp.ServerApp
# The student's kernels on ipc (the environment's setting) in a directory only the student may open.
JUPYTER_RUNTIME_DIR="$(bash "$(dirname "$0")/kernel-dir.sh" "$build/venv")"
export JUPYTER_RUNTIME_DIR
exec "$build/venv/bin/python" -c 'import sys; sys.path.append("/usr/lib/python3/dist-packages"); from jupyterhub.singleuser import main; sys.exit(main())' "$@"
