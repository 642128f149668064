#!/usr/bin/env bash
# lessons-copy.sh: the user's working copy of the lessons in DEST, made from the bundled notebooks (notebooks/NAME.ipynb
# for each lessons/NAME.wlab), never served in place: a lesson missing from DEST is copied; when a bundled lesson
# changed since it was copied, an unedited copy is replaced by the new version and an edited one is kept, the new
# version put beside it as NAME.updated-DATE.ipynb (the user is told; nothing is overwritten). DEST/.bundled/ keeps
# the version last handed out. Only copies whose content is a bundled lesson's are signed (trusted, so that their
# saved pictures show), with the environment's `jupyter trust`, or, given LIST, by the caller: their paths are written
# to the file LIST, one a line (the classroom's server signs them in its own process); any other file in DEST is left
# as it is.
# usage: scripts/lessons-copy.sh DEST VENV [LIST]
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:?usage: lessons-copy.sh DEST VENV [LIST]}"
venv="${2:?usage: lessons-copy.sh DEST VENV [LIST]}"
list="${3:-}"
mkdir -p "$dest/.bundled"
sign=()
for wlab in "$src"/lessons/*.wlab; do
    name="$(basename "${wlab%.wlab}").ipynb"
    bundled="$src/notebooks/$name"
    [ -f "$bundled" ] || { echo "lessons-copy: $bundled (built from $wlab) is missing: make notebooks" >&2; exit 1; }
    copy="$dest/$name" handed="$dest/.bundled/$name"
    if [ ! -e "$copy" ]; then
        cp "$bundled" "$copy"
        cp "$bundled" "$handed"
        echo "lessons-copy: $copy (new)"
    elif [ ! -f "$handed" ] && cmp -s "$copy" "$bundled"; then
        cp "$bundled" "$handed"
    elif ! cmp -s "$bundled" "$handed"; then
        if [ -f "$handed" ] && cmp -s "$copy" "$handed"; then
            cp "$bundled" "$copy"
            echo "lessons-copy: $copy updated to the new version of the lesson (you had not changed it)"
        else
            new="$dest/${name%.ipynb}.updated-$(date +%Y%m%d-%H%M%S).ipynb"
            cp "$bundled" "$new"
            sign+=("$new")
            echo "lessons-copy: the lesson $name changed: the new version is $new, beside your edited $copy (kept as it is)"
        fi
        cp "$bundled" "$handed"
    fi
    if cmp -s "$copy" "$bundled"; then sign+=("$copy"); fi
done
if [ -n "$list" ]; then
    printf '%s\n' "${sign[@]}" > "$list"
    echo "lessons-copy: ${#sign[@]} lesson(s) in $dest to sign for this user (listed in $list)"
else
    if [ ${#sign[@]} -gt 0 ]; then "$venv/bin/jupyter-trust" "${sign[@]}" >/dev/null; fi
    echo "lessons-copy: ${#sign[@]} lesson(s) in $dest signed for this user"
fi
