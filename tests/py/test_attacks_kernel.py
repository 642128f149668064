"""test_attacks_kernel.py: the kernel under deliberate attack: oversized messages, history floods, very long or
odd message types, replays after many messages, an address that binds every interface, and requests that come
right after an error.

Every check waits for a state (a reply, a log line, a zmq connection event), never for a time: a message that
must be dropped is followed by one that must be answered on the same connection, and the first reply that comes
back must be that one's.
"""
import json

import pytest
import zmq

import kernel_util as ku

FRAME_MAX = 16 << 20     # kernel_wire.h: WL_WIRE_FRAME_MAX, zmq's ZMQ_MAXMSGSIZE on every socket
MESSAGE_MAX = 32 << 20   # kernel_wire.h: WL_WIRE_MESSAGE_MAX, the total of a multipart message
SUBSCRIPTION_MAX = 4096  # kernel_wire.h: WL_WIRE_SUBSCRIPTION_MAX, ZMQ_MAXMSGSIZE on IOPub
HIST_INPUT_MAX = 64 << 10
HIST_TOTAL_MAX = 8 << 20
REPLAY_WINDOW = 65536


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """A kernel of this module whose stderr goes to a file: (km, kc, path of the log)."""
    log = tmp_path_factory.mktemp("log") / "kernel.stderr"
    with open(log, "w") as f:
        km, kc = ku.start(stderr=f)
    yield km, kc, log
    ku.stop(km, kc)


def answers(kc):
    reply, msgs = ku.run(kc, "mean 1 2")
    return reply["content"]["status"] == "ok" and msgs[-1]["content"]["execution_state"] == "idle"


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
    assert km.is_alive() and answers(kc)


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
    assert answers(kc)


def test_a_multipart_message_over_the_total_limit_is_dropped_logged_and_the_next_answered(logged):
    km, kc, log = logged
    with ku.RawClient(km) as raw:
        parts = raw.parts("kernel_info_request", {})
        buffers = [b"b" * (FRAME_MAX - 1024)] * 3                 # each frame fits; together they do not
        big_id = json.loads(parts[0])["msg_id"]
        raw.send_frames([b"<IDS|MSG>", raw.sign(parts)] + parts + buffers)
        _, msg_id = raw.send("kernel_info_request", {})
        assert raw.recv_reply_to(msg_id)[0]["msg_type"] == "kernel_info_reply", f"{big_id} was answered"
    text = ku.wait_for_text(log, "more than the 33554432 bytes a message may have")
    assert "dropped a message on shell" in text
    assert answers(kc)


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
    assert answers(kc)


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
