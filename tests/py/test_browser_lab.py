"""test_browser_lab.py: wordlab's JupyterLab application in a real browser: the four lessons, completion, tooltip, help,
stop, restart, LaTeX, a .wlab file, a console, the dark theme (tests/browser/lab.sh; screenshots in build/browser-lab/)."""
import os
import subprocess

import pytest

SRC = os.environ.get("WL_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
BUILD = os.environ.get("WL_BUILD_DIR") or os.path.join(SRC, "build")
# One screenshot per step of tests/browser/lab.mjs, in its order.
SHOTS = ["launcher"] + [f"{n:02d}-{step}" for n in (1, 2, 3, 4) for step in ("first-open", "run-all")] + \
        ["completion", "tooltip", "help", "stop", "restart", "mathjax", "wlab-editor", "console", "dark-theme"]


def test_jupyterlab_runs_the_lessons_in_chromium():
    r = subprocess.run(["bash", os.path.join(SRC, "tests", "browser", "lab.sh")], cwd=SRC, capture_output=True,
                       text=True, timeout=840)
    if r.returncode != 0:
        pytest.fail(f"tests/browser/lab.sh failed (rc {r.returncode}):\n{r.stdout[-3000:]}\n--- stderr:\n{r.stderr[-6000:]}",
                    pytrace=False)
    assert "lab.mjs: all checks passed" in r.stdout, r.stdout[-4000:]
    shots = sorted(os.listdir(os.path.join(BUILD, "browser-lab")))
    assert shots == [f"{i + 1:02d}-{name}.png" for i, name in enumerate(SHOTS)], shots
    for name in shots:
        with open(os.path.join(BUILD, "browser-lab", name), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", name
