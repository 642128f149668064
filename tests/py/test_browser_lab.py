"""test_browser_lab.py: `make notebook`'s JupyterLab 4 in a real browser on the user's working copy of the lessons:
the four lessons, completion, tooltip, help, stop, restart, LaTeX, the kernel on ipc, a .wlab file, a console, the
dark theme, lesson 01 in Notebook 7 (tests/browser/lab.sh; screenshots in build/browser-lab/); running and saving
every lesson leaves the checkout as it was."""
import os
import subprocess

import pytest

SRC = os.environ.get("WL_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
BUILD = os.environ.get("WL_BUILD_DIR") or os.path.join(SRC, "build")
# One screenshot per step of tests/browser/lab.mjs, in its order.
SHOTS = ["launcher"] + [f"{n:02d}-{step}" for n in (1, 2, 3, 4) for step in ("first-open", "run-all")] + \
        ["completion", "tooltip", "help", "stop", "restart", "mathjax", "wlab-editor", "console", "notebook7",
         "dark-theme", "dark-04", "dark-03"]


def git_status():
    """The checkout's status (tracked files changed, untracked files not ignored), or None outside a git checkout."""
    r = subprocess.run(["git", "-C", SRC, "status", "--porcelain"], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def run_browser_test(script, shots_dir):
    r = subprocess.run(["bash", os.path.join(SRC, "tests", "browser", script)], cwd=SRC, capture_output=True,
                       text=True, timeout=840)
    if r.returncode != 0:
        pytest.fail(f"tests/browser/{script} failed (rc {r.returncode}):\n{r.stdout[-3000:]}\n--- stderr:\n{r.stderr[-6000:]}",
                    pytrace=False)
    shots = sorted(os.listdir(os.path.join(BUILD, shots_dir)))
    for name in shots:
        with open(os.path.join(BUILD, shots_dir, name), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", name
    return r.stdout, shots


def test_jupyterlab_runs_the_lessons_in_chromium():
    before = git_status()
    out, shots = run_browser_test("lab.sh", "browser-lab")
    assert "lab.mjs: all checks passed" in out, out[-4000:]
    assert shots == [f"{i + 1:02d}-{name}.png" for i, name in enumerate(SHOTS)], shots
    # Every lesson ran and was saved in the working copy (in the test's private home), not in the checkout.
    assert git_status() == before
