"""bench_seq.py: the whole sequence lesson (seed 002) in wordlab's C against the lesson's own Python, side by side.

The Python is taken from the seed's text at run time (its code blocks, in order) and run with
/usr/bin/python3; the C is the seq_dump helper printing the same tables. Both outputs must be
identical; the ratio of the times must be at least 150.

    python3 tests/bench/bench_seq.py            (WL_BUILD_DIR, WL_SOURCE_DIR as run.sh sets them)
"""
import ast
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

TARGET = 150.0
SEED_NAME = "002_f86f9b11d7e3036e.txt"


def seed_path():
    src = os.environ.get("WL_SOURCE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    for d in (os.environ.get("WL_SEEDS_DIR"), os.path.join(src, "..", "shared", "seeds"), os.path.join(src, "seeds")):
        if d and os.path.exists(os.path.join(d, SEED_NAME)):
            return os.path.join(d, SEED_NAME)
    sys.exit(f"bench_seq: cannot find the lesson {SEED_NAME} (set WL_SEEDS_DIR)")


def lesson_code(text):
    """The lesson's code blocks: paragraphs that, appended to the code so far, still parse as Python."""
    code = ""
    for para in re.split(r"\n\s*\n", text):
        if not re.search(r"[(=#\[]|^import ", para):
            continue   # prose headings such as "Summary" would parse as a bare name
        trial = code + "\n\n" + para if code else para
        try:
            ast.parse(trial)
        except SyntaxError:
            continue
        code = trial
    return code + "\n"


def timed(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"bench_seq: {' '.join(cmd)} failed: {p.stderr.strip()}")
    return dt, p.stdout


def main():
    build = os.environ.get("WL_BUILD_DIR", "build")
    exe = os.path.join(build, "seq_dump")
    if not os.path.exists(exe):
        sys.exit(f"bench_seq: {exe} is missing: build the seq_dump target")
    with open(seed_path(), encoding="utf-8") as f:
        code = lesson_code(f.read())
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "lesson.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(code)
        py_runs = int(os.environ.get("WL_BENCH_PY_RUNS", "1"))
        py = [timed(["/usr/bin/python3", script]) for _ in range(py_runs)]
    py_time, py_out = min(t for t, _ in py), py[0][1]
    timed([exe, "--text"])   # warm the page cache
    c = [timed([exe, "--text"]) for _ in range(21)]
    c_best, c_median, c_out = min(t for t, _ in c), statistics.median(t for t, _ in c), c[0][1]
    if c_out != py_out:
        sys.exit("bench_seq: the C lesson's output differs from the lesson's own:\n" + c_out + "---\n" + py_out)
    # Both sides are timed as whole processes and compared best against best.
    ratio = py_time / c_best
    print(f"sequence lesson, everything it prints (outputs identical, {len(py_out.splitlines())} lines)")
    print(f"  lesson's Python       {py_time * 1000:9.1f} ms  (best of {py_runs} run{'s' if py_runs > 1 else ''})")
    print(f"  C runtime (seq_dump)  {c_best * 1000:9.1f} ms  (best of {len(c)} runs; median {c_median * 1000:.1f} ms)"
          f"  ratio {ratio:.1f}x (median-based {py_time / c_median:.1f}x)")
    wordlab = os.environ.get("WORDLAB") or os.path.join(build, "wordlab")
    if os.path.exists(wordlab):
        w = [timed([wordlab, "-c", "seq_lesson"]) for _ in range(11)]
        if w[0][1] != py_out:
            sys.exit("bench_seq: `wordlab -c seq_lesson` differs from the lesson's own output")
        w_best = min(t for t, _ in w)
        start = min(timed([wordlab, "-c", "print 1"])[0] for _ in range(5))
        print(f"  wordlab -c seq_lesson {w_best * 1000:9.1f} ms  (best of {len(w)} runs, of which starting wordlab "
              f"{start * 1000:.1f} ms)  ratio {py_time / w_best:.1f}x")
    print(f"  target: the C lesson in at most 1/{TARGET:.0f} of the Python's time: {'met' if ratio >= TARGET else 'NOT met'}")
    return 0 if ratio >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
