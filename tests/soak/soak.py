"""soak.py: 10,000 executes through jupyter_client against one wordlab kernel (`make soak`).

Sends the cells in batches (the kernel queues them), checks that every cell's reply and output arrive
(the text each one prints, its value, its error), and measures the kernel's resident memory (VmRSS from
/proc/PID/status) after a warm-up and at the end. Fails when the growth is 2 MB or more, or anything was lost.
usage: soak.py [WORDLAB] [--executes N]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "py"))

parser = argparse.ArgumentParser()
parser.add_argument("wordlab", nargs="?", help="the built wordlab binary (default: $WORDLAB)")
parser.add_argument("--executes", type=int, default=10_000)
parser.add_argument("--warmup", type=int, default=1_000)
parser.add_argument("--limit-kb", type=int, default=2048)
args = parser.parse_args()
if args.wordlab:
    os.environ["WORDLAB"] = os.path.abspath(args.wordlab)

import kernel_util as ku  # noqa: E402  (reads $WORDLAB)

BATCH = 50


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def cell(i):
    """The i-th cell and what it must give: (code, stdout text, text/plain result or None, error name or None)."""
    k = i % 10
    if k == 7:
        return f'tokenize "cell {i} said: hello, world"', "", f'["cell", "{i}", "said", ":", "hello", ",", "world"]', None
    if k == 9 and i % 100 == 99:
        return f"nosuchcommand {i}", "", None, "UnknownCommand"
    return f'x = mean {i} {i + 2}\nprint "cell {i}: $x"', f"cell {i}: {i + 1}.0\n", None, None


def check(kc, i, msg_id):
    code, out, result, ename = cell(i)
    reply = ku.shell_reply(kc, msg_id, timeout=60)["content"]
    msgs = ku.collect(kc, msg_id, timeout=60)
    if ename:
        assert reply["status"] == "error" and reply["ename"] == ename, (i, reply)
        assert [m["msg_type"] for m in msgs].count("error") == 1, (i, msgs)
        return
    assert reply["status"] == "ok", (i, reply)
    got = ku.stdout_text(msgs)
    assert got == out, f"cell {i}: printed {got!r}, expected {out!r}"
    if result is not None:
        res = [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == "execute_result"]
        assert res == [result], f"cell {i}: result {res!r}, expected {result!r}"


def run(kc, first, n):
    for start in range(first, first + n, BATCH):
        ids = [(i, kc.execute(cell(i)[0], stop_on_error=False)) for i in range(start, min(start + BATCH, first + n))]
        for i, msg_id in ids:
            check(kc, i, msg_id)


def main():
    km, kc = ku.start()
    try:
        pid = km.provisioner.process.pid
        t0 = time.monotonic()
        run(kc, 0, args.warmup)
        before = rss_kb(pid)
        t1 = time.monotonic()
        run(kc, args.warmup, args.executes)
        t2 = time.monotonic()
        after = rss_kb(pid)
    finally:
        ku.stop(km, kc)
    growth = after - before
    print(f"soak: {args.warmup} warm-up executes in {t1 - t0:.1f} s, then {args.executes} executes in {t2 - t1:.1f} s "
          f"({args.executes / (t2 - t1):.0f}/s); every reply and output arrived")
    print(f"soak: kernel VmRSS {before} kB after warm-up, {after} kB at the end: growth {growth} kB "
          f"(limit {args.limit_kb} kB)")
    if growth >= args.limit_kb:
        print("soak: FAILED: resident memory grew too much")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
