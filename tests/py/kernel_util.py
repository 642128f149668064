"""kernel_util.py: starts the built wordlab kernel through jupyter_client, its spec installed in a temporary JUPYTER_PATH."""
import atexit
import hashlib
import hmac
import json
import os
import shutil
import subprocess
import tempfile
import time
import uuid

# Missing client packages fail the import (and so the test run) loudly; nothing is skipped.
import jupyter_client  # noqa: F401
import zmq
from jupyter_client.manager import start_new_kernel

BUILD = os.environ.get("WL_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
WORDLAB = os.environ.get("WORDLAB") or os.path.join(BUILD, "wordlab")
if not os.access(WORDLAB, os.X_OK):
    raise RuntimeError(f"the wordlab binary {WORDLAB} does not exist; build it and set WORDLAB")

TIMEOUT = 15
_TMP = tempfile.mkdtemp(prefix="wl-kernel-test-")
atexit.register(shutil.rmtree, _TMP, True)
SPEC_DIR = os.path.join(_TMP, "share", "jupyter")


def _install(name, mode):
    subprocess.run([WORDLAB, "install-kernel", "--prefix", _TMP, "--name", name, "--interrupt-mode", mode],
                   check=True, capture_output=True)


# The spec goes into a temporary directory on JUPYTER_PATH, never into the user's home.
_install("wordlab", "signal")
_install("wordlab-message", "message")
os.environ["JUPYTER_PATH"] = SPEC_DIR + os.pathsep + os.environ.get("JUPYTER_PATH", "")
os.environ["JUPYTER_RUNTIME_DIR"] = os.path.join(_TMP, "runtime")


def start(name="wordlab", **launch):
    """A started kernel and a ready blocking client; launch goes to the kernel's Popen (e.g. stderr=FILE)."""
    return start_new_kernel(kernel_name=name, startup_timeout=TIMEOUT, **launch)


def start_logged(log_path):
    """A started kernel whose stderr goes to the file log_path, and its ready client: (km, kc, log_path)."""
    with open(log_path, "w") as f:
        km, kc = start(stderr=f)
    return km, kc, log_path


def answers(kc):
    """Whether the kernel still runs a cell and brackets it with busy and idle."""
    reply, msgs = run(kc, "mean 1 2")
    return reply["content"]["status"] == "ok" and msgs[-1]["content"]["execution_state"] == "idle"


def wait_for_text(path, text, timeout=TIMEOUT):
    """Waits until the file at path contains text (e.g. a kernel's stderr log line); returns the file's text."""
    deadline = time.monotonic() + timeout
    while True:
        with open(path, encoding="utf-8", errors="replace") as f:
            got = f.read()
        if text in got:
            return got
        assert time.monotonic() < deadline, f"{text!r} did not appear in {path}:\n{got[-2000:]}"
        time.sleep(0.01)


def wait_sigint_delivered(pid, timeout=TIMEOUT):
    """Waits until no SIGINT sent to process pid is pending (/proc/PID/status, bit 2 of SigPnd and ShdPnd):
    its handler has run."""
    deadline = time.monotonic() + timeout
    while True:
        with open(f"/proc/{pid}/status") as f:
            masks = [int(line.split()[1], 16) for line in f if line.startswith(("SigPnd:", "ShdPnd:"))]
        if not any(m & 2 for m in masks):
            return
        assert time.monotonic() < deadline, f"a SIGINT to {pid} was not delivered within {timeout} s"
        time.sleep(0.001)


class Monitor:
    """The connection events of one client socket (zmq's socket monitor), to wait for a connect or a disconnect."""

    def __init__(self, sock):
        from zmq.utils.monitor import recv_monitor_message
        self._recv = recv_monitor_message
        self.sock = sock.get_monitor_socket()
        self.owner = sock

    def wait(self, event, timeout=TIMEOUT):
        """Waits for event (e.g. zmq.EVENT_HANDSHAKE_SUCCEEDED, zmq.EVENT_DISCONNECTED); fails after timeout."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0 and self.sock.poll(int(left * 1000)), f"no zmq event {event} within {timeout} s"
            if self._recv(self.sock)["event"] == event:
                return

    def close(self):
        self.owner.disable_monitor()
        self.sock.close()


def stop(km, kc):
    kc.stop_channels()
    km.shutdown_kernel(now=False)


def collect(kc, msg_id, timeout=TIMEOUT):
    """The iopub messages of request msg_id from busy to idle (both included)."""
    msgs, deadline = [], time.monotonic() + timeout
    while True:
        msg = kc.get_iopub_msg(timeout=max(0.01, deadline - time.monotonic()))
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        msgs.append(msg)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return msgs


def shell_reply(kc, msg_id, timeout=TIMEOUT):
    deadline = time.monotonic() + timeout
    while True:
        msg = kc.get_shell_msg(timeout=max(0.01, deadline - time.monotonic()))
        if msg["parent_header"].get("msg_id") == msg_id:
            return msg


def run(kc, code, timeout=TIMEOUT, **kw):
    """Executes code; returns (reply, iopub messages between busy and idle)."""
    msg_id = kc.execute(code, **kw)
    reply = shell_reply(kc, msg_id, timeout)
    return reply, collect(kc, msg_id, timeout)


def outputs(msgs):
    return [m for m in msgs if m["msg_type"] not in ("status", "execute_input")]


def stdout_text(msgs):
    return "".join(m["content"]["text"] for m in msgs
                   if m["msg_type"] == "stream" and m["content"]["name"] == "stdout")


def heartbeat_echoes(km, payload=b"ping", timeout_ms=2000):
    """Whether the kernel's heartbeat sends payload back within timeout_ms."""
    info = km.get_connection_info()
    ctx = zmq.Context()
    s = ctx.socket(zmq.REQ)
    s.linger = 0
    s.connect(f"tcp://{info['ip']}:{info['hb_port']}")
    s.send(payload)
    ok = bool(s.poll(timeout_ms)) and s.recv() == payload
    s.close()
    ctx.term()
    return ok


class RawClient:
    """Hand-made frames on a kernel's shell socket: for signatures and malformed messages."""

    def __init__(self, km, channel="shell", identity=None, monitor=False, options=None):
        """monitor: self.monitor (a Monitor) watches the socket from before it connects, so it sees the handshake;
        options: socket options set before it connects ({zmq.RCVHWM: 1})."""
        info = km if isinstance(km, dict) else km.get_connection_info()
        self.key = info["key"] if isinstance(info["key"], bytes) else info["key"].encode()
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.linger = 0
        if identity is not None:
            self.sock.setsockopt(zmq.IDENTITY, identity)
        for option, value in (options or {}).items():
            self.sock.setsockopt(option, value)
        self.monitor = Monitor(self.sock) if monitor else None
        self.sock.connect(f"{info['transport']}://{info['ip']}:{info[channel + '_port']}")
        self.session = str(uuid.uuid4())

    def close(self):
        if self.monitor:
            self.monitor.close()
        self.sock.close()
        self.ctx.term()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def sign(self, parts):
        h = hmac.new(self.key, digestmod=hashlib.sha256)
        for p in parts:
            h.update(p)
        return h.hexdigest().encode()

    def recv_reply_to(self, msg_id, timeout=TIMEOUT):
        """The next reply, which must answer msg_id: replies come in the order of the requests, so a reply to
        anything sent before msg_id (a message that should have been dropped) shows up first."""
        got = self.recv(timeout=timeout)
        assert got is not None, f"no reply to {msg_id} within {timeout} s"
        assert self.parent_id == msg_id, f"the first reply answers {self.parent_id}, not {msg_id}: {got}"
        return got

    def parts(self, msg_type, content):
        header = {"msg_id": str(uuid.uuid4()), "session": self.session, "username": "test",
                  "date": "2026-01-01T00:00:00.000000Z", "msg_type": msg_type, "version": "5.3"}
        return [json.dumps(header).encode(), b"{}", b"{}",
                content if isinstance(content, bytes) else json.dumps(content).encode()]

    def send_frames(self, frames):
        self.sock.send_multipart(frames)

    def send(self, msg_type, content, signature=None):
        parts = self.parts(msg_type, content)
        sig = self.sign(parts) if signature is None else signature
        frames = [b"<IDS|MSG>", sig] + parts
        self.sock.send_multipart(frames)
        return frames, json.loads(parts[0])["msg_id"]

    def recv(self, timeout=TIMEOUT):
        """The next reply as (header, content), or None when nothing comes within timeout."""
        if not self.sock.poll(int(timeout * 1000)):
            return None
        frames = self.sock.recv_multipart()
        i = frames.index(b"<IDS|MSG>")
        sig, parts = frames[i + 1], frames[i + 2:i + 6]
        assert hmac.compare_digest(sig, self.sign(parts)), "the kernel's reply is not signed correctly"
        self.parent_id = json.loads(parts[1]).get("msg_id")
        return json.loads(parts[0]), json.loads(parts[3])
