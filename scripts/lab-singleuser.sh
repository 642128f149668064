#!/usr/bin/env bash
# lab-singleuser.sh: one student's server under the classroom's JupyterHub, run as the student: the lessons copied
# into the home (lessons-copy.sh, beside this script: new and updated lessons, which the server signs for the student
# in its own process), then jupyterhub-singleuser of the environment VENV (JupyterLab 4 and Notebook 7 with the wordlab
# extension; started by singleuser.py, beside this script, without the modules it never uses), its kernels on ipc in
# a directory only the student may open (kernel-dir.sh, beside this script).
# usage (the hub's Spawner.cmd): lab-singleuser.sh VENV [jupyterhub-singleuser arguments...]
set -euo pipefail
here="$(dirname "$0")"
venv="${1:?usage: lab-singleuser.sh VENV [arguments...]}"
shift
[ -x "$venv/bin/jupyterhub-singleuser" ] || { echo "lab-singleuser: $venv has no jupyterhub-singleuser (scripts/setup-venv.sh)" >&2; exit 1; }
JUPYTER_RUNTIME_DIR="$(bash "$here/kernel-dir.sh" "$venv")"
WORDLAB_SIGN_LIST="$JUPYTER_RUNTIME_DIR/lessons-to-sign"
bash "$here/lessons-copy.sh" "$HOME" "$venv" "$WORDLAB_SIGN_LIST"
export JUPYTER_RUNTIME_DIR WORDLAB_SIGN_LIST
exec "$venv/bin/python" "$here/singleuser.py" "$@"
