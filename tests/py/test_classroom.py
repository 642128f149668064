"""test_classroom.py: `make classroom` is safe to run and serves the lessons; the smoke load test passes.

The classroom (scripts/classroom.sh) starts as `make classroom` does, as root, on a free port, with its state, homes
and shared cache in a temporary folder and what the students run in a prefix under /var/tmp (the load test's
start_classroom). Checked: no login without the real password, the admin's included (a wrong one, an empty one, the
other role's); each student's server and kernels run as a Unix user of their own, never root; homes lie outside the
build and the source tree, each the student's only; a student gets JupyterLab 4 with the wordlab kernel and the four
lessons, signed for them, from a server without terminals or the hub's encryption module, which leaves out the hub's
database layer; the port is the classroom's own; Ctrl-C stops the hub and every student's server. Every account the
classroom made is removed. As a user other than root, the classroom must refuse to start.
"""
import os
import pwd
import re
import signal
import stat
import subprocess
import sys
import secrets
import shutil
import tempfile
import time
from pathlib import Path

import nbformat
import psutil
import pytest
import requests
from nbformat.sign import NotebookNotary

SRC = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("WL_BUILD_DIR", SRC / "build")).resolve()
sys.path.insert(0, str(SRC / "tests" / "load"))
import loadtest  # noqa: E402

STUDENTS = ["t%sa" % secrets.token_hex(3), "t%sb" % secrets.token_hex(3)]  # accounts wl-NAME


def hub_children(user):
    found = []
    for p in psutil.process_iter():
        try:
            if p.environ().get("JUPYTERHUB_USER") == user:
                found.append(p)
        except (psutil.Error, OSError):
            pass
    return found


def as_user(account, *cmd):
    """cmd run as the Unix account, with no other group."""
    pw = pwd.getpwnam(account)
    return subprocess.run(["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid, "--clear-groups", *cmd],
                          capture_output=True, text=True, timeout=60)


class Classroom:
    def __init__(self, tmp):
        self.tmp = tmp
        self.port = loadtest.free_port()
        self.base = "http://127.0.0.1:%d" % self.port
        self.token = secrets.token_hex(32)
        self.logfile = tmp / "classroom.log"
        self.log = open(self.logfile, "wb")
        self.proc, self.env = loadtest.start_classroom(BUILD, tmp, self.port, self.token, self.log)
        self.state, self.homes = tmp / "state", tmp / "homes"
        deadline = time.monotonic() + loadtest.START_LIMIT
        while True:  # up when the hub's API answers
            assert self.proc.poll() is None, self.log_text()
            assert time.monotonic() < deadline, self.log_text()
            try:
                if requests.get(self.base + "/hub/api/", timeout=5).status_code == 200:
                    break
            except requests.ConnectionError:
                time.sleep(0.5)

    def log_text(self):
        self.log.flush()
        return self.logfile.read_text(errors="replace")[-5000:]

    def api(self, method, path, **kw):
        r = requests.request(method, self.base + path, headers={"Authorization": "token " + self.token}, timeout=60, **kw)
        assert r.status_code < 400, (method, path, r.status_code, r.text[:300])
        return r.json() if r.content else None

    def password(self, which):
        f = self.state / which
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
        return f.read_text().strip()

    def login(self, name, password):
        """A browser's login: the form's page, then the form. Returns (the session, the HTTP status: 302 = in)."""
        s = requests.Session()
        s.get(self.base + "/hub/login", timeout=60)
        r = s.post(self.base + "/hub/login", data={"username": name, "password": password,
                                                   "_xsrf": s.cookies.get("_xsrf")}, allow_redirects=False, timeout=60)
        return s, r.status_code


@pytest.fixture(scope="module")
def classroom():
    if os.geteuid() != 0:
        pytest.fail("the classroom runs as root (each student a Unix user of its own): run this test as root; "
                    "as another user only test_refuses_to_start_without_root applies")
    tmp = Path(tempfile.mkdtemp(prefix="wordlab-classroom-"))  # under /tmp: the students pass through it
    room = Classroom(tmp)
    yield room
    if room.proc.poll() is None:
        os.killpg(room.proc.pid, signal.SIGTERM)
        room.proc.wait(120)
    room.log.close()
    loadtest.remove_accounts(room.homes, ["wl-" + n for n in STUDENTS + ["teacher"]])
    shutil.rmtree(tmp)


def test_refuses_to_start_without_root(tmp_path):
    cmd = ["bash", str(SRC / "scripts" / "classroom.sh"), str(BUILD)]
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        cmd = ["setpriv", "--reuid=%d" % nobody.pw_uid, "--regid=%d" % nobody.pw_gid, "--clear-groups"] + cmd
    r = subprocess.run(cmd, env=dict(os.environ, STATE=str(tmp_path / "state")), capture_output=True, text=True,
                       timeout=60)
    assert r.returncode != 0 and "run it as root" in r.stderr, r.stderr


def test_a_port_of_its_own():
    config = (SRC / "share" / "classroom" / "jupyterhub_config.py").read_text()
    assert 'env("WORDLAB_CLASSROOM_PORT", "8700")' in config
    assert "PORT:-8700" in (SRC / "scripts" / "classroom.sh").read_text()
    demo = re.search(r"^DEMO_PORT \?= (\d+)", (SRC / "Makefile").read_text(), re.M).group(1)
    assert demo != "8700"


def test_no_login_without_the_real_password(classroom):
    student, teacher = classroom.password("class-password"), classroom.password("teacher-password")
    assert len(student) >= 8 and len(teacher) >= 32
    for name, password in [("teacher", ""), ("teacher", "any"), ("teacher", student),
                           (STUDENTS[0], ""), (STUDENTS[0], "any"), (STUDENTS[0], teacher)]:
        s, code = classroom.login(name, password)
        assert code != 302 and "jupyterhub-hub-login" not in s.cookies, "%s logged in with a wrong password" % name
    s, code = classroom.login("teacher", teacher)
    assert code == 302 and "jupyterhub-hub-login" in s.cookies
    assert classroom.api("GET", "/hub/api/users/wl-teacher")["admin"] is True


def test_each_student_a_unix_user_of_their_own_with_the_lessons(classroom):
    password = classroom.password("class-password")
    uids = {}
    for name in STUDENTS:
        account = "wl-" + name
        s, code = classroom.login(name, password)
        assert code == 302, "%s could not log in with the class password" % name
        assert classroom.api("GET", "/hub/api/users/" + account)["admin"] is False
        s.get(classroom.base + "/hub/spawn", timeout=120)  # where the hub sends a browser after the login
        deadline = time.monotonic() + 300
        while True:  # the student's JupyterLab is served once the server is ready (and has logged the browser in)
            page = s.get(classroom.base + "/user/%s/lab" % account, timeout=60)
            if page.status_code == 200 and page.url.endswith("/user/%s/lab" % account):
                break
            assert classroom.proc.poll() is None and time.monotonic() < deadline, classroom.log_text()
            time.sleep(0.25)
        assert "jupyter-config-data" in page.text and "wordlab" in page.text, page.text[:500]
        specs = s.get(classroom.base + "/user/%s/api/kernelspecs" % account).json()["kernelspecs"]
        assert specs["wordlab"]["spec"]["argv"][0] == str(loadtest.classroom_prefix(BUILD) / "bin" / "wordlab")
        kernel = classroom.api("POST", "/user/%s/api/kernels" % account, json={"name": "wordlab"})
        pw = pwd.getpwnam(account)
        uids[account] = pw.pw_uid
        assert pw.pw_uid != 0
        procs = hub_children(account)
        cmds = [" ".join(p.cmdline()) for p in procs]
        assert any("singleuser.py" in c for c in cmds) and any("wordlab kernel" in c for c in cmds), cmds
        # The server loads only what the lessons use (jupyterhub_config.py, singleuser.py): no terminals, and not
        # the hub's encryption (cryptography's compiled module), which it never uses.
        assert s.get(classroom.base + "/user/%s/api/terminals" % account, timeout=60).status_code == 404
        server = next(p for p in procs if "singleuser.py" in " ".join(p.cmdline()))
        assert "/cryptography/" not in Path("/proc/%d/maps" % server.pid).read_text(), server.cmdline()
        for p in procs:  # as the student, at the priority of everything else (the hub and its proxy run ahead)
            assert p.uids().effective == pw.pw_uid and p.uids().real == pw.pw_uid, (account, p.cmdline(), p.uids())
            assert p.nice() == 0, (account, p.cmdline(), p.nice())
        # The home: outside the build and the source tree, the student's alone, with the lessons signed for them.
        home = Path(pw.pw_dir)
        assert home == classroom.homes / account
        for tree in (BUILD, SRC):
            assert not str(home.resolve()).startswith(str(tree) + "/"), (home, tree)
        st = home.stat()
        assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (pw.pw_uid, 0o700)
        lessons = sorted(p.stem + ".ipynb" for p in (SRC / "lessons").glob("*.wlab"))
        assert sorted(p.name for p in home.glob("*.ipynb")) == lessons
        notary = NotebookNotary(data_dir=str(home / ".local" / "share" / "jupyter"))
        for name_ in lessons:
            assert (home / name_).stat().st_uid == pw.pw_uid
            assert notary.check_signature(nbformat.read(home / name_, as_version=4)), name_
        classroom.api("DELETE", "/user/%s/api/kernels/%s" % (account, kernel["id"]))
    assert len(set(uids.values())) == len(STUDENTS), uids
    a, b = ("wl-" + n for n in STUDENTS)
    r = as_user(b, "ls", str(classroom.homes / a))
    assert r.returncode != 0, "%s reads %s's home: %s" % (b, a, r.stdout)


def test_a_students_server_leaves_out_the_hubs_database_layer(classroom):
    """The server as the classroom installed it (singleuser.py), run up to its start: the hub's database layer
    (jupyterhub.orm, and with it SQLAlchemy's ORM and Alembic) is not loaded, its request log is."""
    prefix = loadtest.classroom_prefix(BUILD)
    probe = "\n".join([
        "import runpy, sys",
        "sys.argv = [sys.argv[1], '--version']",  # every import, then the version, no server
        "try:",
        "    runpy.run_path(sys.argv[0], run_name='__main__')",
        "except SystemExit:",
        "    pass",
        "print(sorted(m for m in ('alembic', 'sqlalchemy.orm', 'jupyterhub.handlers.base') if m in sys.modules),",
        "      type(sys.modules['jupyterhub.orm']).__name__, 'jupyterhub.log' in sys.modules)"])
    r = subprocess.run([str(prefix / "venv" / "bin" / "python"), "-c", probe, str(prefix / "scripts" / "singleuser.py")],
                       capture_output=True, text=True, timeout=300, env=dict(os.environ, WORDLAB_SIGN_LIST=""))
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.splitlines()[-1] == "[] _LazyModule True", r.stdout + r.stderr[-3000:]


def test_ctrl_c_stops_the_hub_and_every_server(classroom):
    accounts = ["wl-" + n for n in STUDENTS]
    assert any(hub_children(a) for a in accounts), "the students' servers run"
    os.killpg(classroom.proc.pid, signal.SIGINT)  # Ctrl-C
    rc = classroom.proc.wait(120)
    assert rc in (0, -signal.SIGINT, 128 + signal.SIGINT), rc
    assert [hub_children(a) for a in accounts] == [[], []], "Ctrl-C stopped every student's server"


def test_smoke_load_test_runs_two_students_through_lessons_01_and_03():
    r = subprocess.run([sys.executable, str(SRC / "tests" / "load" / "loadtest.py"), "--build", str(BUILD), "--smoke"],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "smoke: ok (2 students" in r.stdout, r.stdout
    row = next(l for l in r.stdout.splitlines() if re.match(r"\s+2\s+\d+\s", l))
    cells = int(row.split()[1])
    expected = sum(sum(1 for c in nbformat.read(SRC / "notebooks" / n, 4).cells if c.cell_type == "code")
                   for n in ("01_one_head_and_four_heads.ipynb", "03_cross_entropy_and_perplexity.ipynb"))
    assert cells == 2 * expected
