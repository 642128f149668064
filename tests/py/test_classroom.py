"""test_classroom.py: `make classroom` serves the lessons to a logged-in student, and the smoke load test passes.

The classroom script starts Debian's JupyterHub on 127.0.0.1; a student logs in through the login form, gets a
JupyterLab server (wordlab's application) with the four lessons in a new home (signed, so their saved pictures show), and Ctrl-C stops the hub with
every server it started.  The smoke load test (tests/load/loadtest.py --smoke) runs lessons 01 and 03 for two
simulated students through the hub's REST and kernel WebSocket APIs and cleans up every user and process.
"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import psutil
import requests
from nbformat.sign import NotebookNotary

SRC = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("WL_BUILD_DIR", SRC / "build"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def hub_children(user):
    found = []
    for p in psutil.process_iter():
        try:
            if p.environ().get("JUPYTERHUB_USER") == user:
                found.append(p)
        except (psutil.Error, OSError):
            pass
    return found


def test_classroom_serves_the_lessons_to_a_student_and_ctrl_c_stops_everything(tmp_path):
    port = free_port()
    env = dict(os.environ, PORT=str(port), STATE=str(tmp_path / "state"), KERNEL_PREFIX=str(tmp_path / "prefix"),
               UI="lab")
    log = open(tmp_path / "classroom.log", "wb")
    hub = subprocess.Popen(["bash", str(SRC / "scripts" / "classroom.sh"), str(BUILD)], env=env, stdout=log,
                           stderr=subprocess.STDOUT, start_new_session=True)
    user = "student-%d" % os.getpid()
    try:
        base = "http://127.0.0.1:%d" % port
        s = requests.Session()
        while True:  # the hub is up when its login page answers
            assert hub.poll() is None, (tmp_path / "classroom.log").read_text()
            try:
                if s.get(base + "/hub/login", timeout=5).status_code == 200:
                    break
            except requests.ConnectionError:
                time.sleep(0.2)
        r = s.post(base + "/hub/login", data={"username": user, "password": "any", "_xsrf": s.cookies.get("_xsrf")})
        assert r.status_code == 200, r.text[:500]
        while True:  # the student's JupyterLab is served once the server is ready (and has logged the browser in)
            page = s.get(base + "/user/%s/lab" % user)
            if page.status_code == 200 and page.url.endswith("/user/%s/lab" % user):
                break
            assert hub.poll() is None, (tmp_path / "classroom.log").read_text()
            time.sleep(0.25)
        assert "jupyter-config-data" in page.text and "wordlab" in page.text, page.text[:500]
        assert s.get(base + "/user/%s/api/me" % user).json()["identity"]["name"] == user
        r = s.get(base + "/user/%s/api/contents" % user)
        assert r.status_code == 200, r.status_code
        names = sorted(item["name"] for item in r.json()["content"])
        lessons = sorted(p.name for p in (SRC / "notebooks").glob("*.ipynb"))
        assert names == lessons
        specs = s.get(base + "/user/%s/api/kernelspecs" % user).json()["kernelspecs"]
        assert specs["wordlab"]["spec"]["argv"][0] == str((BUILD / "wordlab").resolve())
        home = tmp_path / "state" / "home" / user
        notary = NotebookNotary(data_dir=str(home / ".local" / "share" / "jupyter"))
        for name in lessons:
            assert notary.check_signature(nbformat.read(home / name, as_version=4)), name
        assert hub_children(user), "the student's server runs"
    finally:
        os.killpg(hub.pid, signal.SIGINT)  # Ctrl-C
        rc = hub.wait(60)
        log.close()
    assert hub_children(user) == [], "Ctrl-C stopped the student's server"
    assert rc in (0, -signal.SIGINT, 128 + signal.SIGINT), rc


def test_smoke_load_test_runs_two_students_through_lessons_01_and_03():
    r = subprocess.run([sys.executable, str(SRC / "tests" / "load" / "loadtest.py"), "--build", str(BUILD), "--smoke"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "smoke: ok (2 students" in r.stdout, r.stdout
    row = next(l for l in r.stdout.splitlines() if re.match(r"\s+2\s+\d+\s", l))
    cells = int(row.split()[1])
    expected = sum(sum(1 for c in nbformat.read(SRC / "notebooks" / n, 4).cells if c.cell_type == "code")
                   for n in ("01_one_head_and_four_heads.ipynb", "03_cross_entropy_and_perplexity.ipynb"))
    assert cells == 2 * expected
