"""test_seq_reference.py: every number of the sequence lesson against an independent Python reference, for other seeds and head counts."""
import json
import math
import os
import random
import struct
import subprocess
import sys
from fractions import Fraction

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import seq_reference  # noqa: E402


def dump_exe():
    build = os.environ.get("WL_BUILD_DIR") or os.path.join(HERE, "..", "..", "build")
    exe = os.path.join(build, "seq_dump")
    assert os.path.exists(exe), f"{exe} is missing: build the seq_dump target"
    return exe


def run_dump(args, stdin=None):
    p = subprocess.run([dump_exe()] + args, input=stdin, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


def same(a, b, path="lesson"):
    """Exact equality of nested JSON values, including the sign of zero."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), f"{path}: keys {sorted(a)} != {sorted(b)}"
        for k in a:
            same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), f"{path}: lengths differ"
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    elif isinstance(a, str):
        assert a == b, f"{path}: text differs:\n{a}\n---\n{b}"
    else:
        assert a == b and math.copysign(1, a) == math.copysign(1, b), f"{path}: {a!r} != {b!r}"


# Other data seeds, head lists, run counts, order-test heads and training settings; small sets so the
# Python reference stays within a few seconds. Set sizes that are not multiples of 4 exercise the partly
# filled last group of vector lanes.
CASES = [
    dict(seed=7, n=100, ntrain=41, ntest=35, epochs=30, heads=[1, 2, 4], runs=2, order_heads=2),
    dict(seed=12345, n=90, ntrain=43, ntest=30, epochs=25, heads=[4, 2], runs=3, order_heads=4),
    dict(seed=99999, n=80, ntrain=34, ntest=30, epochs=30, heads=[2, 1], runs=2, order_heads=1,
         lr=0.3, momentum=0.5),
    dict(seed=-5, n=40, ntrain=17, ntest=12, epochs=20, heads=[4], runs=1, order_heads=2),
]


def dump_args(c):
    return ["--seed", str(c["seed"]), "--n", str(c["n"]), "--train", str(c["ntrain"]), "--test", str(c["ntest"]),
            "--epochs", str(c["epochs"]), "--lr", repr(c.get("lr", 0.15)), "--momentum", repr(c.get("momentum", 0.8)),
            "--heads", ",".join(map(str, c["heads"])), "--runs", str(c["runs"]),
            "--order-heads", str(c["order_heads"])]


@pytest.mark.parametrize("case", CASES, ids=[f"seed{c['seed']}" for c in CASES])
def test_every_number_matches_reference(case):
    got = json.loads(run_dump(dump_args(case)))
    want = seq_reference.lesson(case["seed"], case["n"], case["ntrain"], case["ntest"], case["epochs"],
                                case.get("lr", 0.15), case.get("momentum", 0.8), case["heads"], case["runs"],
                                case["order_heads"])
    same(got, want)


def test_lesson_defaults_match_reference():
    """The full lesson (720 sequences, 150 epochs): the reference itself reproduces the seed's tables."""
    got = json.loads(run_dump([]))
    want = seq_reference.lesson()
    same(got, want)
    assert "     4           1         33    0.8722    0.9222    0.8972          0.0500\n" in want["text"]


def test_round_and_repr_match_python():
    rng = random.Random(20260218)
    xs = []
    for _ in range(20000):
        xs.append((rng.random() + rng.random() + rng.random() - 1.5) * 1.9)   # the lesson's readings
        xs.append(rng.uniform(-1, 1) * 10 ** rng.randint(-8, 14))            # other magnitudes
        xs.append(rng.randint(-10 ** 6, 10 ** 6) / 16)                         # exact ties at the 4th decimal
        xs.append(rng.randint(-10 ** 7, 10 ** 7) / 2000)                       # decimal halves, inexact in binary
    xs += [0.0, -0.0, -0.0004, 0.0004, 2.675, 1e300, -1e300, 5e-324]
    out = run_dump(["--round"], stdin="".join(f"{x.hex()}\n" for x in xs)).split("\n")
    for x, line in zip(xs, out):
        hexed, text = line.split(" ")
        want = round(x, 3)
        got = float.fromhex(hexed)
        assert got == want and math.copysign(1, got) == math.copysign(1, want), f"round({x!r}, 3): {got!r} != {want!r}"
        assert text == repr(want), f"repr({want!r}): {text}"


def test_exp_table_is_exact():
    """The four-lane exp's table, computed in C at start-up, against exact integer arithmetic: H[k] is 2^(k/128)
    rounded to a double and T[k] the double nearest 2^(k/128) / H[k] - 1, the values glibc's exp holds."""
    def root(n, r, above):   # floor of the r-th root of n by Newton's method on integers, from above >= it
        x = above
        while True:
            y = ((r - 1) * x + n // x ** (r - 1)) // r
            if y >= x:
                return x
            x = y

    def bits(v):
        return struct.unpack("<Q", struct.pack("<d", v))[0]

    lines = run_dump(["--exptab"]).split("\n")[:-1]
    assert len(lines) == 128
    for k, line in enumerate(lines):
        n = 2 ** (k + 128 * 400)
        lo = root(n, 128, int(2 ** (k / 128) * (1 + 2 ** -40) * 2 ** 60) << 340)   # 2^(k/128) is lo / 2^400 exactly, or lies strictly between lo and lo + 1 over 2^400
        ends = [lo] if lo ** 128 == n else [lo, lo + 1]
        h, t = set(), set()
        for y in (Fraction(e, 2 ** 400) for e in ends):   # both ends round alike: so does 2^(k/128)
            h.add(float(y))
            t.add(float(y / Fraction(float(y)) - 1))
        assert len(h) == 1 and len(t) == 1, f"2^({k}/128) needs more than 400 bits"
        h, t = h.pop(), t.pop()
        want = f"{k} {bits(t):016x} {(bits(h) - (k << 45)) % 2 ** 64:016x}"
        assert line == want, f"2^({k}/128): {line} != {want}"


def wordlab_run(*args):
    exe = os.environ.get("WORDLAB") or os.path.join(os.environ.get("WL_BUILD_DIR", "build"), "wordlab")
    assert os.path.exists(exe), f"{exe} is missing: build the wordlab target"
    p = subprocess.run([exe] + list(args), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_commands_print_the_lesson():
    """The lesson's commands print its sections, and seq_lesson all of it, as seq_dump (the seed's lines)."""
    whole = run_dump(["--text"])
    assert wordlab_run("-c", "seq_lesson") == whole
    assert wordlab_run("-c", "seq_data\nseq_heads\nseq_centers\nseq_order") == whole
    opts = "seed=12345 n=90 train=43 test=30 epochs=25 runs=3"
    assert wordlab_run("-c", f"seq_lesson {opts} heads=4,2 order_heads=4") == run_dump(dump_args(CASES[1]) + ["--text"])


@pytest.mark.parametrize("cmd", ["seq_train", "seq_weights"])
def test_net_commands_match_reference(cmd):
    """seq_train / seq_weights heads=2 run=2 give the reference's second two-head net, number for number."""
    c = CASES[0]
    ref = seq_reference.lesson(c["seed"], c["n"], c["ntrain"], c["ntest"], c["epochs"], heads=[2], runs=2)
    want = ref["heads"][1]
    got = json.loads(wordlab_run("--json", "-c", f"{cmd} heads=2 run=2 epochs={c['epochs']} n={c['n']} "
                                 f"train={c['ntrain']} test={c['ntest']} seed={c['seed']}"))
    assert (got["heads"], got["run"], got["positions"]) == (2, 2, True)
    got["weights"] = [w for head in got["weights"] for w in head]   # per head, per step: the reference's flat list
    for key, ref_key in (("accuracy", "acc"), ("separation", "separation"), ("centers", "centers"),
                         ("weights", "mean_weights"), ("params", "params")):
        same(got[key], want[ref_key], key)
