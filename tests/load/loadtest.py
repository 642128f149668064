"""loadtest.py: simulated students on a local JupyterHub: each logs in, opens two lessons and runs every cell, as a class would.

The classroom is `make classroom`'s (scripts/classroom.sh, as root: each student a Unix user of their own), started
with its state, homes and shared cache in a temporary folder and what the students run in a prefix under /var/tmp
(start_classroom; tests/py/test_classroom.py starts it the same way).  For each class size N (5, 10, 20, 40, ...
until a size fails, or every size with --keep-going) N students log in through the hub's login form with the class
password, within the stagger time; the test then starts each one's server and talks to it with a service token
(admin scopes), opens the lessons through the single-user server's REST API (a session per notebook, so a kernel
per notebook, as JupyterLab does) and runs every code cell over the kernel's WebSocket, with a think time between
cells.  It reports:

  login        seconds from posting the login form to the student's server being ready (median, max); in the JSON
               also its parts (the login form; asking for the server; the server's start until the hub has it ready)
               and the CPU seconds the server's process took until then (its own and its finished children's:
               copying the lessons, its runtime folder), read once the hub says it is ready
  first idle   seconds from posting the login form to the first kernel's first idle status
  p50/p95/p99  cell latency, from sending execute_request to the kernel's idle status for it
  failures     cells that gave an error or no reply, servers or kernels that did not start
  load         the 1-minute load average during the class (its range, sampled every second) and at its end
  CPU          the CPU seconds of the class (from its first login to its last cell): the whole machine's (of the
               cores x wall seconds it had), the hub's and its proxy's, and a student's server and kernels' (mean)
  slow cells   in the JSON, each cell's latencies (lesson, cell number) and the cells that took 2 s or more
  MB/student   the peak resident memory (RSS; PSS beside it, which counts shared pages once) of a student's
               single-user server and its kernels, sampled every second; then the PSS peaks of the server alone
               and of the kernels alone

Capacity is the largest N whose p95 cell latency stays under 2 s with no failure.  Everything talks to 127.0.0.1
only; the hub and every server it started are stopped at the end, and every user (and Unix account) is deleted.

usage: loadtest.py --build BUILD [--kernel wordlab|python3] [--cells lessons|course] [--sizes 5,10,20,...]
                   [--think SECONDS] [--keep-going] [--smoke]
"""
import argparse
import asyncio
import hashlib
import json
import os
import pwd
import random
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid
from pathlib import Path

import psutil
from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

SRC = Path(__file__).resolve().parents[2]
# (kernel, cells) -> the two notebooks a student opens. "lessons": wordlab's lessons 01 and 03 as they are;
# "course": the course's cells (tokenize, forward, the head table, cross-entropy from the bundled checkpoints),
# the same on both kernels: tests/load/course_torch_*.ipynb and tests/load/course_wordlab_*.wlab.
LESSONS = {
    ("wordlab", "lessons"): ["01_one_head_and_four_heads.ipynb", "03_cross_entropy_and_perplexity.ipynb"],
    ("wordlab", "course"): ["course_wordlab_01.ipynb", "course_wordlab_03.ipynb"],
    ("python3", "course"): ["course_torch_01.ipynb", "course_torch_03.ipynb"],
}
# The kernel a student's notebook asks for: wordlab, or ipykernel of Debian's Python with its PyTorch (the classroom's
# environment has no PyTorch), a kernel spec the test adds to the prefix's environment for its run.
KERNEL_SPECS = {"wordlab": "wordlab", "python3": "python3-torch"}
TORCH_SPEC = {"argv": ["/usr/bin/python3", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
              "display_name": "Python 3 (Debian, PyTorch)", "language": "python"}
P95_LIMIT = 2.0
CELL_TIMEOUT = 300.0
START_LIMIT = 1200.0  # a first start installs the prefix's environment (pip) and proxy (npm) and fills the cache
SERVER_START_LIMIT = 900.0  # beyond the hub's own start and HTTP timeouts for a student's server (300 s each)
ACCOUNT = "wl-"       # a student NAME's Unix account and hub user: wl-NAME


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def code_cells(path):
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in nb["cells"] if c["cell_type"] == "code"]


def percentile(values, q):
    """The q-quantile (0..1) by linear interpolation between closest ranks."""
    if not values:
        return float("nan")
    v = sorted(values)
    k = (len(v) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def classroom_prefix(build):
    """Where start_classroom installs what the students run: $PREFIX, else a prefix of this build under /var/tmp,
    readable by every user (a build under /root is not), kept between runs (the script refreshes it)."""
    return Path(os.environ.get("PREFIX") or "/var/tmp/wordlab-classroom-" + hashlib.sha256(str(build).encode()).hexdigest()[:8])


def start_classroom(build, tmp, port, token, log):
    """scripts/classroom.sh (as root) on 127.0.0.1:port with its state, homes and cache under tmp (made passable for
    the students), a service token; returns (process, env). Stop it with SIGTERM or SIGINT to its process group."""
    tmp.chmod(0o755)
    env = dict(os.environ, PORT=str(port), PREFIX=str(classroom_prefix(build)), STATE=str(tmp / "state"),
               HOMES=str(tmp / "homes"), CACHE=str(tmp / "cache"), WORDLAB_CLASSROOM_API_TOKEN=token)
    proc = subprocess.Popen(["bash", str(SRC / "scripts" / "classroom.sh"), str(build)], env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    return proc, env


def remove_accounts(homes, names):
    """Deletes the Unix accounts wl-NAME that the classroom made with a home under homes, and those homes."""
    for name in names:
        try:
            home = Path(pwd.getpwnam(name).pw_dir)
        except KeyError:
            continue
        if home.parent == homes:
            subprocess.run(["userdel", name], check=False, stderr=subprocess.DEVNULL)
            shutil.rmtree(home, ignore_errors=True)


class Hub:
    """The classroom of scripts/classroom.sh in a temporary folder (start_classroom)."""

    def __init__(self, build, state):
        self.token = secrets.token_hex(32)
        self.port = free_port()
        self.state = state
        self.base = "http://127.0.0.1:%d" % self.port
        self.log = open(state / "classroom.log", "wb")
        self.proc, _ = start_classroom(build, state, self.port, self.token, self.log)
        self.http = AsyncHTTPClient(max_clients=256)

    async def request(self, method, path, body=None, timeout=120):
        req = HTTPRequest(self.base + path, method=method, headers={"Authorization": "token " + self.token},
                          body=None if body is None else json.dumps(body),
                          allow_nonstandard_methods=True, request_timeout=timeout, connect_timeout=timeout)
        r = await self.http.fetch(req, raise_error=False)
        if r.code >= 400 or r.code == 599:
            raise RuntimeError("%s %s: HTTP %d %s" % (method, path, r.code, (r.body or b"")[:300]))
        return json.loads(r.body) if r.body else None

    async def login(self, name, password):
        """The login form, as a browser posts it: the form's page (its _xsrf cookie), then the form. Raises unless
        the hub logs the student in (302 with its login cookie)."""
        r = await self.http.fetch(self.base + "/hub/login", request_timeout=120, connect_timeout=120)
        cookies = {}
        for header in r.headers.get_list("Set-Cookie"):
            k, v = header.split(";", 1)[0].split("=", 1)
            cookies[k] = v
        form = urllib.parse.urlencode({"username": name, "password": password, "_xsrf": cookies.get("_xsrf", "")})
        r = await self.http.fetch(HTTPRequest(
            self.base + "/hub/login", method="POST", body=form, follow_redirects=False, request_timeout=120,
            connect_timeout=120, headers={"Cookie": "; ".join("%s=%s" % kv for kv in cookies.items())}),
            raise_error=False)
        if r.code != 302 or not any(h.startswith("jupyterhub-hub-login=") for h in r.headers.get_list("Set-Cookie")):
            raise RuntimeError("login of %s: HTTP %d" % (name, r.code))

    async def wait_up(self):
        """Wait until the hub's API answers (the classroom has started, or has exited: then fail with its log)."""
        deadline = time.monotonic() + START_LIMIT
        while True:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the classroom %s; see %s" % (
                    "exited with status %s" % self.proc.returncode if self.proc.poll() is not None
                    else "did not start within %.0f s" % START_LIMIT, self.state / "classroom.log"))
            try:
                await self.request("GET", "/hub/api/", timeout=5)
                return
            except Exception:
                await asyncio.sleep(0.2)

    async def wait_server(self, user):
        """Wait for a student's server as the hub's spawn page in a browser does: one request to the hub's progress
        event stream, held open until the server is ready or failed (asking for the user's model once a second, 40
        students kept the hub's event loop busy for seconds at a time, and routes to the proxy timed out)."""
        events, pending = [], b""

        def on_chunk(chunk):  # server-sent events: blocks of lines separated by a blank line; "data: JSON"
            nonlocal pending
            pending += chunk
            while b"\n\n" in pending:
                block, pending = pending.split(b"\n\n", 1)
                events.extend(json.loads(line[5:]) for line in block.split(b"\n") if line.startswith(b"data:"))

        r = await self.http.fetch(HTTPRequest(
            self.base + "/hub/api/users/%s/server/progress" % user, headers={"Authorization": "token " + self.token},
            streaming_callback=on_chunk, request_timeout=SERVER_START_LIMIT, connect_timeout=120), raise_error=False)
        if any(e.get("ready") for e in events):
            return
        failed = [e.get("message", "") for e in events if e.get("failed")]
        # The stream ended without an event (HTTP 400 once the server is up, or when it is not starting): ask once.
        model = await self.request("GET", "/hub/api/users/%s" % user)
        if not failed and model.get("servers", {}).get("", {}).get("ready"):
            return
        raise RuntimeError("the server of %s did not start (progress: HTTP %d%s)" % (
            user, r.code, ", " + failed[-1] if failed else ""))

    def password(self):
        return (self.state / "state" / "class-password").read_text().strip()

    def stop(self):
        """SIGTERM: the hub stops every student's server and the proxy, then exits."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(120)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


def student_processes(prefix):
    """{user: [Process, ...]}: every process whose environment names a user of this run (servers and their kernels)."""
    found = {}
    for p in psutil.process_iter():
        try:
            user = p.environ().get("JUPYTERHUB_USER", "")
        except (psutil.Error, OSError):
            continue
        if user.startswith(prefix):
            found.setdefault(user, []).append(p)
    return found


def server_cpu(user):
    """CPU seconds (user + system) of user's single-user server so far, with its children that have finished (the
    scripts it ran before it became the server), or None when it is not found."""
    for p in student_processes(user).get(user, []):
        try:
            if not is_kernel(p):
                t = p.cpu_times()
                return t.user + t.system + t.children_user + t.children_system
        except (psutil.Error, OSError):
            pass
    return None


def class_cpu(hub):
    """CPU seconds so far: {"machine": every process's (busy time of all cores), "hub": the hub's, "proxy": its
    proxy's (configurable-http-proxy, the hub's child)}."""
    t = psutil.cpu_times()
    out = {"machine": t.user + t.nice + t.system + t.irq + t.softirq + t.steal, "hub": 0.0, "proxy": 0.0}
    try:
        hub_proc = psutil.Process(hub.proc.pid)  # classroom.sh execs the hub
        for key, p in [("hub", hub_proc)] + [("proxy", c) for c in hub_proc.children()
                                             if "configurable-http-proxy" in " ".join(c.cmdline())]:
            c = p.cpu_times()
            out[key] += c.user + c.system
    except psutil.Error:
        pass
    return out


def is_kernel(p):
    """Whether a student's process is a kernel (wordlab, or ipykernel) rather than their server or its helpers."""
    cmd = p.cmdline()
    return bool(cmd) and (os.path.basename(cmd[0]) == "wordlab" or "ipykernel_launcher" in cmd)


def sample_memory(prefix):
    """{user: (rss_bytes, pss_bytes, server_pss_bytes, kernels_pss_bytes, cpu_seconds)} summed over the user's
    processes now (the CPU with their finished children's)."""
    out = {}
    for user, procs in student_processes(prefix).items():
        rss = server = kernels = cpu = 0
        for p in procs:
            try:
                m = p.memory_full_info()
                kernel = is_kernel(p)
                t = p.cpu_times()
            except (psutil.Error, OSError):
                continue
            rss += m.rss
            cpu += t.user + t.system + t.children_user + t.children_system
            if kernel:
                kernels += m.pss
            else:
                server += m.pss
        out[user] = (rss, server + kernels, server, kernels, cpu)
    return out


class Student:
    def __init__(self, hub, name, kernel, cells, rng, think):
        self.hub, self.name, self.kernel, self.cells = hub, name, kernel, cells
        self.rng, self.think = rng, think
        self.latencies, self.failures, self.first_idle, self.login_s = [], [], None, None
        self.cell_latencies = {}  # (notebook, code cell number) -> seconds
        self.form_s = self.ask_s = self.start_s = self.start_cpu_s = None

    async def run(self, password):
        hub, u = self.hub, self.name
        try:
            t_login = time.monotonic()
            await hub.login(u[len(ACCOUNT):], password)
            t_form = time.monotonic()
            await hub.request("POST", "/hub/api/users/%s/server" % u)
            t_asked = time.monotonic()
            await hub.wait_server(u)
            self.login_s = time.monotonic() - t_login
            self.form_s, self.ask_s, self.start_s = t_form - t_login, t_asked - t_form, t_login + self.login_s - t_asked
            self.start_cpu_s = await asyncio.get_running_loop().run_in_executor(None, server_cpu, u)
            sessions = []  # a student keeps both lessons open, as in JupyterLab: both kernels stay up to the end
            try:
                for path, cells in self.cells:
                    await self.notebook(t_login, path, cells, sessions)
            finally:
                for sid in sessions:
                    await hub.request("DELETE", "/user/%s/api/sessions/%s" % (u, sid))
        except Exception as e:  # a student whose server or kernel fails counts as a failure, the class goes on
            self.failures.append("%s: %s" % (u, e))

    async def notebook(self, t_login, path, cells, sessions):
        hub, u = self.hub, self.name
        session = await hub.request("POST", "/user/%s/api/sessions" % u,
                                    {"path": path, "name": path, "type": "notebook",
                                     "kernel": {"name": KERNEL_SPECS[self.kernel]}})
        sessions.append(session["id"])
        kid = session["kernel"]["id"]
        url = "ws://127.0.0.1:%d/user/%s/api/kernels/%s/channels" % (hub.port, u, kid)
        ws = await websocket_connect(HTTPRequest(url, headers={"Authorization": "token " + hub.token}),
                                     max_message_size=256 * 1024 * 1024)
        try:
            await self.call(ws, "kernel_info_request", {})
            if self.first_idle is None:
                self.first_idle = time.monotonic() - t_login
            for number, code in enumerate(cells):
                await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)
                t0 = time.monotonic()
                status, errors = await self.call(ws, "execute_request",
                                                 {"code": code, "silent": False, "store_history": True,
                                                  "user_expressions": {}, "allow_stdin": False,
                                                  "stop_on_error": True})
                self.latencies.append(time.monotonic() - t0)
                self.cell_latencies[(path, number)] = self.latencies[-1]
                if status != "ok" or errors:
                    self.failures.append("%s %s: cell %r: %s %s" % (u, path, code[:60], status, errors[:1]))
        finally:
            ws.close()

    async def call(self, ws, msg_type, content):
        """Send a shell request; return (reply status, error outputs) once the kernel is idle for it."""
        msg_id = uuid.uuid4().hex
        await ws.write_message(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": msg_type, "username": self.name, "session": uuid.uuid4().hex,
                       "date": "", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "content": content, "channel": "shell", "buffers": []}))
        status, errors, idle = None, [], False
        deadline = time.monotonic() + CELL_TIMEOUT
        while status is None or not idle:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError("%s: no reply within %.0f s" % (msg_type, CELL_TIMEOUT))
            raw = await asyncio.wait_for(ws.read_message(), left)
            if raw is None:
                raise RuntimeError("%s: the kernel's WebSocket closed" % msg_type)
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = msg["header"]["msg_type"]
            if kind == msg_type.replace("_request", "_reply"):
                status = msg["content"].get("status")
            elif kind == "error":
                errors.append(msg["content"].get("ename", "") + ": " + msg["content"].get("evalue", ""))
            elif kind == "status" and msg["content"].get("execution_state") == "idle":
                idle = True
        return status, errors


async def run_class(hub, n, level, args, cells, rng):
    prefix = "%slt%ss%d_" % (ACCOUNT, hub.run_id, level)
    names = ["%s%03d" % (prefix, i) for i in range(n)]
    password = hub.password()
    students = [Student(hub, u, args.kernel, cells, random.Random(rng.random()), args.think) for u in names]
    peaks = {}
    loads = []  # the 1-minute load average, each second of the class
    done = asyncio.Event()

    async def sampler():
        loop = asyncio.get_running_loop()
        while not done.is_set():
            for user, now in (await loop.run_in_executor(None, sample_memory, prefix)).items():
                peaks[user] = tuple(max(a, b) for a, b in zip(peaks.get(user, (0,) * 5), now))
            loads.append(os.getloadavg()[0])
            try:
                await asyncio.wait_for(done.wait(), 1.0)
            except asyncio.TimeoutError:
                pass

    async def start(s):
        await asyncio.sleep(rng.uniform(0, args.stagger))
        await s.run(password)

    cpu0 = class_cpu(hub)
    t0 = time.monotonic()
    sample_task = asyncio.ensure_future(sampler())
    await asyncio.gather(*(start(s) for s in students))
    wall = time.monotonic() - t0
    cpu = {key: b - a for (key, b), a in zip(class_cpu(hub).items(), cpu0.values())}
    done.set()
    await sample_task
    for u in names:  # stop every server, then delete every user of this class
        try:
            await hub.request("DELETE", "/hub/api/users/%s/server" % u)
        except RuntimeError:
            pass
    for u in names:
        while (await hub.request("GET", "/hub/api/users/%s" % u)).get("servers"):
            await asyncio.sleep(0.25)
        await hub.request("DELETE", "/hub/api/users/%s" % u)
    remove_accounts(hub.state / "homes", names)
    left = student_processes(prefix)
    lat = [x for s in students for x in s.latencies]
    firsts = [s.first_idle for s in students if s.first_idle is not None]
    logins = [s.login_s for s in students if s.login_s is not None]
    parts = {key: [getattr(s, key) for s in students if getattr(s, key) is not None]
             for key in ("form_s", "ask_s", "start_s", "start_cpu_s")}
    by_cell = {}
    for s in students:
        for (path, number), x in s.cell_latencies.items():
            by_cell.setdefault("%s#%d" % (path, number), []).append(x)
    fails = [f for s in students for f in s.failures]
    if left:
        fails.append("processes left after the class: %s" % sorted(left))
    mb = 1024 * 1024
    return {
        "students": n, "cells": len(lat), "failures": fails, "wall_s": wall,
        "first_idle_median_s": statistics.median(firsts) if firsts else float("nan"),
        "first_idle_max_s": max(firsts) if firsts else float("nan"),
        "login_median_s": statistics.median(logins) if logins else float("nan"),
        "login_max_s": max(logins) if logins else float("nan"),
        "login_parts_median_max_s": {key: (statistics.median(v), max(v)) if v else (float("nan"),) * 2
                                     for key, v in parts.items()},
        "cells_p50_max_s": {cell: (statistics.median(v), max(v)) for cell, v in sorted(by_cell.items())},
        "slow_cells": {cell: sum(x >= P95_LIMIT for x in v) for cell, v in sorted(by_cell.items())
                       if any(x >= P95_LIMIT for x in v)},
        "load_average": os.getloadavg(),
        "cpu_s": dict(cpu, available=wall * psutil.cpu_count()),
        "load_1min_range": (min(loads), max(loads)) if loads else (float("nan"), float("nan")),
        "p50_s": percentile(lat, 0.50), "p95_s": percentile(lat, 0.95), "p99_s": percentile(lat, 0.99),
        "rss_mb_per_student": statistics.mean(x[0] for x in peaks.values()) / mb if peaks else float("nan"),
        "pss_mb_per_student": statistics.mean(x[1] for x in peaks.values()) / mb if peaks else float("nan"),
        "server_pss_mb_per_student": statistics.mean(x[2] for x in peaks.values()) / mb if peaks else float("nan"),
        "kernels_pss_mb_per_student": statistics.mean(x[3] for x in peaks.values()) / mb if peaks else float("nan"),
        "cpu_s_per_student": statistics.mean(x[4] for x in peaks.values()) if peaks else float("nan"),
    }


def print_row(r, out):
    print("%8d %6d %9.2f %9.2f %9.2f %9.2f %7.3f %7.3f %7.3f %8.1f %8.1f %6.1f %6.1f %8d %7.1f  %s" % (
        r["students"], r["cells"], r["login_median_s"], r["login_max_s"], r["first_idle_median_s"],
        r["first_idle_max_s"], r["p50_s"], r["p95_s"], r["p99_s"], r["rss_mb_per_student"], r["pss_mb_per_student"],
        r["server_pss_mb_per_student"], r["kernels_pss_mb_per_student"], len(r["failures"]), r["wall_s"],
        "%.1f-%.1f, at the end %s" % (*r["load_1min_range"], "/".join("%.1f" % x for x in r["load_average"]))),
        file=out, flush=True)
    parts = r["login_parts_median_max_s"]
    print("         login, median / max: the form %.2f / %.2f s, asking for the server %.2f / %.2f s, its start "
          "%.2f / %.2f s; the server's CPU until ready %.2f / %.2f s" % (
              *parts["form_s"], *parts["ask_s"], *parts["start_s"], *parts["start_cpu_s"]), file=out, flush=True)
    cpu = r["cpu_s"]
    print("         CPU during the class: %.0f of %.0f core-seconds (%.0f%%); the hub %.1f s, its proxy %.1f s; a "
          "student's server and kernels %.1f s" % (cpu["machine"], cpu["available"], 100 * cpu["machine"] / cpu["available"],
                                                   cpu["hub"], cpu["proxy"], r["cpu_s_per_student"]), file=out, flush=True)
    if r["slow_cells"]:
        print("         cells of %.0f s or more (lesson#cell: how many students): %s" % (P95_LIMIT, ", ".join(
            "%s: %d" % kv for kv in sorted(r["slow_cells"].items(), key=lambda kv: -kv[1]))), file=out, flush=True)
    for f in r["failures"][:5]:
        print("         failure: %s" % f, file=out, flush=True)


async def main_async(args):
    build = Path(args.build).resolve()
    rng = random.Random(args.seed)
    if os.geteuid() != 0:
        print("loadtest: the classroom runs as root (each student a Unix user of their own): run it as root",
              file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="wordlab-load-") as tmp:
        state = Path(tmp)
        lessons_dir = state / "lessons"
        lessons_dir.mkdir()
        names = LESSONS[(args.kernel, args.cells)]
        cells = []
        for name in names:
            if args.cells == "lessons":
                shutil.copyfile(SRC / "notebooks" / name, lessons_dir / name)
            elif args.kernel == "wordlab":  # built from its .wlab by wordlab itself (which runs it once)
                subprocess.run([str(build / "wordlab"), "notebook", str(SRC / "tests" / "load" / name.replace(".ipynb", ".wlab")),
                                "-o", str(lessons_dir / name)], check=True, stdout=subprocess.DEVNULL)
            else:
                shutil.copyfile(SRC / "tests" / "load" / name, lessons_dir / name)
            cells.append((name, code_cells(lessons_dir / name)))
        hub = Hub(build, state)
        hub.run_id = secrets.token_hex(3)
        results = []
        torch_spec = classroom_prefix(build) / "venv" / "share" / "jupyter" / "kernels" / KERNEL_SPECS["python3"]
        try:
            await hub.wait_up()
            if args.kernel == "python3":
                torch_spec.mkdir(parents=True, exist_ok=True)
                (torch_spec / "kernel.json").write_text(json.dumps(TORCH_SPEC))
            cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
            print("kernel %s; %d cells per student (%s); think time %.1f s (0.5x-1.5x); %d cores (%s), %.0f GiB"
                  % (args.kernel, sum(len(c) for _, c in cells), " + ".join(names), args.think,
                     psutil.cpu_count(), cpu, psutil.virtual_memory().total / 2**30), flush=True)
            print("students  cells login med login max  idle med  idle max  p50 s   p95 s   p99 s   RSS MB   PSS MB "
                  "server kernels failures  wall s  load average (1 min during the class, 1/5/15 min at the end)", flush=True)
            for level, n in enumerate(args.sizes):
                need = (results[-1]["pss_mb_per_student"] * n * 2**20) if results else 0
                if need and need > psutil.virtual_memory().available * 0.9:
                    print("%8d  not run: %.1f GiB of memory needed, %.1f GiB available" % (
                        n, need / 2**30, psutil.virtual_memory().available / 2**30), flush=True)
                    break
                r = await run_class(hub, n, level, args, cells, rng)
                results.append(r)
                print_row(r, sys.stdout)
                if (r["failures"] or r["p95_s"] >= P95_LIMIT) and not args.keep_going:
                    break
        finally:
            hub.stop()
            shutil.rmtree(torch_spec, ignore_errors=True)
            left = student_processes("%slt%s" % (ACCOUNT, hub.run_id))
            for procs in left.values():
                for p in procs:
                    p.kill()
            remove_accounts(state / "homes", [p.name for p in (state / "homes").glob(ACCOUNT + "*")])
        passed = [r["students"] for r in results if not r["failures"] and r["p95_s"] < P95_LIMIT]
        capacity = max(passed) if passed else 0
        print("capacity (largest class with p95 < %.0f s and no failure): %d students%s" % (
            P95_LIMIT, capacity, " (the largest size tried)" if results and passed and
            capacity == results[-1]["students"] else ""), flush=True)
        if left:
            print("error: processes were left after the hub stopped: %s" % sorted(left), flush=True)
            return 1
        if args.json:
            Path(args.json).write_text(json.dumps({"kernel": args.kernel, "cells": args.cells, "think_s": args.think,
                                                   "results": results, "capacity": capacity}, indent=1))
            shutil.copyfile(state / "classroom.log", args.json + ".classroom.log")  # why a server did not start
        if args.smoke:
            bad = [f for r in results for f in r["failures"]]
            expected = sum(len(c) for _, c in cells) * args.sizes[0]
            if bad or not results or results[0]["cells"] != expected:
                print("smoke: FAILED (%d failures, %d of %d cells)" % (
                    len(bad), results[0]["cells"] if results else 0, expected), flush=True)
                return 1
            print("smoke: ok (%d students, %d cells, every user and process cleaned up)" % (
                args.sizes[0], expected), flush=True)
        return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=str(SRC / "build"))
    ap.add_argument("--kernel", choices=["wordlab", "python3"], default="wordlab")
    ap.add_argument("--cells", choices=["lessons", "course"], default=None,
                    help="wordlab's lessons 01 and 03 (default for wordlab) or the course's cells (the only ones for python3)")
    ap.add_argument("--sizes", default="5,10,20,40,80,160")
    ap.add_argument("--think", type=float, default=3.0, help="mean seconds between two cells of a student")
    ap.add_argument("--stagger", type=float, default=5.0, help="students log in over this many seconds")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--keep-going", action="store_true", help="run every size, also after one failed")
    ap.add_argument("--smoke", action="store_true", help="2 students, short think time, one size; fail on any failure")
    args = ap.parse_args()
    args.sizes = [int(x) for x in args.sizes.split(",")]
    args.cells = args.cells or ("lessons" if args.kernel == "wordlab" else "course")
    if (args.kernel, args.cells) not in LESSONS:
        ap.error("the %s kernel has no %s cells" % (args.kernel, args.cells))
    if args.smoke:
        args.sizes, args.think, args.stagger = [2], 0.1, 0.5
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
