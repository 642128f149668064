"""test_faults.py: the kernel and `wordlab` under faults: kill -9 mid-comparison and mid-save, SIGINT storms,
100 MB of output, floods of bad and malformed messages, a client that vanishes mid-execute.

kill -9 of `wordlab -c 'compare ...'` (with bit-identical results after resuming) is tested in
test_compare_resume.py; here the kernel itself is killed while a comparison runs in a cell.
"""
import json
import os
import pty
import random
import re
import select
import shutil
import signal
import subprocess
import time

import numpy as np
from jupyter_client import BlockingKernelClient

import kernel_util as ku
import training_text as tt

WORDLAB = ku.WORDLAB


def kernel_pid(km):
    return km.provisioner.process.pid


def answers(kc, timeout=ku.TIMEOUT):
    """The kernel answers kernel_info on shell, with busy and idle around it."""
    msg_id = kc.kernel_info()
    reply = ku.shell_reply(kc, msg_id, timeout=timeout)
    states = [m["content"]["execution_state"] for m in ku.collect(kc, msg_id, timeout=timeout)]
    return reply["content"]["status"] == "ok" and states == ["busy", "idle"]


def test_kill9_kernel_during_comparison_then_rerun(tmp_path):
    out = tmp_path / "cmp"
    cell = ("stories = corpus profile=smoke stories=300\n"
            f"compare $stories dir={out} steps=30 batch=8 eval_every=10 seeds=11\n")
    km, kc = ku.start()
    try:
        kc.execute(cell)
        results = out / "comparison.json"
        pid, deadline = kernel_pid(km), time.monotonic() + 120
        # Stopped the moment the mlp run is in the file, and killed while stopped there if the multihead run
        # (the last) is not: then a run was in progress.
        while True:
            assert time.monotonic() < deadline, "no finished run within 120 s"
            if results.exists() and json.loads(results.read_text())["runs"].get("mlp"):
                stop(km.provisioner.process)
                runs = json.loads(results.read_text())["runs"]
                assert not runs.get("multihead"), "the whole comparison ran before the kernel could be stopped"
                break
            time.sleep(0.001)
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while km.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not km.is_alive()
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)

    after = json.loads(results.read_text())           # still a whole JSON file
    kept = sum(len(r) for r in after["runs"].values())
    assert after["runs"]["mlp"] and 1 <= kept <= 2
    assert not after["runs"].get("multihead")

    km, kc = ku.start()
    try:
        reply, msgs = ku.run(kc, cell, timeout=300)
        assert reply["content"]["status"] == "ok", reply["content"]
        text = ku.stdout_text(msgs)
        assert f"3 of 3 runs done ({kept} kept from before)" in text, text[-2000:]
        final = json.loads(results.read_text())
        assert {k: [r["seed"] for r in v] for k, v in final["runs"].items()} == \
            {"mlp": [11], "attention": [11], "multihead": [11]}
        assert final["runs"]["mlp"] == after["runs"]["mlp"]   # the finished run is the one kept
        for kind in ("mlp", "attention", "multihead"):          # every checkpoint loads
            reply, _ = ku.run(kc, f"m = model load {out}/{kind}_seed11.npz")
            assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        ku.stop(km, kc)


def load_arrays(path):
    with np.load(path) as z:
        return {k: z[k].copy() for k in z.files}


def same(a, b):
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def stopped(pid):
    """Whether process pid is stopped (state T in /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] in ("T", "t")


def stop(proc):
    """SIGSTOP, then wait until the process is stopped: from then on its files do not change."""
    os.kill(proc.pid, signal.SIGSTOP)
    deadline = time.monotonic() + 30
    while not stopped(proc.pid):
        assert time.monotonic() < deadline, "the process did not stop"
        time.sleep(0.0005)


def test_kill9_while_saving_a_checkpoint_keeps_the_old_file(tmp_path):
    """A process saves two models in turn over one file; it is stopped the moment a temporary file is in the
    destination's directory, and killed with -9 while stopped there (mid-write: the temporary file is still
    there, not yet renamed). The file left is whole: one of the two models, exactly."""
    ref_a, ref_b, target = tmp_path / "a.npz", tmp_path / "b.npz", tmp_path / "model.npz"
    make = "a = model new kind=mlp vocab=8000 seed=1\nb = model new kind=mlp vocab=8000 seed=2\n"  # 13 MB files
    done = subprocess.run([WORDLAB, "-c", f"{make}model save $a {ref_a}\nmodel save $b {ref_b}"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    want_a, want_b = load_arrays(ref_a), load_arrays(ref_b)
    assert not same(want_a, want_b)
    script = tmp_path / "save.wlab"
    # The saves never run out before the kill: the script ends in a wait that only the kill ends.
    script.write_text(make + f"model save $a {target}\nmodel save $b {target}\n" * 50 + "sleep 100000\n")
    ours = {ref_a.name, ref_b.name, target.name, script.name}

    def temporaries():   # whatever the saver's temporary files are called
        return [p for p in tmp_path.iterdir() if p.name not in ours]

    for i in range(6):
        shutil.copyfile(ref_a, target)                        # the old file
        old_inode = target.stat().st_ino
        proc = subprocess.Popen([WORDLAB, "run", str(script)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while True:
                assert proc.poll() is None, "the saver ended before it was killed"
                assert time.monotonic() < deadline, "no save was caught while being written"
                # even rounds: the first save; odd rounds: a save after the old file was replaced once
                if temporaries() and (i % 2 == 0 or target.stat().st_ino != old_inode):
                    stop(proc)
                    if temporaries():
                        break                                 # stopped mid-write
                    os.kill(proc.pid, signal.SIGCONT)         # the rename came first: catch the next save
                time.sleep(0.0005)
        finally:
            proc.kill()
        assert proc.wait(timeout=30) == -signal.SIGKILL
        got = load_arrays(target)
        assert same(got, want_a) or same(got, want_b)
        for t in temporaries():                               # what kill -9 leaves: a partial temporary file
            t.unlink()
    # The next save removes what killed savers left (their processes are gone), never a live saver's file.
    dead = subprocess.Popen(["true"])
    dead.wait()
    # Temporaries are NAME.tmp.PID.RANDOM: the PID says whether the saver still runs.
    stale, live = tmp_path / f"model.npz.tmp.{dead.pid}.3f9a0c1d2e4b5a69", tmp_path / f"model.npz.tmp.{os.getpid()}.77aa"
    stale.write_bytes(b"partial")
    live.write_bytes(b"being written")
    other = tmp_path / f"other.npz.tmp.{dead.pid}.0123456789abcdef"   # another file's temporary: not ours to touch
    other.write_bytes(b"x")
    loaded = subprocess.run([WORDLAB, "-c", f"m = model load {target}\nprint $m.parameters\nmodel save $m {target}"],
                            capture_output=True, text=True, timeout=60)
    assert loaded.returncode == 0 and int(loaded.stdout.split()[0]) > 3_000_000, loaded.stderr
    assert sorted(p.name for p in tmp_path.glob("*.tmp.*")) == sorted([live.name, other.name])


def wait_for_training(kc, msg_id, past_step=10):
    """Waits until the live display of msg_id's training shows a step after past_step (validations ran)."""
    while True:
        m = kc.get_iopub_msg(timeout=60)
        if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] in ("display_data", "update_display_data"):
            if (tt.progress_step(m["content"]["data"]["text/plain"]) or 0) > past_step:
                return


def storm(pid, n=200, gap=0.001):
    for _ in range(n):
        os.kill(pid, signal.SIGINT)
        time.sleep(gap)


def test_sigint_storm_during_training_in_the_kernel(kernel):
    km, kc = kernel
    reply, _ = ku.run(kc, "stories = corpus profile=smoke\nm = model new kind=attention vocab=$stories.vocab seed=11",
                      timeout=60)
    assert reply["content"]["status"] == "ok"
    msg_id = kc.execute("train $m $stories steps=1000000 batch=32 eval_every=10", stop_on_error=False)
    wait_for_training(kc, msg_id)
    storm(kernel_pid(km))
    reply = ku.shell_reply(kc, msg_id)           # a million steps: only the interrupt ends them
    assert reply["content"]["status"] == "ok" or reply["content"]["ename"] == "Interrupted"
    updates = [m for m in ku.collect(kc, msg_id) if m["msg_type"] == "update_display_data"]
    assert km.is_alive()
    storm(kernel_pid(km), n=100)                 # while idle: nothing happens
    ku.wait_sigint_delivered(kernel_pid(km))     # none is left to stop the evaluation below
    assert km.is_alive() and answers(kc)
    rows, kept = tt.summary(updates[-1]["content"]["data"]["text/plain"])   # the live display ends as the summary
    reply, msgs = ku.run(kc, "e = evaluate $m $stories split=validation\nprint $e.loss")
    assert reply["content"]["status"] == "ok"
    assert abs(float(ku.stdout_text(msgs)) - dict(rows)[kept]) < 2e-4


def test_sigint_storm_during_training_in_wordlab_c(tmp_path):
    code = ("stories = corpus profile=smoke\nm = model new kind=attention vocab=$stories.vocab seed=11\n"
            "train $m $stories steps=1000000 batch=32 eval_every=10\n")
    # Its output on a terminal, where the live display is drawn (a log gets its last state only, the summary).
    master, slave = pty.openpty()
    proc = subprocess.Popen([WORDLAB, "-c", code], stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.PIPE,
                            env=dict(os.environ, TERM="xterm", NO_COLOR="1"))
    os.close(slave)

    def read_until(done, limit):
        out, deadline = b"", time.monotonic() + limit
        while not done(out):
            ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"nothing more within {limit} s: {out[-500:]!r}"
            try:
                data = os.read(master, 65536)
            except OSError:              # the terminal's other side closed: wordlab has exited
                data = b""
            if not data:
                return out, True
            out += data
        return out, False

    out, ended = read_until(lambda o: re.search(rb"step \d+/1000000 ", o), 120)   # step 1 was validated
    assert not ended, "training ended before the storm: " + proc.stderr.read().decode()
    storm(proc.pid)
    rest, _ = read_until(lambda o: False, 30)
    os.close(master)
    err = proc.stderr.read().decode()
    # It stops the command with an Interrupted error and exits normally, not killed by the signal.
    assert proc.wait(timeout=30) == 1, (proc.returncode, err[-500:])
    assert "Interrupted" in err
    rest = rest.decode()
    assert "trained attention for " in rest, rest[:500]   # and then the display's last state: the summary
    tt.summary(rest[rest.index("trained attention for "):])


def test_100_mb_of_output_is_coalesced(kernel):
    km, kc = kernel
    line = "x" * 1000
    n = 100_000                                  # 100 MB in 100,000 writes of 1,001 bytes
    msg_id = kc.execute(f's = "{line}"\n' + "print $s\n" * n)
    streams = nbytes = newlines = 0
    deadline = time.monotonic() + 90
    while True:
        m = kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        if m["msg_type"] == "stream":
            t = m["content"]["text"]
            assert m["content"]["name"] == "stdout" and not t.strip("x\n")
            streams += 1
            nbytes += len(t)
            newlines += t.count("\n")
        elif m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            break
    reply = ku.shell_reply(kc, msg_id)
    assert reply["content"]["status"] == "ok"
    assert nbytes == n * 1001 and newlines == n, "output was lost"
    print(f"100 MB of output: {n} writes became {streams} stream messages")
    assert streams <= n // 20, f"{streams} stream messages for {n} writes: not coalesced"
    assert km.is_alive() and answers(kc)


def test_floods_of_bad_and_malformed_messages_are_dropped(kernel):
    km, kc = kernel
    raw = ku.RawClient(km)
    try:
        rng = random.Random(3)
        for i in range(1000):                    # well-formed, wrongly signed
            sig = bytes(rng.choice(b"0123456789abcdef") for _ in range(64)) if i % 3 else b"f" * rng.randrange(80)
            raw.send("kernel_info_request" if i % 2 else "execute_request", {"code": "print 1"}, signature=sig)
        good = raw.parts("kernel_info_request", {})
        for i in range(1000):                    # malformed frames
            kind = i % 5
            if kind == 0:
                frames = [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))]
            elif kind == 1:
                frames = [b"<IDS|MSG>", raw.sign(good)] + good[:rng.randrange(4)]
            elif kind == 2:
                parts = [good[0][:rng.randrange(len(good[0]))], b"{}", b"{}", b"{}"]
                frames = [b"<IDS|MSG>", raw.sign(parts)] + parts            # truncated header, signed
            elif kind == 3:
                parts = [b'{"msg_id": 1, "msg_type": null}', b"{}", b"{}", b"{}"]
                frames = [b"<IDS|MSG>", raw.sign(parts) + b"0"] + parts     # 65-character signature
            else:
                frames = [b"a", b"b", b"c"] + [b"x" * rng.randrange(100) for _ in range(rng.randrange(10))]
            raw.send_frames(frames)
        _, msg_id = raw.send("kernel_info_request", {})   # its reply must be the first: none of the above is answered
        assert raw.recv_reply_to(msg_id)[0]["msg_type"] == "kernel_info_reply"
    finally:
        raw.close()
    assert km.is_alive() and answers(kc)


def test_client_disconnects_mid_execute(kernel):
    km, kc = kernel
    other = BlockingKernelClient()   # a client of its own session (km.client() would share kc's socket identity)
    other.load_connection_info(km.get_connection_info())
    other.start_channels()
    other.wait_for_ready(timeout=ku.TIMEOUT)   # it listens on IOPub before the request below is sent
    raw = ku.RawClient(km)
    try:
        _, msg_id = raw.send("execute_request", {"code": 'print "started"\nsleep 1\nprint "still here"',
                                                 "silent": False, "store_history": True, "user_expressions": {},
                                                 "allow_stdin": False, "stop_on_error": True})
        text = ""
        while "started" not in text:              # the cell runs ...
            m = other.get_iopub_msg(timeout=ku.TIMEOUT)
            if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "stream":
                text += m["content"]["text"]
        raw.close()                               # ... and its client is gone before the reply
        # the cell ran to its end: its output reached IOPub with the vanished client's request as parent
        msgs = ku.collect(other, msg_id)
        assert text + ku.stdout_text(msgs) == "started\nstill here\n"
        reply, msgs = ku.run(other, 'print "new client"')
        assert reply["content"]["status"] == "ok" and ku.stdout_text(msgs) == "new client\n"
    finally:
        other.stop_channels()
    assert answers(kc)
