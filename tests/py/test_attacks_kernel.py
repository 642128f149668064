"""test_attacks_kernel.py: the kernel under deliberate attack: oversized messages, a peer that claims another
client's routing id (and clients that reconnect, which must keep working), peers that hold every place of every
port, a flood of unsigned messages (its log lines), an input for a client without a stdin connection, bytes that are
not ZMTP, history floods, very long or odd message types, replays after many messages, an address that binds every
interface, ipc socket paths where a file, a link or another process's socket stands (refused) and the kernel's own
sockets (removed when it ends), and requests that come right after an error.

Every check waits for a state (a reply, a log line, a zmq connection event), never for a time: a message that
must be dropped is followed by one that must be answered on the same connection, and the first reply that comes
back must be that one's.
"""
import json
import os
import signal
import socket
import stat
import subprocess
import time

import pytest
import zmq

import kernel_util as ku

FRAME_MAX = 16 << 20     # kernel_wire.h: WL_WIRE_FRAME_MAX, zmq's ZMQ_MAXMSGSIZE on every socket
MESSAGE_MAX = 32 << 20   # kernel_wire.h: WL_WIRE_MESSAGE_MAX, the total of a multipart message
SUBSCRIPTION_MAX = 4096  # kernel_wire.h: WL_WIRE_SUBSCRIPTION_MAX, ZMQ_MAXMSGSIZE on IOPub
HIST_INPUT_MAX = 64 << 10
HIST_TOTAL_MAX = 8 << 20
REPLAY_WINDOW = 65536
RECONNECTS = 200         # rounds of a client that stops its channels and starts them again with its routing id


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """A kernel of this module whose stderr goes to a file: (km, kc, path of the log)."""
    km, kc, log = ku.start_logged(tmp_path_factory.mktemp("log") / "kernel.stderr")
    yield km, kc, log
    ku.stop(km, kc)


# ---- 12: message sizes ----

@pytest.mark.parametrize("channel", ["shell", "control", "stdin", "hb", "iopub"])
def test_a_frame_over_the_limit_disconnects_the_peer_on_every_socket(logged, channel):
    km, kc, _ = logged
    info = km.get_connection_info()
    ctx = zmq.Context()
    sock = ctx.socket(zmq.XSUB if channel == "iopub" else zmq.DEALER)
    sock.linger = 0
    mon = ku.Monitor(sock)
    try:
        sock.connect(f"tcp://{info['ip']}:{info[channel + '_port']}")
        mon.wait(zmq.EVENT_HANDSHAKE_SUCCEEDED)
        if channel == "iopub":
            sock.send(b"\x01" + b"t" * SUBSCRIPTION_MAX)   # a subscription: the frames IOPub receives
        else:
            sock.send_multipart([b"<IDS|MSG>", b"0" * 64, b"{}", b"{}", b"{}", b"x" * (FRAME_MAX + 1)])
        mon.wait(zmq.EVENT_DISCONNECTED)          # the kernel dropped the connection: it holds no more of it
    finally:
        mon.close()
        sock.close()
        ctx.term()
    assert km.is_alive() and ku.answers(kc)


def test_an_oversized_signed_request_is_dropped_and_the_next_one_answered(logged):
    km, kc, log = logged
    raw = ku.RawClient(km)
    mon = ku.Monitor(raw.sock)
    try:
        parts = raw.parts("kernel_info_request", json.dumps({"pad": "x" * (FRAME_MAX + 1)}).encode())
        raw.send_frames([b"<IDS|MSG>", raw.sign(parts)] + parts)   # correctly signed, one frame too big
        mon.wait(zmq.EVENT_DISCONNECTED)                          # (the monitor may have missed the connect)
        mon.wait(zmq.EVENT_HANDSHAKE_SUCCEEDED)                   # the client connects again by itself
        _, msg_id = raw.send("kernel_info_request", {})
        assert raw.recv_reply_to(msg_id)[0]["msg_type"] == "kernel_info_reply"
    finally:
        mon.close()
        raw.close()
    assert ku.answers(kc)


def test_a_multipart_message_over_the_total_limit_closes_its_connection_and_the_next_is_answered(logged):
    """The kernel cannot answer a message it did not keep: it closes the connection, so the client sees it close
    (and its socket connects again) rather than wait for a reply that never comes."""
    km, kc, log = logged
    with ku.RawClient(km, monitor=True) as raw:
        raw.monitor.wait(zmq.EVENT_HANDSHAKE_SUCCEEDED)
        parts = raw.parts("kernel_info_request", {})
        buffers = [b"b" * (FRAME_MAX - 1024)] * 3                 # each frame fits; together they do not
        raw.send_frames([b"<IDS|MSG>", raw.sign(parts)] + parts + buffers)
        raw.monitor.wait(zmq.EVENT_DISCONNECTED, timeout=8 * ku.TIMEOUT)   # 48 MiB to read on a loaded machine
        raw.monitor.wait(zmq.EVENT_HANDSHAKE_SUCCEEDED, timeout=8 * ku.TIMEOUT)   # connected again by itself
        _, msg_id = raw.send("kernel_info_request", {})
        assert raw.recv_reply_to(msg_id)[0]["msg_type"] == "kernel_info_reply"
    text = ku.wait_for_text(log, "more than the 33554432 bytes a message may have")
    assert "closed a connection on shell: a message of" in text
    assert ku.answers(kc)


# ---- 13: another client's routing id ----

@pytest.fixture
def fresh():
    """A kernel of the test's own: an attack that worked would leave a shared kernel's client cut off."""
    km, kc = ku.start()
    yield km, kc
    ku.stop(km, kc)


def routing_id(kc):
    """What any IOPub subscriber learns of a client: its session id, which jupyter_client uses as its routing id."""
    _, msgs = ku.run(kc, "mean 1 2")
    identity = msgs[0]["parent_header"]["session"].encode()
    assert identity == kc.session.bsession
    return identity


def control_reply(kc, msg_id):
    while True:
        msg = kc.get_control_msg(timeout=ku.TIMEOUT)
        if msg["parent_header"].get("msg_id") == msg_id:
            return msg


def client_round(kc, code="mean 3 5", iopub=True):
    """An execute and a kernel_info on shell, a kernel_info on control, an input on stdin: each reply reaches kc."""
    msg_id = kc.execute(code)
    assert ku.shell_reply(kc, msg_id)["content"]["status"] == "ok"
    msg_id = kc.kernel_info()
    assert ku.shell_reply(kc, msg_id)["msg_type"] == "kernel_info_reply"
    msg = kc.session.msg("kernel_info_request", {})
    kc.control_channel.send(msg)
    assert control_reply(kc, msg["header"]["msg_id"])["msg_type"] == "kernel_info_reply"
    msg_id = kc.execute('input "who? "', allow_stdin=True)
    asked = kc.get_stdin_msg(timeout=ku.TIMEOUT)
    assert asked["msg_type"] == "input_request" and asked["parent_header"].get("msg_id") == msg_id, asked
    kc.input("me")
    assert ku.shell_reply(kc, msg_id)["content"]["status"] == "ok"
    if iopub:
        ku.collect(kc, msg_id)


@pytest.mark.parametrize("sends", ["nothing", "garbage"])
def test_a_peer_without_the_key_that_claims_a_clients_routing_id_gets_none_of_its_replies(fresh, sends):
    """The peer reads the client's session id on IOPub and connects with it as its routing id on shell, control and
    stdin, then sends nothing, or unsigned and malformed messages. Every reply to the client's signed requests, and
    every input_request, still reaches the client and none reaches the peer (an input_request goes to the stdin
    connection that claims the id and connected closest in time to the request's shell connection)."""
    km, kc = fresh
    identity = routing_id(kc)
    thieves = {ch: ku.RawClient(km, ch, identity=identity, monitor=True) for ch in ("shell", "control", "stdin")}
    try:
        for thief in thieves.values():
            thief.monitor.wait(zmq.EVENT_HANDSHAKE_SUCCEEDED)   # the kernel holds the peer's connection and its claim
            if sends == "garbage":
                thief.send_frames([b"<IDS|MSG>", b"0" * 64, b"{}", b"{}", b"{}", b"{}"])
                thief.send("kernel_info_request", {}, signature=b"f" * 64)
                thief.send_frames([b"junk"])
        for _ in range(3):
            client_round(kc)
        for ch in ("shell", "control"):
            assert not thieves[ch].sock.poll(0), f"a reply to the client went to the peer on {ch}"
        assert not thieves["stdin"].sock.poll(0), "an input_request went to the peer"
    finally:
        for thief in thieves.values():
            thief.close()


def test_a_client_that_reconnects_with_its_routing_id_gets_every_reply(fresh):
    """jupyter_client connects again with the same routing id (its session id) when a frontend stops and starts its
    channels or restarts; the kernel may still hold the old connection. Every other round the new client connects
    before the old one closes."""
    km, kc = fresh
    kc.stop_channels()
    old = None
    for i in range(RECONNECTS):
        if old is not None and i % 2:
            old.stop_channels()
            old = None
        c = km.client()                                    # km's session: the same routing id every time
        c.start_channels(hb=False)
        assert c.session.bsession == kc.session.bsession
        client_round(c, code=f"mean {i} 1", iopub=False)
        if old is not None:
            old.stop_channels()
        old = c
    old.stop_channels()


def test_an_input_for_a_client_without_a_stdin_connection_fails_and_frees_the_kernel(fresh):
    """A client that connects shell only and asks for input (allow_stdin true) can never answer: the kernel drops
    the input_request once the client's stdin connection cannot still be on its way, and the cell ends with an
    InputError instead of holding shell (and every other client) until someone interrupts it. Then it runs the
    cell's default, and the kernel answers the next client."""
    km, kc = fresh
    with ku.RawClient(km, "shell") as lone:
        _, msg_id = lone.send("execute_request", {"code": 'input "who? "', "silent": False, "store_history": True,
                                                  "user_expressions": {}, "allow_stdin": True, "stop_on_error": True})
        header, content = lone.recv_reply_to(msg_id, timeout=4 * ku.TIMEOUT)
        assert header["msg_type"] == "execute_reply" and content["status"] == "error", content
        assert content["ename"] == "InputError", content
        _, msg_id = lone.send("execute_request", {"code": 'input "who? " default=nobody', "silent": False,
                                                  "store_history": True, "user_expressions": {}, "allow_stdin": True,
                                                  "stop_on_error": True})
        assert lone.recv_reply_to(msg_id, timeout=4 * ku.TIMEOUT)[1]["status"] == "ok"
    client_round(kc)


def hold_every_port(km, n):
    """n plain libzmq sockets on each of the five ports, as a peer without the key can open (they answer ZMTP PINGs,
    and reconnect at once when closed); returns (context, sockets)."""
    info = km.get_connection_info()
    ctx = zmq.Context()
    kinds = {"shell": zmq.DEALER, "control": zmq.DEALER, "stdin": zmq.DEALER, "hb": zmq.REQ, "iopub": zmq.SUB}
    socks = []
    for channel, kind in kinds.items():
        for _ in range(n):
            s = ctx.socket(kind)
            s.linger = 0
            s.connect(f"tcp://{info['ip']}:{info[channel + '_port']}")
            socks.append(s)
    return ctx, socks


def test_peers_without_the_key_holding_every_port_cannot_lock_a_client_out(tmp_path):
    """40 idle connections on each port (8 more than a port holds, and libzmq reconnects the refused ones): once
    every port is full (the kernel's log says so), a client that starts gets its places (the oldest connections that
    sent no signed message give way), is ready (heartbeat included) and gets every reply; more such connections then
    do not push it out."""
    km, kc, log = ku.start_logged(tmp_path / "kernel.stderr")
    kc.stop_channels()
    ctx, socks = hold_every_port(km, 40)
    try:
        deadline = time.monotonic() + ku.TIMEOUT
        while not all(f"refused a connection on {name}: it has 32 already" in (got := open(log).read()) or
                      f"closed a connection on {name}: the port is full" in got
                      for name in ("shell", "control", "stdin", "iopub", "heartbeat")):
            assert time.monotonic() < deadline, "the ports did not fill up:\n" + open(log).read()[-2000:]
            time.sleep(0.01)
        c = km.client()
        c.start_channels()
        c.wait_for_ready(timeout=ku.TIMEOUT)
        client_round(c)
        more_ctx, more = hold_every_port(km, 40)
        try:
            for i in range(3):
                client_round(c, code=f"mean {i} 2")
            assert c.is_alive()
        finally:
            for s in more:
                s.close()
            more_ctx.term()
        c.stop_channels()
    finally:
        for s in socks:
            s.close()
        ctx.term()
        ku.stop(km, kc)


def test_a_flood_of_unsigned_messages_is_logged_a_few_lines_a_second(tmp_path):
    """A peer without the key sends 3,000 messages with a bad signature: the kernel logs at most 5 lines a second
    about them (it wrote one line per message, 56 MB in 10 s) and says how many it left out, and it still answers."""
    km, kc, log = ku.start_logged(tmp_path / "kernel.stderr")
    try:
        with ku.RawClient(km, "shell") as peer:
            start = time.monotonic()
            for _ in range(3000):
                peer.send_frames([b"<IDS|MSG>", b"0" * 64, b"{}", b"{}", b"{}", b"{}"])
            assert ku.answers(kc)   # the kernel read past them (shell takes messages in order)
            took = time.monotonic() - start
            lines = open(log).read().count("bad signature")
            assert 1 <= lines <= 5 * (int(took) + 2), f"{lines} lines in {took:.1f} s"
            deadline = time.monotonic() + ku.TIMEOUT
            while "lines like it left out: at most 5 a second" not in open(log).read():
                assert time.monotonic() < deadline, open(log).read()[-2000:]
                peer.send_frames([b"<IDS|MSG>", b"0" * 64, b"{}", b"{}", b"{}", b"{}"])
                time.sleep(0.05)
            assert ku.answers(kc)
    finally:
        ku.stop(km, kc)


def test_two_clients_with_one_routing_id_each_get_their_replies(fresh):
    """Two live clients of one session (km.client() twice) share a routing id: neither cuts the other off."""
    km, kc = fresh
    c = km.client()
    c.start_channels(hb=False)
    try:
        assert c.session.bsession == kc.session.bsession
        for i in range(3):
            client_round(c, code=f"mean {i} 3", iopub=False)
            client_round(kc)
    finally:
        c.stop_channels()


def test_a_client_that_reconnects_with_a_new_routing_id_gets_every_reply(fresh):
    from jupyter_client.session import Session
    km, kc = fresh
    seen = {kc.session.bsession}
    for i in range(10):
        c = km.client(session=Session(key=km.session.key, signature_scheme=km.session.signature_scheme))
        c.start_channels(hb=False)
        assert c.session.bsession not in seen
        seen.add(c.session.bsession)
        client_round(c, code=f"mean {i} 2", iopub=False)
        c.stop_channels()
    client_round(kc)


@pytest.mark.parametrize("channel", ["shell", "control", "stdin"])
def test_bytes_that_are_not_zmtp_get_the_connection_closed(logged, channel):
    """Whatever a peer sends in place of ZMTP 3 with the NULL mechanism: the kernel closes that connection, says
    why on stderr, and answers its clients."""
    km, kc, log = logged
    info = km.get_connection_info()
    with socket.create_connection((info["ip"], info[channel + "_port"]), timeout=ku.TIMEOUT) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: kernel\r\n\r\n")
        got = b""
        while chunk := s.recv(4096):                       # until the kernel closes: a timeout fails the test
            got += chunk
    assert len(got) == 64 and got[0] == 0xFF and got[10] == 3, got   # the kernel's ZMTP greeting, then nothing
    assert f"closed a connection on {channel}: not a ZMTP greeting" in ku.wait_for_text(log, "not a ZMTP greeting")
    assert ku.answers(kc)


def test_the_kernel_serves_an_ipc_connection_file(tmp_path):
    from jupyter_client.manager import KernelManager
    km = KernelManager(kernel_name="wordlab", transport="ipc", ip=str(tmp_path / "k"))
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=ku.TIMEOUT)
        client_round(kc)
    finally:
        ku.stop(km, kc)


def ipc_connection_file(tmp_path, key="k"):
    """A connection file for the ipc transport with sockets tmp_path/ipc/k-1..k-5, and those five paths."""
    d = tmp_path / "ipc"
    d.mkdir(exist_ok=True)
    cf = tmp_path / "cf.json"
    cf.write_text(json.dumps({"shell_port": 1, "iopub_port": 2, "stdin_port": 3, "control_port": 4, "hb_port": 5,
                              "ip": str(d / "k"), "key": key, "transport": "ipc",
                              "signature_scheme": "hmac-sha256"}))
    return cf, [d / f"k-{i}" for i in range(1, 6)]


def ipc_client(cf):
    from jupyter_client import BlockingKernelClient
    kc = BlockingKernelClient(connection_file=str(cf))
    kc.load_connection_file()
    kc.start_channels()
    kc.wait_for_ready(timeout=ku.TIMEOUT)
    return kc


def make_stale_socket(path):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()                                              # the file stays; no process listens on it


@pytest.mark.parametrize("what", ["file", "link", "directory", "live socket"])
def test_an_ipc_kernel_binds_over_nothing_but_an_old_socket(tmp_path, what):
    cf, paths = ipc_connection_file(tmp_path)
    target = paths[2]
    listener = None
    if what == "file":
        target.write_text("precious")
    elif what == "link":
        target.symlink_to(tmp_path / "elsewhere")
    elif what == "directory":
        target.mkdir()
    else:
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(target))
        listener.listen()
    try:
        p = subprocess.run([ku.WORDLAB, "kernel", "-f", str(cf)], capture_output=True, text=True,
                           timeout=ku.TIMEOUT)
    finally:
        if listener:
            listener.close()
    shown = {"file": "is a regular file", "link": "is a symbolic link", "directory": "is a directory",
             "live socket": "is in use (a process listens on it)"}[what]
    assert p.returncode == 1 and f"{target} {shown}" in p.stderr, p.stderr
    assert [q.name for q in paths if os.path.lexists(q)] == [target.name]   # nothing bound, nothing removed
    if what == "file":
        assert target.read_text() == "precious"
    if what == "link":
        assert os.readlink(target) == str(tmp_path / "elsewhere")


@pytest.mark.parametrize("end", ["shutdown", "SIGTERM", "SIGHUP"])
def test_an_ipc_kernel_replaces_an_old_socket_and_removes_its_own_when_it_ends(tmp_path, end):
    cf, paths = ipc_connection_file(tmp_path)
    make_stale_socket(paths[0])                            # a killed kernel's socket: replaced
    proc = subprocess.Popen([ku.WORDLAB, "kernel", "-f", str(cf)], stderr=subprocess.PIPE, text=True)
    try:
        kc = ipc_client(cf)
        assert ku.answers(kc)
        assert all(stat.S_ISSOCK(os.lstat(q).st_mode) for q in paths)
        if end == "shutdown":
            kc.shutdown()
        else:
            proc.send_signal(getattr(signal, end))
        rc = proc.wait(timeout=ku.TIMEOUT)
        kc.stop_channels()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert rc == (0 if end == "shutdown" else -getattr(signal, end)), proc.stderr.read()
    assert not any(os.path.lexists(q) for q in paths), os.listdir(tmp_path / "ipc")


def test_an_ipc_kernel_removes_no_file_that_replaced_its_socket(tmp_path):
    cf, paths = ipc_connection_file(tmp_path)
    proc = subprocess.Popen([ku.WORDLAB, "kernel", "-f", str(cf)], stderr=subprocess.PIPE, text=True)
    try:
        kc = ipc_client(cf)
        paths[1].unlink()
        paths[1].write_text("someone else's")                 # put there while the kernel runs
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=ku.TIMEOUT)
        kc.stop_channels()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert [q.name for q in paths if os.path.lexists(q)] == ["k-2"] and paths[1].read_text() == "someone else's"


# ---- 14: history ----

def history_tail(kc, n):
    msg_id = kc.history(hist_access_type="tail", n=n, output=True, raw=True)
    h = ku.shell_reply(kc, msg_id)["content"]["history"]
    ku.collect(kc, msg_id)
    return h


def test_history_bounds_each_input_even_of_a_refused_cell(kernel):
    km, kc = kernel
    code = "# " + "z" * (3 << 19)                              # 1.5 MiB: over the 1 MiB code limit
    reply, _ = ku.run(kc, code, stop_on_error=False)
    assert reply["content"]["status"] == "error" and "1048576" in reply["content"]["evalue"], reply["content"]
    kept = history_tail(kc, 1)[0][2][0]
    assert len(kept.encode()) <= HIST_INPUT_MAX + 3 and kept.endswith("…") and code.startswith(kept[:-1])


def test_history_bounds_its_total(kernel):
    km, kc = kernel
    cell = "# " + "w" * (HIST_INPUT_MAX - 10)
    n = HIST_TOTAL_MAX // len(cell) + 20
    for i in range(n):
        kc.execute(f"# {i:04d}{cell}", reply=False)
    for _ in range(n):
        assert kc.get_shell_msg(timeout=ku.TIMEOUT)["content"]["status"] == "ok"
    h = history_tail(kc, 5000)
    total = sum(len(e[2][0].encode()) + len((e[2][1] or "").encode()) for e in h)
    assert total <= HIST_TOTAL_MAX, f"history holds {total} bytes"
    assert h[-1][2][0].startswith(f"# {n - 1:04d}")            # the newest are kept, the oldest dropped
    assert len(h) >= HIST_TOTAL_MAX // (HIST_INPUT_MAX + 4096) and not h[0][2][0].startswith("# 0000")


# ---- 15: every request gets a reply ----

@pytest.mark.parametrize("msg_type", ["x" * 121 + "_request", "x" * 3992 + "_request", 'q"uo\\te\u00e9\n_request'],
                         ids=["129", "4000", "quotes"])
def test_a_long_or_odd_msg_type_gets_an_error_reply(kernel, msg_type):
    """However long, and with quotes, backslashes and control characters: the reply's header is valid JSON."""
    km, kc = kernel
    with ku.RawClient(km) as raw:
        _, msg_id = raw.send(msg_type, {})
        header, content = raw.recv_reply_to(msg_id)
        assert header["msg_type"] == msg_type[:-len("_request")] + "_reply"
        assert content["status"] == "error" and content["ename"] == "UnknownMessageType"
    assert ku.answers(kc)


# ---- 16: replays ----

def test_a_replay_after_65536_other_messages_is_still_dropped(logged):
    km, kc, log = logged
    with ku.RawClient(km) as raw:
        frames, msg_id = raw.send("kernel_info_request", {})
        raw.recv_reply_to(msg_id)
        for i in range(REPLAY_WINDOW):                         # signed, then dropped: their header is no object
            parts = [b"[%d]" % i, b"{}", b"{}", b"{}"]
            raw.send_frames([b"<IDS|MSG>", raw.sign(parts)] + parts)
        raw.send_frames(frames)                                # the first message again
        _, fresh = raw.send("kernel_info_request", {})
        raw.recv_reply_to(fresh)
    assert "duplicate signature" in ku.wait_for_text(log, "duplicate signature")


# ---- 17: addresses ----

def test_binding_every_interface_is_warned_about(tmp_path):
    import test_security as ts
    for ip in ("0.0.0.0", "*"):
        path, _ = ts.connection_file(tmp_path, ip=ip)
        proc = ts.start_kernel(path)
        try:
            ts.wait_listening(proc.pid, 5)
        finally:
            _, err = ts.stop_kernel(proc)
        assert "WARNING" in err and "every network interface" in err, (ip, err)
    path, _ = ts.connection_file(tmp_path)
    proc = ts.start_kernel(path)
    try:
        ts.wait_listening(proc.pid, 5)
    finally:
        _, err = ts.stop_kernel(proc)
    assert "WARNING" not in err, err


# ---- 18: what an error aborts ----

def test_a_request_sent_after_the_error_reply_runs(kernel):
    """Only what was queued when the error happened is aborted (test_kernel_protocol.py checks that it is)."""
    km, kc = kernel
    for _ in range(20):
        reply, _ = ku.run(kc, "nosuchcommand")
        assert reply["content"]["status"] == "error"
        reply, msgs = ku.run(kc, 'print "runs"')                 # sent the moment the error's reply came
        assert reply["content"]["status"] == "ok" and ku.stdout_text(msgs) == "runs\n", reply["content"]
