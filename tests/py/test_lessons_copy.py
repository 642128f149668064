"""test_lessons_copy.py: the user's working copy of the lessons (scripts/lessons-copy.sh, which `make notebook` runs):
every lesson copied and signed; a file planted in the folder never signed; after a bundled lesson changes, an
unedited copy is updated and an edited one kept with the new version beside it; the checkout never written."""
import os
import shutil
import subprocess
from pathlib import Path

import nbformat
from nbformat.sign import NotebookNotary

SRC = Path(os.environ.get("WL_SOURCE_DIR") or Path(__file__).resolve().parents[2])
BUILD = Path(os.environ.get("WL_BUILD_DIR") or SRC / "build")
LESSONS = sorted(p.stem + ".ipynb" for p in (SRC / "lessons").glob("*.wlab"))


def copy(dest, data):
    env = dict(os.environ, JUPYTER_DATA_DIR=str(data))
    r = subprocess.run(["bash", str(SRC / "scripts" / "lessons-copy.sh"), str(dest), str(BUILD / "venv")],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def signed(data, path):
    return NotebookNotary(data_dir=str(data)).check_signature(nbformat.read(path, as_version=4))


def test_the_working_copy_is_made_updated_and_never_overwritten(tmp_path):
    dest, data = tmp_path / "lessons", tmp_path / "data"
    assert len(LESSONS) == 4, LESSONS
    dest.mkdir()
    planted = dest / "planted.ipynb"
    shutil.copyfile(SRC / "notebooks" / LESSONS[0], planted)
    nb = nbformat.read(planted, as_version=4)
    nb.cells[0].source += "\n<script>alert(1)</script>"
    nbformat.write(nb, planted)

    out = copy(dest, data)
    for name in LESSONS:
        assert (dest / name).read_bytes() == (SRC / "notebooks" / name).read_bytes(), name
        assert signed(data, dest / name), name
        assert f"{name} (new)" in out
    assert not signed(data, planted)

    # The user edits lesson 1; then the bundled lessons 1 and 2 change (as after a `git pull`): seen here as the
    # versions last handed out being older than the bundled ones.
    edited = dest / LESSONS[0]
    nb = nbformat.read(edited, as_version=4)
    nb.cells[0].source += "\nmy notes"
    nbformat.write(nb, edited)
    mine = edited.read_bytes()
    for name in LESSONS[:2]:
        old = nbformat.read(SRC / "notebooks" / name, as_version=4)
        old.cells[0].source = "an older version"
        nbformat.write(old, dest / ".bundled" / name)
    nbformat.write(old, dest / LESSONS[1])  # lesson 2 as it was handed out: not edited

    out = copy(dest, data)
    assert edited.read_bytes() == mine, "the edited lesson was overwritten"
    new = sorted(dest.glob(LESSONS[0][:-len(".ipynb")] + ".updated-*.ipynb"))
    assert len(new) == 1 and new[0].read_bytes() == (SRC / "notebooks" / LESSONS[0]).read_bytes(), new
    assert f"the new version is {new[0]}" in out, out
    assert signed(data, new[0])
    assert (dest / LESSONS[1]).read_bytes() == (SRC / "notebooks" / LESSONS[1]).read_bytes()
    assert f"{dest / LESSONS[1]} updated" in out, out
    assert signed(data, dest / LESSONS[1])
    assert not signed(data, planted)

    # Nothing changed since: a third run changes nothing and says nothing but the count.
    before = sorted((p.name, p.read_bytes()) for p in dest.iterdir() if p.is_file())
    out = copy(dest, data)
    assert sorted((p.name, p.read_bytes()) for p in dest.iterdir() if p.is_file()) == before
    assert out.splitlines() == [f"lessons-copy: 3 lesson(s) in {dest} signed for this user"], out
