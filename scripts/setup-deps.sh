#!/usr/bin/env bash
# setup-deps.sh: install the Debian packages that wordlab needs (only the missing ones): with `notebook`, only those
# that `make notebook` needs (build the program and the JupyterLab extension, make the Python environment); without,
# also those of the tests, the demo and the classroom (`make test`).
# usage: scripts/setup-deps.sh [notebook]
set -euo pipefail
# The packages whose names differ between the two Debian releases wordlab supports, chosen by /etc/debian_version:
# clang's runtime with libFuzzer (clang 14 on 12, clang 19 on 13) and xeus (2.4 on 12, which holds the zmq server;
# 5 on 13, whose server is xeus-zmq). WL_DEBIAN_VERSION stands in for the file and WL_SETUP_DEPS_PRINT=1 prints the
# packages chosen instead of installing them (tests/py/test_setup_deps.py).
debian="${WL_DEBIAN_VERSION:-$(cat /etc/debian_version 2>/dev/null || echo none)}"
case "$debian" in
  12.* | bookworm*) RELEASE_PKGS=(libclang-rt-14-dev xeus-dev) ;;
  13.* | trixie*) RELEASE_PKGS=(libclang-rt-19-dev xeus-dev xeus-zmq-dev) ;;
  *) echo "setup-deps: /etc/debian_version says '$debian': wordlab installs its packages on Debian 12 (bookworm) and 13 (trixie)" >&2
     exit 1 ;;
esac
PKGS=(
  build-essential cmake pkg-config
  libzmq3-dev libsodium-dev libssl-dev libcurl4-openssl-dev libcjson-dev libreadline-dev libopenblas-dev libutf8proc-dev zlib1g-dev
  python3 python3-venv
)
if [ "${1:-}" != notebook ]; then
  PKGS+=(
    clang "${RELEASE_PKGS[@]}"
    python3-numpy python3-torch python3-pytest python3-jupyter-client python3-jupyter-kernel-test
    python3-nbclient python3-nbformat python3-ipykernel jupyter-console jupyter-client python3-pexpect
    tmux valgrind chromium emscripten dpkg-dev
    python3-psutil python3-requests python3-tornado python3-zmq
  )
fi
if [ -n "${WL_SETUP_DEPS_PRINT:-}" ]; then echo "${PKGS[*]}"; exit 0; fi
missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ! command -v npm >/dev/null 2>&1; then missing+=(nodejs npm); fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-deps: all ${#PKGS[@]} packages present"
  exit 0
fi
echo "setup-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
