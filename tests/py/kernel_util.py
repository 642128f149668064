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

WORDLAB = os.environ.get("WORDLAB") or os.path.join(
    os.environ.get("WL_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build")), "wordlab")
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


def start(name="wordlab"):
    """A started kernel and a ready blocking client."""
    return start_new_kernel(kernel_name=name, startup_timeout=TIMEOUT)


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

    def __init__(self, km, channel="shell"):
        info = km.get_connection_info()
        self.key = info["key"] if isinstance(info["key"], bytes) else info["key"].encode()
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.linger = 0
        self.sock.connect(f"{info['transport']}://{info['ip']}:{info[channel + '_port']}")
        self.session = str(uuid.uuid4())

    def close(self):
        self.sock.close()
        self.ctx.term()

    def sign(self, parts):
        h = hmac.new(self.key, digestmod=hashlib.sha256)
        for p in parts:
            h.update(p)
        return h.hexdigest().encode()

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

    def recv(self, timeout=2.0):
        """The next reply as (header, content), or None when nothing comes within timeout."""
        if not self.sock.poll(int(timeout * 1000)):
            return None
        frames = self.sock.recv_multipart()
        i = frames.index(b"<IDS|MSG>")
        sig, parts = frames[i + 1], frames[i + 2:i + 6]
        assert hmac.compare_digest(sig, self.sign(parts)), "the kernel's reply is not signed correctly"
        return json.loads(parts[0]), json.loads(parts[3])
