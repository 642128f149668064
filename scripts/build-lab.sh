#!/usr/bin/env bash
# build-lab.sh: builds the JupyterLab application (lab/) into OUT: `npm ci` from lab/package-lock.json when the
# installed packages are not those of the lockfile (the only step that needs the npm registry), then webpack.
# usage: scripts/build-lab.sh OUT   (CMake runs it when a source of the application changed)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: build-lab.sh OUT}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
lab="$src/lab"
for tool in node npm; do
    command -v "$tool" >/dev/null || { echo "build-lab: $tool is missing (scripts/setup-deps.sh installs nodejs and npm)" >&2; exit 1; }
done

# lab/node_modules holds exactly the lockfile's packages once `npm ci` succeeded; the copy of the lockfile says so.
installed="$lab/node_modules/.wordlab-package-lock.json"
if ! cmp -s "$lab/package-lock.json" "$installed"; then
    echo "build-lab: npm ci in lab/ (the packages of lab/package-lock.json)"
    SECONDS=0
    if ! (cd "$lab" && npm ci --no-audit --no-fund --loglevel=error); then
        echo "build-lab: npm ci failed: the first build downloads the packages of lab/package-lock.json from the npm registry" >&2
        exit 1
    fi
    cp "$lab/package-lock.json" "$installed"
    echo "build-lab: npm ci took $SECONDS s"
fi

rm -f "$out/build.stamp"
SECONDS=0
(cd "$lab" && WL_LAB_OUT="$out" node node_modules/webpack/bin/webpack.js --config webpack.config.js --stats errors-warnings)
[ -s "$out/static/main.js" ] || { echo "build-lab: webpack wrote no $out/static/main.js" >&2; exit 1; }
touch "$out/build.stamp"
echo "build-lab: webpack took $SECONDS s; the JupyterLab application is in $out ($(du -sh "$out" | cut -f1))"
