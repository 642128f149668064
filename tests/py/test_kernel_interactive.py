"""test_kernel_interactive.py: the wordlab kernel while a cell runs: interrupts, control and heartbeat, stdin.

Nothing here waits for a time: a cell that must still be running when something happens is one that only an
interrupt ends (sleep 60, an input nobody answers, training for a million steps), and it is interrupted after
the check, so its Interrupted reply shows it was running all along.
"""

import kernel_util as ku


def wait_started(kc, msg_id):
    """Waits for the execute_input of msg_id: the cell is running."""
    while True:
        m = kc.get_iopub_msg(timeout=ku.TIMEOUT)
        if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "execute_input":
            return


def answers(kc):
    msg_id = kc.kernel_info()
    reply = ku.shell_reply(kc, msg_id)
    ku.collect(kc, msg_id)
    return reply["content"]["status"] == "ok"


def interrupt_long_cell(km, kc):
    """An interrupt once the cell's execute_input is out stops that cell (60 s of sleep: a reply within the
    15 s timeout is the interrupt's)."""
    msg_id = kc.execute("sleep 60")
    wait_started(kc, msg_id)
    km.interrupt_kernel()
    reply = ku.shell_reply(kc, msg_id)
    assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "Interrupted"
    msgs = ku.collect(kc, msg_id)
    assert [m["msg_type"] for m in msgs if m["msg_type"] == "error"] == ["error"]
    assert answers(kc)
    reply, msgs = ku.run(kc, "mean 1 2")
    assert reply["content"]["status"] == "ok"


def test_sigint_interrupts_the_cell_not_the_kernel(kernel):
    km, kc = kernel
    interrupt_long_cell(km, kc)
    # SIGINT while idle does nothing: once it is delivered, the kernel is still there and answers
    km.interrupt_kernel()
    ku.wait_sigint_delivered(km.provisioner.process.pid)
    assert km.is_alive() and answers(kc)
    reply, _ = ku.run(kc, "sleep 0.01")
    assert reply["content"]["status"] == "ok"


def test_interrupt_request_in_message_mode():
    km, kc = ku.start("wordlab-message")
    try:
        assert km.kernel_spec.interrupt_mode == "message"
        interrupt_long_cell(km, kc)   # jupyter_client sends interrupt_request on its own control socket
        # and the same through the client's control channel, to see the reply
        msg_id = kc.execute("sleep 60")
        wait_started(kc, msg_id)
        msg = kc.session.msg("interrupt_request", {})
        kc.control_channel.send(msg)
        reply = kc.get_control_msg(timeout=ku.TIMEOUT)
        assert reply["msg_type"] == "interrupt_reply" and reply["content"]["status"] == "ok"
        assert ku.shell_reply(kc, msg_id)["content"]["ename"] == "Interrupted"
        ku.collect(kc, msg_id)
        assert answers(kc)
    finally:
        ku.stop(km, kc)


def test_control_and_heartbeat_during_a_long_cell(kernel):
    km, kc = kernel
    msg_id = kc.execute("sleep 60")
    wait_started(kc, msg_id)
    msg = kc.session.msg("kernel_info_request", {})
    kc.control_channel.send(msg)
    reply = kc.get_control_msg(timeout=ku.TIMEOUT)
    assert reply["msg_type"] == "kernel_info_reply"
    assert ku.heartbeat_echoes(km, timeout_ms=ku.TIMEOUT * 1000)
    km.interrupt_kernel()
    reply = ku.shell_reply(kc, msg_id)
    assert reply["content"]["ename"] == "Interrupted"   # the cell was still running: control did not wait for it
    # busy/idle of the control request were published while the cell ran; the cell's idle came last
    ku.collect(kc, msg["header"]["msg_id"])
    ku.collect(kc, msg_id)


def test_input_request(kernel):
    km, kc = kernel
    msg_id = kc.execute('name = input "who are you? "\nprint "hello, $name"', allow_stdin=True)
    req = kc.get_stdin_msg(timeout=ku.TIMEOUT)
    assert req["msg_type"] == "input_request" and req["parent_header"]["msg_id"] == msg_id
    assert req["content"] == {"prompt": "who are you? ", "password": False}
    kc.input("Ada Lovelace ✓")
    reply = ku.shell_reply(kc, msg_id)
    assert reply["content"]["status"] == "ok"
    assert ku.stdout_text(ku.collect(kc, msg_id)) == "hello, Ada Lovelace ✓\n"
    # password prompts say so
    msg_id = kc.execute('input "secret: " password=1', allow_stdin=True)
    req = kc.get_stdin_msg(timeout=ku.TIMEOUT)
    assert req["content"]["password"] is True
    kc.input("hunter2")
    assert ku.shell_reply(kc, msg_id)["content"]["status"] == "ok"
    ku.collect(kc, msg_id)


def test_allow_stdin_false_is_honoured(kernel):
    km, kc = kernel
    refused, msgs = ku.run(kc, 'input "who? "', allow_stdin=False, stop_on_error=False)
    assert refused["content"]["status"] == "error" and refused["content"]["ename"] == "InputError"
    # stdin messages come in order: the first to arrive must be the request of a cell that may ask
    msg_id = kc.execute('input "now? "', allow_stdin=True)
    assert kc.get_stdin_msg(timeout=ku.TIMEOUT)["parent_header"]["msg_id"] == msg_id
    kc.input("yes")
    assert ku.shell_reply(kc, msg_id)["content"]["status"] == "ok"
    ku.collect(kc, msg_id)
    reply, msgs = ku.run(kc, 'input "who? " default="nobody"', allow_stdin=False)
    assert reply["content"]["status"] == "ok"
    assert [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == "execute_result"] == ['nobody']


def test_interrupt_while_waiting_for_input(kernel):
    km, kc = kernel
    msg_id = kc.execute('input "waiting: "', allow_stdin=True, stop_on_error=False)
    kc.get_stdin_msg(timeout=ku.TIMEOUT)
    km.interrupt_kernel()
    reply = ku.shell_reply(kc, msg_id)   # nobody answers the input: only the interrupt ends the wait
    assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "Interrupted"
    ku.collect(kc, msg_id)
    assert answers(kc)


def test_training_shows_live_progress_and_interrupt_keeps_the_best(kernel):
    km, kc = kernel
    reply, _ = ku.run(kc, "stories = corpus profile=smoke\nm = model new kind=attention vocab=$stories.vocab seed=11")
    assert reply["content"]["status"] == "ok"
    msg_id = kc.execute("train $m $stories steps=1000000 batch=32 eval_every=15", stop_on_error=False)
    display_id, updates, text = None, 0, ""
    # While it trains: one display_data with a display_id, then updates of that same display
    while updates < 3 or text.count("validation loss") < 3:
        m = kc.get_iopub_msg(timeout=60)
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        if m["msg_type"] == "display_data":
            assert display_id is None
            display_id = m["content"]["transient"]["display_id"]
            assert {"text/plain", "text/html", "image/svg+xml"} <= set(m["content"]["data"])
        elif m["msg_type"] == "update_display_data":
            assert m["content"]["transient"]["display_id"] == display_id
            updates += 1
        elif m["msg_type"] == "stream":
            text += m["content"]["text"]
        assert m["msg_type"] != "status" or m["content"]["execution_state"] == "busy", "training ended too soon"
    km.interrupt_kernel()
    reply = ku.shell_reply(kc, msg_id)   # a million steps: only the interrupt ends them
    assert reply["content"]["status"] == "ok" or reply["content"]["ename"] == "Interrupted"
    text += ku.stdout_text(ku.collect(kc, msg_id))
    assert "interrupted at step" in text, text[-300:]
    assert answers(kc)
    # the best validation step is the one the model keeps
    evals = [(float(line.rsplit(" ", 1)[1]), int(line.split()[1].split("/")[0].rstrip(":")))
             for line in text.splitlines() if "validation loss" in line]
    best_loss, best_step = min(evals)
    assert f"keeps the weights of step {best_step}" in text, text[-300:]
    reply, msgs = ku.run(kc, "e = evaluate $m $stories split=validation\nprint $e.loss")
    assert abs(float(ku.stdout_text(msgs)) - best_loss) < 2e-4


def test_output_held_back_goes_out_while_the_cell_still_runs(kernel):
    """Writes that come close together are coalesced, but none waits for the end of the cell: the flush timer
    sends what is buffered while a long command runs (one that only an interrupt ends)."""
    km, kc = kernel
    msg_id = kc.execute('print "a"\nprint "b"\nsleep 60', stop_on_error=False)
    wait_started(kc, msg_id)
    text = ""
    while "b" not in text:
        m = kc.get_iopub_msg(timeout=ku.TIMEOUT)
        if m["parent_header"].get("msg_id") == msg_id:
            assert m["msg_type"] == "stream", f"{m['msg_type']} came before the output: it waited for the cell's end"
            text += m["content"]["text"]
    assert text == "a\nb\n", text
    km.interrupt_kernel()
    reply = ku.shell_reply(kc, msg_id)
    assert reply["content"]["ename"] == "Interrupted"   # the output came while the cell still ran
    assert [m["msg_type"] for m in ku.collect(kc, msg_id)] == ["error", "status"]


def test_charts_come_as_vega_lite_beside_the_svg(kernel):
    _, kc = kernel
    reply, msgs = ku.run(kc, "seq_weights heads=2 run=2 positions=0")
    assert reply["content"]["status"] == "ok"
    (result,) = [m for m in msgs if m["msg_type"] == "execute_result"]
    data = result["content"]["data"]
    assert {"text/plain", "image/svg+xml", "application/vnd.vegalite.v5+json"} <= set(data)
    spec = data["application/vnd.vegalite.v5+json"]
    assert spec["$schema"].endswith("/vega-lite/v5.json")
    lines = spec["layer"][0]
    assert lines["encoding"]["y"]["scale"]["domain"][0] == 0      # weights are not magnified from 0.08
    assert all(float(v).is_integer() for v in lines["encoding"]["x"]["axis"]["values"])   # whole steps
    assert " ".join(spec["title"]["text"]).endswith("2 heads, run 2, positions off")
    assert spec["layer"][1]["data"]["values"][0]["y"] == 1 / 12
