#!/usr/bin/env bash
# classroom.sh: serves the wordlab lessons to a class on this machine through Debian's JupyterHub (Ctrl-C stops it all).
#
# usage: scripts/classroom.sh [BUILD_DIR]
#   PORT=8000            the port the hub listens on (127.0.0.1)
#   UI=lab|classic       the single-user UI (lab: JupyterLab 4 of BUILD_DIR/venv when it is made, else classic)
#   PASSWORD=...         the one password of the local-trial authenticator (default: any password)
#   STATE=DIR            the hub's state and the students' homes (default BUILD_DIR/classroom)
#   KERNEL_PREFIX=DIR    where the kernel spec is installed (default /usr/local: system-wide, found by every student)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$src/build}" && pwd)"
state="${STATE:-$build/classroom}"
mkdir -p "$state"

# The wordlab kernel, installed system-wide so that every student's server finds it.
prefix="${KERNEL_PREFIX:-/usr/local}"
"$build/wordlab" install-kernel --prefix "$prefix"
export WORDLAB_CLASSROOM_JUPYTER_PATH="$prefix/share/jupyter"

ui="${UI:-}"
if [ -z "$ui" ]; then
  if [ -x "$build/venv/bin/jupyter-lab" ]; then ui=lab; else ui=classic; fi
fi

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
export WORDLAB_CLASSROOM_STATE="$state"
export WORDLAB_CLASSROOM_HOMES="${HOMES:-$state/home}"
export WORDLAB_CLASSROOM_PORT="${PORT:-8000}"
export WORDLAB_CLASSROOM_HUB_PORT="${HUB_PORT:-$(free_port)}"
export WORDLAB_CLASSROOM_PROXY_API_PORT="${PROXY_API_PORT:-$(free_port)}"
export WORDLAB_CLASSROOM_LESSONS="$src/notebooks"
export WORDLAB_CLASSROOM_LESSON_SOURCES="$src"
export WORDLAB_CLASSROOM_UI="$ui"
export WORDLAB_CLASSROOM_LAB_CMD="bash $src/scripts/lab-singleuser.sh $build"
export WORDLAB_CLASSROOM_PASSWORD="${PASSWORD:-}"

echo "wordlab classroom: JupyterHub on http://127.0.0.1:$WORDLAB_CLASSROOM_PORT/ (UI: $ui)"
echo "  log in with any user name${PASSWORD:+ and the password you set}; 'teacher' is the admin; Ctrl-C stops the hub and every student's server"
echo "  homes: $WORDLAB_CLASSROOM_HOMES"
cd "$state"
exec jupyterhub -f "$src/share/classroom/jupyterhub_config.py"
