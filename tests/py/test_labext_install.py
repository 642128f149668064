"""test_labext_install.py: `wordlab install-kernel` installs the prebuilt JupyterLab extension from beside the program
(BUILD/lab/labextension) into labextensions/ of the prefix or of the user's data directory, replacing an earlier copy
whole; a program with no extension beside it says so and fails."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import kernel_util as ku

BUILT = Path(os.path.realpath(ku.WORDLAB)).parent / "lab" / "labextension"


def installed(base):
    ext = base / "labextensions" / "wordlab-jupyterlab"
    pkg = json.loads((ext / "package.json").read_text())
    assert pkg["name"] == "wordlab-jupyterlab"
    assert (ext / pkg["jupyterlab"]["_build"]["load"]).is_file()
    return ext


def tree(d):
    return sorted((str(p.relative_to(d)), p.read_bytes()) for p in d.rglob("*") if p.is_file())


def test_the_extension_goes_beside_the_kernel_spec(tmp_path):
    r = subprocess.run([ku.WORDLAB, "install-kernel", "--prefix", str(tmp_path / "p")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ext = installed(tmp_path / "p" / "share" / "jupyter")
    assert tree(ext) == tree(BUILT)
    assert f"Installed the wordlab JupyterLab extension in {ext}" in r.stdout
    # A later install replaces the copy whole: a file of an earlier build does not stay.
    (ext / "static" / "stale.js").write_text("old")
    r = subprocess.run([ku.WORDLAB, "install-kernel", "--prefix", str(tmp_path / "p")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert tree(ext) == tree(BUILT)
    env = dict(os.environ, JUPYTER_DATA_DIR=str(tmp_path / "data"))
    r = subprocess.run([ku.WORDLAB, "install-kernel", "--user"], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert tree(installed(tmp_path / "data")) == tree(BUILT)


def test_a_program_without_the_extension_beside_it_fails(tmp_path):
    exe = tmp_path / "bin" / "wordlab"
    exe.parent.mkdir()
    shutil.copy(ku.WORDLAB, exe)
    r = subprocess.run([str(exe), "install-kernel", "--prefix", str(tmp_path / "p")], capture_output=True, text=True)
    assert r.returncode == 1
    assert "the JupyterLab extension is not built next to this program" in r.stderr, r.stderr
