#!/usr/bin/env bash
# notebook.sh: installs the wordlab kernel spec for this build and serves the lessons in Jupyter on localhost.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$src/build}" && pwd)"
"$build/wordlab" install-kernel --user
app=notebook
if command -v jupyter-lab >/dev/null 2>&1; then app=lab; fi
args=(--ip=127.0.0.1 --notebook-dir="$src/notebooks")
if [ -z "${DISPLAY:-}" ]; then args+=(--no-browser); fi
if [ "$(id -u)" -eq 0 ]; then args+=(--allow-root); fi
echo "Serving the wordlab lessons with Jupyter $app; open the URL printed below."
exec jupyter "$app" "${args[@]}"
