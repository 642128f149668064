#!/usr/bin/env bash
# notebook.sh: installs the wordlab kernel spec for this build, trusts the bundled lessons for this user and serves
# them on localhost: in wordlab's JupyterLab application (UI=lab, the default) or in Notebook 6 (UI=classic).
# usage: scripts/notebook.sh [BUILD_DIR]   (env: UI=lab|classic)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$src/build}" && pwd)"
ui="${UI:-lab}"
case "$ui" in
    lab | classic) ;;
    *) echo "notebook.sh: UI=$ui: use UI=lab (JupyterLab) or UI=classic (Notebook 6)" >&2; exit 2 ;;
esac
"$build/wordlab" install-kernel --user
# The saved tables, shadings and pictures of the lessons show on first open (the files themselves are not changed).
/usr/bin/python3 "$src/scripts/trust-notebooks.py" "$src"/notebooks/*.ipynb
args=(--ip=127.0.0.1)
if [ -z "${DISPLAY:-}" ]; then args+=(--no-browser); fi
if [ "$(id -u)" -eq 0 ]; then args+=(--allow-root); fi
if [ "$ui" = classic ]; then
    echo "Serving the wordlab lessons with Jupyter Notebook; open the URL printed below."
    exec jupyter notebook "${args[@]}" --notebook-dir="$src/notebooks"
fi
[ -f "$build/jupyterlab/build.stamp" ] || { echo "notebook.sh: the JupyterLab application is not built in $build/jupyterlab (make build)" >&2; exit 1; }
echo "Serving the wordlab lessons with JupyterLab; open the URL printed below."
WORDLAB_LAB_DIR="$build/jupyterlab" exec /usr/bin/python3 "$src/lab/wordlab_lab.py" "${args[@]}" --ServerApp.root_dir="$src/notebooks"
