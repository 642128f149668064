"""test_attacks_transport.py: the kernel's ports against local peers without the key: idle and half-open connections,
a flood on shell while control is asked, partial and queued messages, IOPub subscriptions and a subscriber that never
reads (memory read from /proc of the kernel process), replies and input requests for a connection that claims
another's routing id, and a connection file whose transport is not a string.

Peers speak ZMTP 3.1 by hand on plain TCP sockets (kernel_gate.h, kernel_zmtp.h). Every check waits for a state
(a connection closed by the kernel, the kernel's receive queues empty, a reply, a log line); time limits are generous
fences, never what a test waits for, except the one bound under test: control answers within 1 s.
"""
import json
import os
import selectors
import socket
import statistics
import subprocess
import sys
import threading
import time

import pytest
import zmq

import kernel_util as ku
import test_security as ts

FRAME_MAX = 16 << 20      # kernel_wire.h: WL_WIRE_FRAME_MAX
IN_MAX = 48 << 20         # kernel_gate.h: WL_GATE_IN_MAX, what shell holds of its clients' messages
OUT_MAX = 48 << 20        # kernel_gate.h: WL_GATE_OUT_MAX, what waits to be written to one connection
CONNS_MAX = 32            # kernel_gate.h: WL_GATE_CONNS_MAX per port
MIB = 1 << 20
FENCE = 240               # seconds: a state that does not come within this fails the test
PORTS = ("shell", "control", "stdin", "iopub", "hb")


# ---- a ZMTP 3.1 peer by hand ----

GREETING = b"\xff" + b"\0" * 7 + b"\x01\x7f" + bytes([3, 1]) + b"NULL".ljust(20, b"\0") + b"\0" * 32


def frame(body, more=False, command=False):
    flags = (1 if more else 0) | (4 if command else 0)
    if len(body) > 255:
        return bytes([flags | 2]) + len(body).to_bytes(8, "big") + body
    return bytes([flags, len(body)]) + body


def header(size, more=False):
    """A message frame's flags and size alone (its bytes follow separately)."""
    return bytes([(1 if more else 0) | 2]) + size.to_bytes(8, "big")


def ready(socket_type, identity=b""):
    props = b""
    for name, value in ((b"Socket-Type", socket_type), (b"Identity", identity)):
        props += bytes([len(name)]) + name + len(value).to_bytes(4, "big") + value
    return frame(b"\x05READY" + props, command=True)


def peer(km, port, socket_type=b"DEALER", identity=b"", rcvbuf=None):
    """A TCP connection to one of the kernel's ports that has done the ZMTP handshake (socket_type None: none)."""
    info = km.get_connection_info()
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect((info["ip"], info[port + "_port"]))
    s.settimeout(FENCE)
    if socket_type is not None:
        s.sendall(GREETING + ready(socket_type, identity))
        got = b""
        while b"READY" not in got:                     # the kernel's greeting and READY
            chunk = s.recv(4096)
            assert chunk, "the kernel closed the connection during the handshake"
            got += chunk
    return s


def wait_closed(socks):
    """Waits until the kernel has closed every socket (reading what it sends); returns the bytes each received."""
    sel = selectors.DefaultSelector()
    got, open_ = {}, set()
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        got[s] = b""
        open_.add(s)
    deadline = time.monotonic() + FENCE
    while open_:
        left = deadline - time.monotonic()
        assert left > 0, f"{len(open_)} connections still open after {FENCE} s"
        for key, _ in sel.select(timeout=left):
            try:
                chunk = key.fileobj.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if chunk:
                got[key.fileobj] += chunk
            else:
                sel.unregister(key.fileobj)
                open_.discard(key.fileobj)
    sel.close()
    return [got[s] for s in socks]


# ---- the kernel process, from /proc ----

def pid_of(km):
    return km.provisioner.process.pid


def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def unread(pid, port):
    """Bytes that peers sent to the kernel's port and the kernel has not read yet (its sockets' receive queues)."""
    total = 0
    for table in ("tcp", "tcp6"):
        with open(f"/proc/{pid}/net/{table}") as f:
            next(f)
            for row in f:
                cols = row.split()
                if int(cols[1].split(":")[1], 16) == port and cols[3] == "01":   # 01: ESTABLISHED
                    total += int(cols[4].split(":")[1], 16)
    return total


def wait_read(km, port):
    """Waits until the kernel has read everything sent to its port."""
    pid, number = pid_of(km), km.get_connection_info()[port + "_port"]
    deadline = time.monotonic() + FENCE
    while unread(pid, number):
        assert time.monotonic() < deadline, f"the kernel left bytes on {port} unread for {FENCE} s"
        time.sleep(0.05)


class Peak:
    """The kernel's largest resident memory while the block runs, sampled from /proc every 10 ms."""

    def __init__(self, pid):
        self.pid, self.peak, self.base = pid, 0, rss(pid)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, rss(self.pid))
            time.sleep(0.01)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss(self.pid))

    @property
    def growth(self):
        return self.peak - self.base


@pytest.fixture
def logged(tmp_path):
    """A kernel of the test's own with its stderr in a file: (km, kc, path of the log)."""
    km, kc, log = ku.start_logged(tmp_path / "kernel.stderr")
    yield km, kc, log
    ku.stop(km, kc)


# ---- connections that do nothing ----

def test_idle_connections_are_closed_and_the_kernel_serves_again(logged):
    """40 plain TCP connections to every port that send nothing: those over its limit take the places of the oldest
    (none of them is vouched for), which are closed at once, and the others are closed when their handshake does not
    come; then it holds no more descriptors than before, and clients and the heartbeat are served."""
    km, kc, log = logged
    pid = pid_of(km)
    before = open_fds(pid)
    socks = [peer(km, port, socket_type=None) for port in PORTS for _ in range(40)]
    start = time.monotonic()
    got = wait_closed(socks)
    took = time.monotonic() - start
    print(f"idle connections closed after {took:.1f} s")
    for s in socks:
        s.close()
    assert all(g == b"" or g.startswith(b"\xff") for g in got)   # refused at once, or greeted and then closed
    text = ku.wait_for_text(log, "no ZMTP handshake within its time")
    assert "closed a connection on shell: the port is full and it is not vouched for" in text
    deadline = time.monotonic() + FENCE
    while open_fds(pid) > before:                  # libzmq closes a descriptor once its connection is gone
        assert time.monotonic() < deadline, f"{open_fds(pid)} descriptors, {before} before"
        time.sleep(0.05)
    assert ku.answers(kc) and ku.heartbeat_echoes(km)


def test_a_half_open_connection_is_pinged_then_closed(logged):
    """A peer that does the handshake and then goes silent (as a connection whose other end vanished does): the
    kernel sends it a PING, and closes it when no answer comes."""
    km, kc, log = logged
    socks = [peer(km, port, socket_type=b"SUB" if port == "iopub" else b"DEALER") for port in PORTS]
    got = wait_closed(socks)
    for s, g in zip(socks, got):
        s.close()
        assert b"\x04PING" in g, g
    assert "silent for too long, PING unanswered" in ku.wait_for_text(log, "PING unanswered")
    assert ku.answers(kc)


def test_a_client_that_stays_connected_and_idle_keeps_its_connection(logged):
    """libzmq answers PING by itself: a client that sends nothing for longer than the kernel's silence limit still
    gets its replies on the same connection (the monitor sees no disconnect)."""
    km, kc, log = logged
    raw = ku.RawClient(km, "control", monitor=True)
    try:
        raw.monitor.wait(zmq.EVENT_HANDSHAKE_SUCCEEDED)
        silent = peer(km, "control")                       # a peer that does not answer PING: its close marks time
        wait_closed([silent])
        silent.close()
        _, msg_id = raw.send("kernel_info_request", {})
        assert raw.recv_reply_to(msg_id)[0]["msg_type"] == "kernel_info_reply"
        events = []
        while raw.monitor.sock.poll(0):
            events.append(raw.monitor._recv(raw.monitor.sock)["event"])
        assert zmq.EVENT_DISCONNECTED not in events, events
    finally:
        raw.close()


# ---- a flood on shell ----

FLOOD = r"""
import socket, sys
greeting, ready, one = (bytes.fromhex(x) for x in sys.argv[3:6])
chunk = one * 4096
while True:                                    # connects again whenever the kernel closes the connection
    try:
        s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
        s.sendall(greeting + ready)
        while True:
            s.sendall(chunk)
    except OSError:
        pass
"""


def test_control_answers_within_a_second_while_shell_is_flooded(logged):
    """Four processes stream small frames into shell as fast as they can, each frame announcing another, so that no
    message ever ends; kernel_info on control is answered within 1 s each time."""
    km, kc, log = logged
    info = km.get_connection_info()
    pid, port = pid_of(km), info["shell_port"]
    one = frame(b"f" * 250, more=True)                      # sent 4,096 at a time: 1 MiB
    args = [info["ip"], str(port), GREETING.hex(), ready(b"DEALER").hex(), one.hex()]
    floods = [subprocess.Popen([sys.executable, "-c", FLOOD] + args) for _ in range(4)]
    times = []
    try:
        deadline = time.monotonic() + FENCE
        while unread(pid, port) < 1 << 20:                     # the kernel cannot keep up: bytes wait unread
            assert time.monotonic() < deadline and all(f.poll() is None for f in floods), "no flood"
            time.sleep(0.01)
        with ku.RawClient(km, "control") as raw:
            for _ in range(5):
                start = time.monotonic()
                _, msg_id = raw.send("kernel_info_request", {})
                assert raw.recv_reply_to(msg_id, timeout=FENCE)[0]["msg_type"] == "kernel_info_reply"
                times.append(time.monotonic() - start)
    finally:
        for f in floods:
            f.kill()
            f.wait()
    print(f"control round trips under the flood: {', '.join(f'{t:.3f}' for t in times)} s")
    assert statistics.median(times) < 1.0 and sum(t < 1.0 for t in times) >= 4, times
    assert ku.answers(kc)


# ---- memory ----

def test_partial_messages_hold_bounded_memory(logged):
    """12 connections each send all but the last byte of a 16 MiB frame: shell holds at most its 48 MiB; the
    connections it has no room for are closed."""
    km, kc, log = logged
    pid = pid_of(km)
    socks = [peer(km, "shell") for _ in range(12)]
    body = b"p" * (FRAME_MAX - 1)
    with Peak(pid) as peak:
        for s in socks:
            try:
                s.sendall(header(FRAME_MAX) + body)
            except OSError:                                    # closed by the kernel: it had no room
                pass
        wait_read(km, "shell")
    print(f"partial messages: the kernel grew by {peak.growth / MIB:.1f} MiB")
    assert "a message the kernel has no room for" in ku.wait_for_text(log, "as much of its clients' messages as it may")
    for s in socks:
        s.close()
    assert peak.growth < IN_MAX + 24 * MIB, peak.growth
    assert ku.answers(kc)


def test_messages_queued_while_a_cell_runs_hold_bounded_memory(logged):
    """While a cell runs, one peer sends complete unsigned 15 MiB messages: what waits for the shell thread stays
    within shell's 48 MiB; the peer's connection is closed once it would pass it."""
    km, kc, log = logged
    pid = pid_of(km)
    msg_id = kc.execute("sleep 600")
    while True:                                                # the cell runs
        msg = kc.get_iopub_msg(timeout=FENCE)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "execute_input":
            break
    s = peer(km, "shell")
    body = frame(b"q" * (15 * MIB))
    with Peak(pid) as peak:
        try:
            for _ in range(8):
                s.sendall(body)
        except OSError:
            pass
        wait_read(km, "shell")
    print(f"queued messages: the kernel grew by {peak.growth / MIB:.1f} MiB")
    s.close()
    km.interrupt_kernel()
    assert ku.shell_reply(kc, msg_id, timeout=FENCE)["content"]["status"] == "error"
    assert peak.growth < IN_MAX + 24 * MIB, peak.growth
    assert ku.answers(kc)


def test_iopub_subscriptions_hold_no_memory(logged):
    """1,000 subscriptions of 4,000 distinct bytes each: the kernel keeps none of them, and still publishes."""
    km, kc, log = logged
    pid = pid_of(km)
    s = peer(km, "iopub", socket_type=b"SUB")
    with Peak(pid) as peak:
        for i in range(1000):
            s.sendall(frame(b"\x01" + b"%06d" % i + b"t" * 3993))
        wait_read(km, "iopub")
        assert ku.answers(kc)
    print(f"subscriptions: the kernel grew by {peak.growth / MIB:.1f} MiB")
    s.close()
    assert peak.growth < 8 * MIB, peak.growth


def test_a_subscriber_that_never_reads_holds_bounded_memory(logged):
    """A subscriber that never reads while cells publish 100 MiB: what waits for it stays within its 48 MiB."""
    km, kc, log = logged
    pid = pid_of(km)
    s = peer(km, "iopub", socket_type=b"SUB", rcvbuf=4096)
    s.sendall(frame(b"\x01"))                                   # subscribes to everything, then never reads
    code = 'print "' + "y" * (MIB - 1024) + '"'
    with Peak(pid) as peak:
        for _ in range(50):                                     # execute_input and a stream: 2 MiB each
            reply, _ = ku.run(kc, code, timeout=FENCE)
            assert reply["content"]["status"] == "ok"
    print(f"a subscriber that never reads: the kernel grew by {peak.growth / MIB:.1f} MiB")
    s.close()
    assert peak.growth < OUT_MAX + 24 * MIB, peak.growth
    assert "does not read" in ku.wait_for_text(log, "does not read")


def test_a_client_that_reads_slowly_gets_every_reply(logged):
    """A client with the key asks for 12 replies of 4 MiB at once (history of 64 cells of 64 KiB) and takes them in
    slowly (one message held by its socket, a 4 KiB receive buffer): more than 16 MiB waits for it in
    the kernel, and every reply still comes, in order."""
    km, kc, log = logged
    for i in range(64):
        reply, _ = ku.run(kc, "# " + "h" * (64 * 1024 - 16) + f"\nmean {i} 1", timeout=FENCE)
        assert reply["content"]["status"] == "ok"
    with ku.RawClient(km, monitor=True, options={zmq.RCVHWM: 1, zmq.RCVBUF: 4096}) as raw:
        raw.monitor.wait(zmq.EVENT_HANDSHAKE_SUCCEEDED)
        ids = [raw.send("history_request", {"hist_access_type": "tail", "n": 1000, "output": False})[1]
               for _ in range(12)]
        answered = []
        while len(answered) < len(ids):
            time.sleep(0.2)                                     # a slow reader
            got = raw.recv(timeout=FENCE)
            assert got is not None, f"{len(ids) - len(answered)} replies did not come within {FENCE} s"
            answered.append(raw.parent_id)
            assert answered == ids[:len(answered)], f"reply {len(answered)} of {len(ids)} answers another request"
            assert got[0]["msg_type"] == "history_reply" and len(got[1]["history"]) == 64
    assert "does not read" not in open(log).read()
    assert ku.answers(kc)


# ---- another connection's replies ----

def test_a_reply_whose_connection_closed_goes_to_no_other_connection(logged):
    """The client's execute waits for input when its shell connection closes; a peer without the key connected with
    the client's routing id. The client answers on stdin: the execute's reply (which may carry user_expressions)
    is dropped, never sent to the peer."""
    km, kc, log = logged
    identity = b"client-" + os.urandom(8).hex().encode()
    stdin = ku.RawClient(km, "stdin", identity=identity, monitor=True)
    old = ku.RawClient(km, identity=identity, monitor=True)
    thief = ku.RawClient(km, identity=identity, monitor=True)
    try:
        stdin.monitor.wait(zmq.EVENT_HANDSHAKE_SUCCEEDED)
        thief.monitor.wait(zmq.EVENT_HANDSHAKE_SUCCEEDED)
        _, msg_id = old.send("execute_request", {"code": 'input "password: "', "silent": False,
                                                 "store_history": True, "user_expressions": {"p": "1"},
                                                 "allow_stdin": True, "stop_on_error": True})
        assert stdin.recv_reply_to(msg_id)[0]["msg_type"] == "input_request"
        old.close()
        stdin.send("input_reply", {"value": "secret"})
        ku.wait_for_text(log, "a message on shell for a connection that is gone: dropped")
        assert not thief.sock.poll(0), "the reply went to the peer"
    finally:
        for c in (stdin, old, thief):
            if not c.sock.closed:
                c.close()
    assert ku.answers(kc)


# ---- the connection file ----

@pytest.mark.parametrize("transport", [5, None, ["tcp"], "udp"])
def test_a_transport_that_is_not_tcp_or_ipc_is_refused(tmp_path, transport):
    path, _ = ts.connection_file(tmp_path, transport=transport)
    proc = subprocess.run([ku.WORDLAB, "kernel", "-f", str(path)], capture_output=True, text=True, timeout=FENCE)
    assert proc.returncode == 1 and 'transport must be "tcp" or "ipc"' in proc.stderr, proc.stderr


def test_a_connection_file_without_a_transport_means_tcp(tmp_path):
    path, info = ts.connection_file(tmp_path)
    del info["transport"]
    path.write_text(json.dumps(info))
    proc = ts.start_kernel(path)
    try:
        assert ("127.0.0.1", info["shell_port"]) in ts.wait_listening(proc.pid, 5)
    finally:
        ts.stop_kernel(proc)
