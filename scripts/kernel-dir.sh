#!/usr/bin/env bash
# kernel-dir.sh: prints the directory for the connection files and ipc sockets of the kernels that a server of the
# environment VENV starts: Jupyter's runtime directory (made, mode 0700, this user's), or, when its path is too long
# for a Unix socket's (107 bytes: DIR/kernel-UUID-ipc-N), a new mode-0700 directory under /tmp.
# usage: scripts/kernel-dir.sh VENV   (notebook.sh and lab-singleuser.sh pass it as --MultiKernelManager.connection_dir)
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
