#!/usr/bin/env bash
# notebook.sh: installs the wordlab kernel spec and JupyterLab extension for this user, brings the user's working copy
# of the lessons up to date (scripts/lessons-copy.sh: ~/wordlab/lessons, or $WORDLAB_LESSONS) and serves it on
# localhost with the project environment's JupyterLab 4 (UI=lab, the default) or Notebook 7 (UI=notebook). The
# tracked notebooks/ are never served. Kernels use the ipc transport (the environment's jupyter_server_config.json)
# in a directory only this user may open (scripts/kernel-dir.sh): no other local user can connect to them.
# usage: scripts/notebook.sh [BUILD_DIR [SERVER OPTIONS...]]   (env: UI=lab|notebook, WORDLAB_LESSONS=DIR)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$src/build}" && pwd)"
shift || true
venv="$build/venv"
ui="${UI:-lab}"
case "$ui" in
    lab | notebook) ;;
    *) echo "notebook.sh: UI=$ui: use UI=lab (JupyterLab 4) or UI=notebook (Notebook 7)" >&2; exit 2 ;;
esac
[ -x "$venv/bin/jupyter-$ui" ] || { echo "notebook.sh: $venv/bin/jupyter-$ui is missing (make notebook makes the environment)" >&2; exit 1; }
"$build/wordlab" install-kernel --user
lessons="${WORDLAB_LESSONS:-$HOME/wordlab/lessons}"
bash "$src/scripts/lessons-copy.sh" "$lessons" "$venv"

# The kernels' connection files (their keys) and ipc sockets, in a runtime directory that is this user's alone.
JUPYTER_RUNTIME_DIR="$(bash "$src/scripts/kernel-dir.sh" "$venv")"
export JUPYTER_RUNTIME_DIR

args=(--ip=127.0.0.1 --ServerApp.root_dir="$lessons")
if [ -z "${DISPLAY:-}" ]; then args+=(--no-browser); fi
if [ "$(id -u)" -eq 0 ]; then args+=(--allow-root); fi
echo "Serving your copy of the wordlab lessons ($lessons) with $([ "$ui" = lab ] && echo JupyterLab 4 || echo Notebook 7); open the URL printed below."
exec "$venv/bin/jupyter-$ui" "${args[@]}" "$@"
