#!/usr/bin/env bash
# build-labextension.sh: builds the wordlab JupyterLab 4 extension (lab/) as a prebuilt (federated) extension into
# OUT/labextension with JupyterLab's own builder (`jupyter-builder build` of VENV, which `jupyter labextension build` now calls): the sources are copied to
# OUT/src with the kernel's logo and commands.ts (the language's commands, from `WORDLAB commands`); `npm ci` from
# lab/package-lock.json when the installed packages are not those of the lockfile (the only step that needs the
# npm registry); then tsc and the builder. `wordlab install-kernel` copies OUT/labextension to where JupyterLab
# finds extensions.
# usage: scripts/build-labextension.sh OUT WORDLAB VENV   (CMake runs it when a source of the extension changed)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: build-labextension.sh OUT WORDLAB VENV}"
wordlab="${2:?usage: build-labextension.sh OUT WORDLAB VENV}"
venv="${3:?usage: build-labextension.sh OUT WORDLAB VENV}"
for tool in node npm "$venv/bin/jupyter-builder" "$wordlab"; do
    command -v "$tool" >/dev/null || { echo "build-labextension: $tool is missing (scripts/setup-deps.sh installs nodejs and npm, scripts/setup-venv.sh the venv)" >&2; exit 1; }
done
mkdir -p "$out/src/src" "$out/src/style"
out="$(cd "$out" && pwd)"
venv="$(cd "$venv" && pwd)"
work="$out/src"
cp "$src/lab/package.json" "$src/lab/package-lock.json" "$src/lab/tsconfig.json" "$work/"
rm -f "$work"/src/*.ts
cp "$src"/lab/src/*.ts "$work/src/"
cp "$src"/lab/style/*.css "$work/style/"
cp "$src/share/jupyter/kernels/wordlab/logo-svg.svg" "$work/style/logo.svg"
{
    echo "// commands.ts: the commands of the wordlab language (written by scripts/build-labextension.sh from \`wordlab commands\`)."
    printf 'export const COMMANDS: string[] = ['
    "$wordlab" commands | sed 's/.*/"&"/' | paste -sd, | tr -d '\n'
    printf '];\n'
} >"$work/src/commands.ts"
grep -q '"help"' "$work/src/commands.ts" || { echo "build-labextension: \`$wordlab commands\` listed no commands" >&2; exit 1; }

# node_modules holds exactly the lockfile's packages once `npm ci` succeeded; the copy of the lockfile says so.
installed="$work/node_modules/.wordlab-package-lock.json"
if ! cmp -s "$work/package-lock.json" "$installed"; then
    echo "build-labextension: npm ci (the packages of lab/package-lock.json)"
    SECONDS=0
    if ! (cd "$work" && npm ci --no-audit --no-fund --loglevel=error); then
        echo "build-labextension: npm ci failed: the first build downloads the packages of lab/package-lock.json from the npm registry" >&2
        exit 1
    fi
    cp "$work/package-lock.json" "$installed"
    echo "build-labextension: npm ci took $SECONDS s"
fi

# The build's inputs (the copied sources, commands.ts among them, the installed packages, the environment): nothing
# to do when the extension was built from the same (a change of the program that leaves its command list as it was).
inputs="$(cd "$work" && cat package.json package-lock.json tsconfig.json src/*.ts style/* "$installed" "$venv/wordlab-requirements.txt" | sha256sum | cut -d' ' -f1)"
if [ -f "$out/labextension/package.json" ] && [ "$(cat "$out/labextension.inputs" 2>/dev/null)" = "$inputs" ]; then
    touch "$out/labextension/package.json"
    exit 0
fi
SECONDS=0
rm -rf "$work/lib" "$work/labextension" "$out/labextension.inputs"
(cd "$work" && node node_modules/typescript/bin/tsc && "$venv/bin/jupyter-builder" build .)
[ -s "$work/labextension/package.json" ] || { echo "build-labextension: the builder wrote no $work/labextension/package.json" >&2; exit 1; }
rm -rf "$out/labextension"
cp -r "$work/labextension" "$out/labextension"
echo "$inputs" >"$out/labextension.inputs"
echo "build-labextension: tsc and the builder took $SECONDS s; the extension is in $out/labextension ($(du -sh "$out/labextension" | cut -f1))"
