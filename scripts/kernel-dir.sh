#!/usr/bin/env bash
# kernel-dir.sh: prints the runtime directory for a server of the environment VENV, where its kernels' connection
# files and ipc sockets go: Jupyter's runtime directory (made, mode 0700, this user's), or, when its path is too long
# for a Unix socket's (107 bytes: DIR/kernel-UUID-ipc-N), a new mode-0700 directory under /tmp.
# usage: scripts/kernel-dir.sh VENV   (notebook.sh and lab-singleuser.sh run the server with it as JUPYTER_RUNTIME_DIR)
set -euo pipefail
venv="${1:?usage: kernel-dir.sh VENV}"
dir="$("$venv/bin/jupyter" --runtime-dir)"
if [ ${#dir} -gt 50 ]; then
    dir="$(mktemp -d "${TMPDIR:-/tmp}/wordlab-kernels-XXXXXX")"
fi
mkdir -p "$dir"
chmod 700 "$dir"
[ "$(stat -c %u "$dir")" = "$(id -u)" ] || { echo "kernel-dir: $dir belongs to another user" >&2; exit 1; }
echo "$dir"
