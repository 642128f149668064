"""test_browser.py: lesson 01 in a real browser: Jupyter Notebook on localhost, Debian's chromium driven by playwright-core (tests/browser/run.sh)."""
import os
import subprocess

SRC = os.environ.get("WL_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
BUILD = os.environ.get("WL_BUILD_DIR") or os.path.join(SRC, "build")


def test_lesson01_runs_in_chromium():
    shot = os.path.join(BUILD, "browser-lesson01.png")
    r = subprocess.run(["bash", os.path.join(SRC, "tests", "browser", "run.sh")], cwd=SRC, capture_output=True,
                       text=True, timeout=840)
    assert r.returncode == 0, (r.stdout[-3000:], r.stderr[-5000:])
    # what the page showed: every cell ran, the head table and at least one heat map were rendered
    assert '"headTable":5' in r.stdout and '"errors":[]' in r.stdout, r.stdout
    with open(shot, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
