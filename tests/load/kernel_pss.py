"""kernel_pss.py: N simulated students, each with two wordlab kernels (lessons 01 and 03), run every code cell of
their lesson (the students at once, the cells in order); then each kernel's resident, proportional and private memory
(/proc/PID/smaps_rollup: PSS counts a page shared by k processes as 1/k; private pages are the kernel's alone) and the
cell latencies.

    /usr/bin/python3 tests/load/kernel_pss.py --wordlab build/wordlab --students 10 [--cache DIR | --cache off]

Kernels only: the Jupyter server of `make load` is not counted here."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from jupyter_client.manager import start_new_kernel

ROOT = Path(__file__).resolve().parents[2]
LESSONS = [ROOT / "lessons" / "01_one_head_and_four_heads.wlab", ROOT / "lessons" / "03_cross_entropy_and_perplexity.wlab"]


def code_cells(path):
    """The code cells of a .wlab lesson (text between `#%%` markers that are not markdown)."""
    cells, cur, code = [], [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#%%"):
            if code and "".join(cur).strip():
                cells.append("\n".join(cur))
            cur, code = [], line.strip() == "#%%"
        elif code:
            cur.append(line)
    if code and "".join(cur).strip():
        cells.append("\n".join(cur))
    return cells


def rollup(pid):
    text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    get = lambda k: int(re.search(rf"^{k}:\s+(\d+) kB", text, re.M).group(1)) * 1024
    return get("Rss"), get("Pss"), get("Private_Clean") + get("Private_Dirty")


def run_kernel(km, kc, cells, lat, errors):
    for code in cells:
        t = time.monotonic()
        msg_id = kc.execute(code)
        while True:
            m = kc.get_iopub_msg(timeout=600)
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            if m["msg_type"] == "error":
                errors.append(m["content"]["evalue"])
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                break
        lat.append(time.monotonic() - t)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wordlab", required=True)
    ap.add_argument("--students", type=int, default=5)
    ap.add_argument("--cache", default=None, help="WORDLAB_CACHE for the kernels (a folder, or off)")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="wl-pss-")
    subprocess.run([a.wordlab, "install-kernel", "--prefix", tmp, "--name", "wordlab"], check=True, capture_output=True)
    os.environ["JUPYTER_PATH"] = os.path.join(tmp, "share", "jupyter")
    os.environ["JUPYTER_RUNTIME_DIR"] = os.path.join(tmp, "runtime")
    env = dict(os.environ)
    if a.cache:
        env["WORDLAB_CACHE"] = a.cache
    lessons = [code_cells(p) for p in LESSONS]
    kernels = [start_new_kernel(kernel_name="wordlab", startup_timeout=60, env=env)
               for _ in range(a.students) for _ in LESSONS]
    lat, errors, threads = [], [], []
    t0 = time.monotonic()
    for i, (km, kc) in enumerate(kernels):
        th = threading.Thread(target=run_kernel, args=(km, kc, lessons[i % len(LESSONS)], lat, errors))
        th.start()
        threads.append(th)
    for th in threads:
        th.join()
    wall = time.monotonic() - t0
    mem = [rollup(km.provisioner.process.pid) for km, _ in kernels]
    for km, kc in kernels:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    mb = 1 << 20
    per_student = [(sum(m[0] for m in mem[i:i + 2]) / mb, sum(m[1] for m in mem[i:i + 2]) / mb)
                   for i in range(0, len(mem), 2)]
    lat.sort()
    r = {"students": a.students, "cache": a.cache or "default", "wall_s": round(wall, 1), "errors": errors,
         "p50_s": round(lat[len(lat) // 2], 3), "p95_s": round(lat[int(0.95 * (len(lat) - 1))], 3),
         "max_s": round(lat[-1], 3),
         "rss_mb_per_student": round(statistics.mean(x for x, _ in per_student), 1),
         "pss_mb_per_student": round(statistics.mean(y for _, y in per_student), 1),
         "pss_mb_kernel_01": round(statistics.mean(m[1] for m in mem[0::2]) / mb, 1),
         "pss_mb_kernel_03": round(statistics.mean(m[1] for m in mem[1::2]) / mb, 1),
         "private_mb_kernel_01": round(statistics.mean(m[2] for m in mem[0::2]) / mb, 1),
         "private_mb_kernel_03": round(statistics.mean(m[2] for m in mem[1::2]) / mb, 1)}
    print(json.dumps(r))
    if a.json:
        Path(a.json).write_text(json.dumps(r) + "\n")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
