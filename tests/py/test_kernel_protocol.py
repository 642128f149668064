"""test_kernel_protocol.py: the wordlab kernel through jupyter_client: ordering, aborts, signatures, malformed frames, Unicode cursors, restarts."""
import json
import zmq

import kernel_util as ku


def alive(kc):
    """The kernel answers a kernel_info_request on shell with busy and idle around it."""
    msg_id = kc.kernel_info()
    reply = ku.shell_reply(kc, msg_id, timeout=ku.TIMEOUT)
    states = [m["content"]["execution_state"] for m in ku.collect(kc, msg_id, timeout=ku.TIMEOUT)]
    return reply["content"]["status"] == "ok" and states == ["busy", "idle"]


def test_execute_order_and_counts(kernel):
    km, kc = kernel
    reply, msgs = ku.run(kc, 'print "a"\nmean 2 4')
    types = [m["msg_type"] for m in msgs]
    assert types == ["status", "execute_input", "stream", "execute_result", "status"], types
    n = reply["content"]["execution_count"]
    assert msgs[1]["content"]["execution_count"] == n
    assert msgs[3]["content"]["execution_count"] == n
    assert msgs[3]["content"]["data"]["text/plain"] == "3.0"
    assert msgs[3]["content"]["metadata"] == {}
    assert reply["content"]["payload"] == [] and reply["content"]["user_expressions"] == {}
    reply2, _ = ku.run(kc, "mean 1")
    assert reply2["content"]["execution_count"] == n + 1
    # silent: nothing published but busy/idle, and the count does not move
    reply3, msgs3 = ku.run(kc, "mean 5", silent=True)
    assert [m["msg_type"] for m in msgs3] == ["status", "status"]
    assert reply3["content"]["execution_count"] == n + 1
    # store_history=False: output, but the count does not move
    reply4, msgs4 = ku.run(kc, "mean 6", store_history=False)
    assert any(m["msg_type"] == "execute_result" for m in msgs4)
    assert reply4["content"]["execution_count"] == n + 1


def test_header_fields(kernel):
    km, kc = kernel
    msg_id = kc.kernel_info()
    reply = ku.shell_reply(kc, msg_id)
    h = reply["header"]
    assert h["version"] == "5.3" and h["msg_type"] == "kernel_info_reply"
    assert len(h["msg_id"]) == 36 and h["session"]
    assert reply["parent_header"]["msg_id"] == msg_id
    assert reply["metadata"] == {}
    c = reply["content"]
    assert c["protocol_version"] == "5.3" and c["implementation"] == "wordlab"
    li = c["language_info"]
    assert li["name"] == "wordlab" and li["file_extension"] == ".wlab" and li["mimetype"]
    assert c["help_links"] and {"text", "url"} <= set(c["help_links"][0])


def test_error_reply_and_traceback(kernel):
    km, kc = kernel
    reply, msgs = ku.run(kc, 'print "ok"\nmean 1 x', stop_on_error=False)
    c = reply["content"]
    assert c["status"] == "error" and isinstance(c["execution_count"], int)
    assert c["ename"] and c["evalue"]
    errs = [m for m in msgs if m["msg_type"] == "error"]
    assert len(errs) == 1
    tb = errs[0]["content"]["traceback"]
    assert isinstance(tb, list) and all(isinstance(line, str) for line in tb)
    assert any(":2:" in line for line in tb), tb          # the line ...
    assert any(line.strip().endswith("^") for line in tb), tb   # ... and a caret under the column
    assert msgs[-1]["content"]["execution_state"] == "idle"


def test_control_characters_reach_the_front_end_shown(kernel, tmp_path):
    """JupyterLab and jupyter console read ANSI codes in streams, text/plain and tracebacks: an ESC from a story, a
    string or a cell's line arrives as the six characters \\u001b; the error line keeps the kernel's own red."""
    km, kc = kernel
    story = "once upon a time \x1b]52;c;ZWNobyBwd25lZA==\x07 the dog \x1b[2J\x1b]0;OWNED\x07 ran home . "
    corpus = tmp_path / "esc.jsonl"
    corpus.write_text("".join(json.dumps({"text": f"story {i} " + story * 3}) + "\n" for i in range(60)))
    reply, msgs = ku.run(kc, f"c = corpus file={corpus} stories=60 audit=0\nstory $c split=train story=1\n"
                             'print "a\\u001b[2Jb"\nwarn "w\\u0007"\ns = "v\\u009bz"\n$s')
    assert reply["content"]["status"] == "ok", reply["content"]
    texts = [m["content"]["text"] for m in msgs if m["msg_type"] == "stream"]
    texts += [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] in ("display_data", "execute_result")]
    shown = "".join(texts)
    for raw in ("\x1b", "\x07", "\x9b"):
        assert raw not in shown, (raw, shown)
    assert "\\u001b]52;c;ZWNobyBwd25lZA==\\u0007 the dog \\u001b[2J\\u001b]0;OWNED\\u0007 ran home" in shown, shown
    assert "a\\u001b[2Jb\n" in shown and "w\\u0007\n" in shown and "v\\u009bz" in shown, shown

    reply, msgs = ku.run(kc, "foo\x1b]0;T\x07bar 1", stop_on_error=False)
    err = next(m for m in msgs if m["msg_type"] == "error")["content"]
    tb = err["traceback"]
    assert tb[0].startswith("\x1b[0;31m") and tb[0].endswith("\x1b[0m"), tb   # the kernel's own colour stays
    rest = "".join(tb).replace("\x1b[0;31m", "").replace("\x1b[0m", "") + err["evalue"]
    assert "\x1b" not in rest and "\x07" not in rest, tb
    assert "    foo\\u001b]0;T\\u0007bar 1" in tb, tb


def test_stop_on_error_aborts_queue(kernel):
    """The failing cell waits for input while two more executes are queued behind it (a control round trip after
    them shows the kernel has taken them in); the input makes it fail: the queued ones are aborted, each with
    busy and idle and no output. A request sent after the error's reply runs."""
    km, kc = kernel
    first = kc.execute('x = input "n? "\nmean $x', allow_stdin=True)
    kc.get_stdin_msg(timeout=ku.TIMEOUT)
    ids = [first, kc.execute('print "two"'), kc.execute('print "three"')]
    msg = kc.session.msg("kernel_info_request", {})
    kc.control_channel.send(msg)
    kc.get_control_msg(timeout=ku.TIMEOUT)
    kc.input("not a number")
    replies = [ku.shell_reply(kc, i) for i in ids]
    assert [r["content"]["status"] for r in replies] == ["error", "aborted", "aborted"]
    assert all("execution_count" in r["content"] for r in replies)
    for k, i in enumerate(ids):   # every aborted request still gets busy and idle, and no output
        msgs = ku.collect(kc, i)
        assert msgs[0]["content"]["execution_state"] == "busy"
        assert msgs[-1]["content"]["execution_state"] == "idle"
        if k:
            assert [m["msg_type"] for m in msgs] == ["status", "status"]
    reply, msgs = ku.run(kc, 'print "after"')
    assert reply["content"]["status"] == "ok" and ku.stdout_text(msgs) == "after\n"
    # stop_on_error=False: the queue runs on
    ids = [kc.execute("nosuchcommand", stop_on_error=False), kc.execute('print "runs"')]
    assert [ku.shell_reply(kc, i)["content"]["status"] for i in ids] == ["error", "ok"]
    for i in ids:
        ku.collect(kc, i)


def test_a_request_sent_after_the_error_reply_is_not_aborted(kernel):
    """The failing cell waits for input while an execute and 500 kernel_info requests are queued behind it: the
    kernel is busy with them for a while after the error's reply. An execute sent as soon as the error's reply
    arrives was not queued when the cell failed: it runs (the queued execute alone is aborted)."""
    km, kc = kernel
    first = kc.execute('x = input "n? "\nmean $x', allow_stdin=True)
    kc.get_stdin_msg(timeout=ku.TIMEOUT)
    queued = kc.execute('print "queued"')
    infos = [kc.kernel_info() for _ in range(500)]
    kc.control_channel.send(kc.session.msg("kernel_info_request", {}))
    kc.get_control_msg(timeout=ku.TIMEOUT)
    kc.input("not a number")
    assert ku.shell_reply(kc, first)["content"]["status"] == "error"
    after = kc.execute('print "after"')
    statuses = {}
    while after not in statuses:
        msg = kc.get_shell_msg(timeout=ku.TIMEOUT)
        statuses[msg["parent_header"]["msg_id"]] = msg["content"]["status"]
    assert statuses[queued] == "aborted"
    assert statuses[after] == "ok", statuses[after]
    assert all(statuses[i] == "ok" for i in infos)
    assert ku.stdout_text(ku.collect(kc, after)) == "after\n"


def test_user_expressions(kernel):
    km, kc = kernel
    reply, _ = ku.run(kc, "x = mean 1 3", user_expressions={"a": "mean 1 3", "b": "nosuchcommand"})
    ue = reply["content"]["user_expressions"]
    assert ue["a"]["status"] == "ok" and ue["a"]["data"]["text/plain"] == "2.0"
    assert ue["b"]["status"] == "error" and ue["b"]["ename"]


def test_is_complete(kernel):
    km, kc = kernel
    for code, status in [('print "x"', "complete"), ('print "x', "incomplete"), ("mean 1 ]", "invalid")]:
        msg_id = kc.is_complete(code)
        reply = ku.shell_reply(kc, msg_id)
        assert reply["content"]["status"] == status, code
        if status == "incomplete":
            assert "indent" in reply["content"]
        ku.collect(kc, msg_id)


def test_unicode_cursor_positions(kernel):
    km, kc = kernel
    # cursor_pos counts code points: "日本語 é" is 5 code points and 11 bytes
    code = 'x = "日本語 é"\nperp'
    msg_id = kc.complete(code, cursor_pos=len(code))
    c = ku.shell_reply(kc, msg_id)["content"]
    assert c["status"] == "ok" and "perplexity" in c["matches"]
    assert (c["cursor_start"], c["cursor_end"]) == (len(code) - 4, len(code)), c
    ku.collect(kc, msg_id)
    # a cursor in the middle of the line, after the non-ASCII text
    code = 'print "ü→😀" 1\nx = per 3'
    cur = code.index("per") + 3
    msg_id = kc.complete(code, cursor_pos=cur)
    c = ku.shell_reply(kc, msg_id)["content"]
    assert "perplexity" in c["matches"] and (c["cursor_start"], c["cursor_end"]) == (cur - 3, cur), c
    ku.collect(kc, msg_id)
    code = '"ü→😀" perplexity 0.5'
    msg_id = kc.inspect(code, cursor_pos=code.index("perplexity") + 4)
    c = ku.shell_reply(kc, msg_id)["content"]
    ku.collect(kc, msg_id)
    msg_id = kc.inspect('print "ü→😀"', cursor_pos=3)
    c2 = ku.shell_reply(kc, msg_id)["content"]
    ku.collect(kc, msg_id)
    assert c2["found"] and "print" in c2["data"]["text/plain"], c2
    assert c["status"] == "ok" and c["metadata"] == {}
    # an output with non-ASCII text comes back intact
    reply, msgs = ku.run(kc, 'print "naïve → 日本語 😀"')
    assert ku.stdout_text(msgs) == "naïve → 日本語 😀\n"


def test_help_opens_the_pager_and_reflows(kernel):
    """`?NAME` answers with a pager payload (Notebook opens its pager; JupyterLab shows the payload in the cell's output
    area, as it does for ipykernel's `?`); its HTML joins the text's wrapped lines, so it wraps to the front end's width;
    the text keeps the terminal's wrapping. Inspect (the tooltip, the contextual help) gives the same page."""
    km, kc = kernel
    reply, msgs = ku.run(kc, "?generate")
    c = reply["content"]
    assert c["status"] == "ok" and len(c["payload"]) == 1, c
    page = c["payload"][0]
    assert page["source"] == "page" and page["start"] == 0
    html, text = page["data"]["text/html"], page["data"]["text/plain"]
    joined = "Greedy (the most likely token) unless temperature= is given: then it samples from softmax(logits / T)"
    assert joined in html
    assert "\n" not in html.split("<pre")[0], html
    assert "Greedy (the most likely token)" in text and joined not in text, text   # the terminal's line breaks
    assert not [m for m in msgs if m["msg_type"] in ("execute_result", "display_data", "stream", "error")]
    msg_id = kc.inspect("generate $m", cursor_pos=3)
    c = ku.shell_reply(kc, msg_id)["content"]
    ku.collect(kc, msg_id)
    assert c["found"] and c["data"]["text/html"] == html and c["data"]["text/plain"] == text


def test_history(kernel):
    km, kc = kernel
    for code in ["mean 7 9", "exp 0", "mean 7 9"]:
        ku.run(kc, code)
    msg_id = kc.history(hist_access_type="tail", n=3, output=True, raw=True)
    h = ku.shell_reply(kc, msg_id)["content"]["history"]
    ku.collect(kc, msg_id)
    assert [e[2][0] for e in h] == ["mean 7 9", "exp 0", "mean 7 9"]
    assert h[0][2][1] == "8.0"
    session, line = h[0][0], h[0][1]
    msg_id = kc.history(hist_access_type="range", session=session, start=line, stop=line + 2, raw=True, output=False)
    h = ku.shell_reply(kc, msg_id)["content"]["history"]
    ku.collect(kc, msg_id)
    assert [e[1:] for e in h] == [[line, "mean 7 9"], [line + 1, "exp 0"]]
    msg_id = kc.history(hist_access_type="search", pattern="mean 7*", unique=True, raw=True, output=False)
    h = ku.shell_reply(kc, msg_id)["content"]["history"]
    ku.collect(kc, msg_id)
    assert [e[2] for e in h] == ["mean 7 9"]


def test_history_is_bounded(kernel):
    """A kernel that runs all day keeps only the last 1,000 cells, long results cut to 4,096 bytes."""
    km, kc = kernel
    long_text = "é" * 3000                      # 6,000 bytes of UTF-8
    reply, _ = ku.run(kc, f'"{long_text}"')
    first = reply["content"]["execution_count"]
    for i in range(1000):
        kc.execute(f"mean {i}", reply=False)
    for _ in range(1000):                       # drain the replies so none is left for later tests
        assert kc.get_shell_msg(timeout=ku.TIMEOUT)["content"]["status"] == "ok"
    msg_id = kc.history(hist_access_type="tail", n=5000, output=True, raw=True)
    h = ku.shell_reply(kc, msg_id)["content"]["history"]
    assert len(h) == 1000
    assert [e[2][0] for e in h[:2]] == ["mean 0", "mean 1"] and h[-1][2][0] == "mean 999"
    assert all(e[1] > first for e in h)         # the long cell was the oldest: dropped
    msg_id = kc.history(hist_access_type="range", session=0, start=first, stop=first + 1, raw=True, output=True)
    assert ku.shell_reply(kc, msg_id)["content"]["history"] == []
    ku.run(kc, f'"{long_text}"')
    msg_id = kc.history(hist_access_type="tail", n=1, output=True, raw=True)
    out = ku.shell_reply(kc, msg_id)["content"]["history"][0][2][1]
    assert len(out.encode()) <= 4096 + 3 and out.endswith("…") and long_text.startswith(out[:-1])


def test_comms(kernel):
    km, kc = kernel
    msg_id = kc.comm_info()
    reply = ku.shell_reply(kc, msg_id)
    assert reply["content"] == {"status": "ok", "comms": {}}
    ku.collect(kc, msg_id)
    msg = kc.session.msg("comm_open", {"comm_id": "c0ffee", "target_name": "jupyter.widget", "data": {}})
    kc.shell_channel.send(msg)
    msgs = ku.collect(kc, msg["header"]["msg_id"])
    closes = [m for m in msgs if m["msg_type"] == "comm_close"]
    assert len(closes) == 1 and closes[0]["content"]["comm_id"] == "c0ffee"
    assert alive(kc)


def test_unknown_message_type(kernel):
    km, kc = kernel
    msg = kc.session.msg("no_such_request", {"x": 1})
    kc.shell_channel.send(msg)
    reply = ku.shell_reply(kc, msg["header"]["msg_id"])
    assert reply["msg_type"] == "no_such_reply" and reply["content"]["status"] == "error"
    states = [m["content"]["execution_state"] for m in ku.collect(kc, msg["header"]["msg_id"])]
    assert states == ["busy", "idle"]
    assert alive(kc)


def test_kernel_info_on_control(kernel):
    km, kc = kernel
    msg = kc.session.msg("kernel_info_request", {})
    kc.control_channel.send(msg)
    reply = kc.get_control_msg(timeout=ku.TIMEOUT)
    assert reply["msg_type"] == "kernel_info_reply" and reply["parent_header"]["msg_id"] == msg["header"]["msg_id"]
    states = [m["content"]["execution_state"] for m in ku.collect(kc, msg["header"]["msg_id"])]
    assert states == ["busy", "idle"]


def test_heartbeat_echoes(kernel):
    km, kc = kernel
    assert ku.heartbeat_echoes(km, b"ping-\xff")


def test_bad_and_duplicate_signatures_dropped(kernel):
    km, kc = kernel
    raw = ku.RawClient(km)
    try:
        # each dropped message is followed by a good one, whose reply must be the first to come back
        raw.send("kernel_info_request", {}, signature=b"0" * 64)
        raw.send("kernel_info_request", {}, signature=b"short")
        raw.send("kernel_info_request", {}, signature=b"")
        frames, msg_id = raw.send("kernel_info_request", {})
        header, content = raw.recv_reply_to(msg_id)
        assert header["msg_type"] == "kernel_info_reply" and content["status"] == "ok"
        raw.send_frames(frames)   # the same signed message again: a replay
        _, msg_id = raw.send("kernel_info_request", {})
        raw.recv_reply_to(msg_id)
    finally:
        raw.close()
    assert alive(kc)


def test_malformed_frames_leave_it_alive(kernel):
    km, kc = kernel
    raw = ku.RawClient(km)
    try:
        raw.send_frames([b"just one frame"])
        raw.send_frames([b"<IDS|MSG>", b"sig", b"{}"])                      # too few frames
        parts = [b"{not json", b"{}", b"{}", b"{}"]
        raw.send_frames([b"<IDS|MSG>", raw.sign(parts)] + parts)           # invalid JSON, correctly signed
        parts = [b"[1, 2]", b"{}", b"{}", b"{}"]
        raw.send_frames([b"<IDS|MSG>", raw.sign(parts)] + parts)           # header not an object
        parts = [json.dumps({"msg_id": 5, "msg_type": 7}).encode(), b"{}", b"{}", b"{}"]
        raw.send_frames([b"<IDS|MSG>", raw.sign(parts)] + parts)           # header fields of the wrong types
        parts = raw.parts("execute_request", {"code": "print 1"})
        parts[1] = b"null"
        parts[2] = b'"metadata"'
        raw.send_frames([b"<IDS|MSG>", raw.sign(parts)] + parts + [b"a buffer"])  # null parent, string metadata
        header, content = raw.recv()
        assert header["msg_type"] == "execute_reply" and content["status"] == "ok"
        for bad in [{"code": 5}, {"code": None}, {}, {"code": ["print 1"]}]:   # content of the wrong types
            raw.send("execute_request", bad)
            header, content = raw.recv()
            assert header["msg_type"] == "execute_reply" and content["status"] == "error", bad
            assert "execution_count" in content
        raw.send("complete_request", {"code": "print", "cursor_pos": "x"})
        assert raw.recv()[1]["status"] == "ok"
        raw.send("history_request", {"hist_access_type": 3, "n": "many"})
        assert raw.recv() is not None
        raw.send("kernel_info_request", b"[]")                             # content not an object
        assert raw.recv()[0]["msg_type"] == "kernel_info_reply"
        big = {"code": "print 1", "padding": "x" * (10 << 20)}              # 10 MB of content
        raw.send("execute_request", big)
        header, content = raw.recv(timeout=20)
        assert content["status"] == "ok"
        raw.send("execute_request", {"code": "print " + "y" * (10 << 20), "stop_on_error": False})  # 10 MB of code: refused
        header, content = raw.recv(timeout=20)
        assert content["status"] == "error"
    finally:
        raw.close()
    assert alive(kc)


def test_many_quick_executes_keep_order(kernel):
    km, kc = kernel
    n = 1000
    ids = [kc.execute(f'print "line {i}"') for i in range(n)]
    counts = []
    for i in ids:
        reply = ku.shell_reply(kc, i, timeout=60)
        assert reply["content"]["status"] == "ok"
        counts.append(reply["content"]["execution_count"])
    assert counts == list(range(counts[0], counts[0] + n))
    # iopub: every message in order, parents in request order, each cell's output inside its busy..idle
    seen = []
    for k, i in enumerate(ids):
        msgs = ku.collect(kc, i, timeout=60)
        assert [m["msg_type"] for m in msgs] == ["status", "execute_input", "stream", "status"]
        assert ku.stdout_text(msgs) == f"line {k}\n"
        seen.append(msgs[0]["header"]["date"])
    assert alive(kc)


def expect_exit(km, kc):
    """After a shutdown reply: the kernel's process exits by itself, with status 0; the client and manager close."""
    proc = km.provisioner.process
    proc.wait(timeout=ku.TIMEOUT)
    assert proc.returncode == 0
    kc.stop_channels()
    km.cleanup_resources()


def test_shutdown_and_restart_on_same_ports():
    km, kc = ku.start()
    try:
        ports = {k: v for k, v in km.get_connection_info().items() if k.endswith("_port")}
        ku.run(kc, "x = mean 1 2")
        pid = km.provisioner.process.pid
        km.restart_kernel(now=False)
        assert km.provisioner.process.pid != pid
        assert {k: v for k, v in km.get_connection_info().items() if k.endswith("_port")} == ports
        kc.wait_for_ready(timeout=ku.TIMEOUT)
        reply, msgs = ku.run(kc, "mean 3 5")
        assert reply["content"]["status"] == "ok" and reply["content"]["execution_count"] == 1
        reply, msgs = ku.run(kc, "print $x", stop_on_error=False)
        assert reply["content"]["status"] == "error"   # a fresh interpreter
    finally:
        kc.stop_channels()
    # shutdown on control: a reply, then the process exits by itself
    kc = km.client()
    kc.start_channels()
    msg = kc.session.msg("shutdown_request", {"restart": False})
    kc.control_channel.send(msg)
    reply = kc.get_control_msg(timeout=ku.TIMEOUT)
    assert reply["msg_type"] == "shutdown_reply" and reply["content"] == {"status": "ok", "restart": False}
    expect_exit(km, kc)


def test_shutdown_on_shell():
    km, kc = ku.start()
    msg = kc.session.msg("shutdown_request", {"restart": True})
    kc.shell_channel.send(msg)
    reply = ku.shell_reply(kc, msg["header"]["msg_id"])
    assert reply["content"] == {"status": "ok", "restart": True}
    expect_exit(km, kc)


def test_kernel_info_waits_for_an_iopub_subscriber():
    """A client may execute as soon as kernel_info_reply arrives: by then someone listens on IOPub."""
    from jupyter_client.manager import KernelManager
    km = KernelManager(kernel_name="wordlab")
    km.start_kernel()
    raw = ku.RawClient(km)
    ctx = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    sub.linger = 0
    def states_of(msg_id):
        states = []
        while "idle" not in states:
            assert sub.poll(ku.TIMEOUT * 1000), f"the status messages of {msg_id} were lost"
            frames = sub.recv_multipart()
            i = frames.index(b"<IDS|MSG>")
            parent, content = json.loads(frames[i + 3]), json.loads(frames[i + 5])
            if parent.get("msg_id") == msg_id and "execution_state" in content:
                states.append(content["execution_state"])
        return states

    try:
        # The request comes first, the subscriber after it: the reply waits for the subscriber, so the
        # request's idle, published right after the reply, reaches it.
        _, info_id = raw.send("kernel_info_request", {})
        info = km.get_connection_info()
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        sub.connect(f"tcp://{info['ip']}:{info['iopub_port']}")
        header, content = raw.recv_reply_to(info_id)
        assert header["msg_type"] == "kernel_info_reply"
        assert states_of(info_id)[-1] == "idle"   # lost, had the reply come while nobody listened on IOPub
        _, msg_id = raw.send("execute_request", {"code": "mean 1 2"})
        assert states_of(msg_id) == ["busy", "idle"]
    finally:
        sub.close()
        ctx.term()
        raw.close()
        km.shutdown_kernel(now=True)
