#!/usr/bin/env bash
# build.sh: builds build/lite, the JupyterLite site of the lessons with the wordlab kernel running in the browser.
# usage: lite/build.sh SRC BUILD [EXTENSION_DIR...]
#   SRC    the source tree; BUILD the CMake build directory (its debian-src/ and lite-obj/sources.mk come from CMake)
#   EXTENSION_DIR  more prebuilt JupyterLab 4 extensions to put in the site (each a directory with its package.json
#          and static/), e.g. the wordlab highlighting extension
# Steps, each redone only when its inputs changed: the Python environment BUILD/venv-lite (jupyterlite-core and the
# JupyterLab extension builder, pinned with hashes in lite/requirements.txt), the extension's npm packages (npm ci
# from lite/extension/package-lock.json), the WebAssembly kernel (lite/wasm.mk), the kernel extension, and the site.
# Only the first two need the network (PyPI and the npm registry); the site itself requests nothing outside itself.
set -euo pipefail
src="$(cd "${1:?usage: build.sh SRC BUILD [EXTENSION_DIR...]}" && pwd)"
build="$(mkdir -p "${2:?}" && cd "$2" && pwd)"
shift 2
extra=("$@")
venv="$build/venv-lite" ext="$src/lite/extension" site="$build/lite"
for tool in emcc node npm /usr/bin/python3; do
    command -v "$tool" >/dev/null || { echo "lite build: $tool is missing (scripts/setup-deps.sh installs it)" >&2; exit 1; }
done

# The Python environment: rebuilt when lite/requirements.txt changes (its SHA-256 is kept in the stamp).
req_sum="$(sha256sum "$src/lite/requirements.txt" | cut -d' ' -f1)"
if [ "$(cat "$venv/.stamp" 2>/dev/null)" != "$req_sum" ]; then
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --require-hashes --no-deps -r "$src/lite/requirements.txt" ||
        { echo "lite build: pip could not install lite/requirements.txt (PyPI unreachable?)" >&2; exit 1; }
    echo "$req_sum" >"$venv/.stamp"
fi

# The extension's npm packages: npm ci when the lockfile is not the one installed (its SHA-256 kept beside them).
lock_sum="$(sha256sum "$ext/package-lock.json" | cut -d' ' -f1)"
if [ "$(cat "$ext/node_modules/.wordlab-lock.sha256" 2>/dev/null)" != "$lock_sum" ]; then
    (cd "$ext" && npm ci --no-audit --no-fund --loglevel=error) ||
        { echo "lite build: npm ci failed in lite/extension (npm registry unreachable?)" >&2; exit 1; }
    echo "$lock_sum" >"$ext/node_modules/.wordlab-lock.sha256"
fi

# The WebAssembly kernel.
NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH} make --no-print-directory -s -f "$src/lite/wasm.mk" -j2 \
    SRC="$src" DEB="$build/debian-src" OBJ="$build/lite-obj" OUT="$build/lite-wasm"

# The kernel extension (prebuilt, against the JupyterLab of the environment), with the worker, the module, the
# kernel's logos and the list of artifacts in its static files.
labext="$build/lite-ext/wordlab-lite-kernel"
export PATH="$venv/bin:$PATH"
(cd "$ext" && npx tsc -p . && jupyter labextension build \
    --core-path "$("$venv/bin/python" -c 'import jupyterlab, os; print(os.path.dirname(jupyterlab.__file__))')/staging" .) \
    >"$build/lite-ext.log" 2>&1 || { cat "$build/lite-ext.log" >&2; echo "lite build: the kernel extension failed to build" >&2; exit 1; }
rm -rf "$labext" && mkdir -p "$(dirname "$labext")" && cp -r "$ext/labextension" "$labext"
cp "$src/lite/worker.js" "$build"/lite-wasm/wordlab-lite{,-relaxed}.{mjs,wasm} \
   "$src"/share/jupyter/kernels/wordlab/logo-* "$labext/static/"
arts=()
for f in "$src"/share/artifacts/*; do arts+=("\"$(basename "$f")\""); done
(IFS=,; echo "[${arts[*]}]") >"$labext/static/artifacts.json"

# The site's contents: the four lessons and the artifacts (served as files/artifacts/).
contents="$build/lite-contents"
rm -rf "$contents" && mkdir -p "$contents/artifacts"
cp "$src"/notebooks/*.ipynb "$contents/"
cp "$src"/share/artifacts/* "$contents/artifacts/"

extdirs=("$build/lite-ext")
for d in "${extra[@]}"; do
    [ -f "$d/package.json" ] || { echo "lite build: $d is no prebuilt extension (no package.json)" >&2; exit 1; }
    mkdir -p "$build/lite-ext-extra" && rm -rf "$build/lite-ext-extra/$(basename "$d")" && cp -r "$d" "$build/lite-ext-extra/"
    extdirs=("$build/lite-ext-extra" "${extdirs[@]}")
done
# The lite directory (jupyter-lite.json: the page's settings) is copied to the build, where jupyter lite keeps its state.
litedir="$build/lite-dir"
rm -rf "$site" "$build/lite-cache" "$litedir" && mkdir -p "$litedir" && cp "$src"/lite/site/* "$litedir/"
(cd "$litedir" && jupyter lite build --ignore-sys-prefix --no-sourcemaps --no-unused-shared-packages --apps lab \
    --contents "$contents" --output-dir "$site" --lite-dir "$litedir" --LiteBuildConfig.cache_dir="$build/lite-cache" \
    "${extdirs[@]/#/--FederatedExtensionAddon.extra_labextensions_path=}") >"$build/lite-site.log" 2>&1 ||
    { tail -40 "$build/lite-site.log" >&2; echo "lite build: jupyter lite build failed (log: $build/lite-site.log)" >&2; exit 1; }
touch "$site/build.stamp"
echo "lite build: $site ($(du -sh "$site" | cut -f1))"
