#!/usr/bin/env python3
"""bench_kernel.py: wordlab's Jupyter kernel and wordlab-xeus (the same language adapter on xeus) against
ipykernel, same client (jupyter_client), same run.

Measures cold start to the first kernel_info_reply, the round trip of a trivial execute
(to its execute_reply, and to the idle status that ends it), a completion round trip and
the resident memory at idle; prints the three kernels side by side, and each ratio to ipykernel
(wordlab's against its target).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import zmq
import zmq.asyncio
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

WORDLAB = os.environ.get("WORDLAB", os.path.join(os.path.dirname(__file__), "..", "..", "build", "wordlab"))
STARTS = int(os.environ.get("WL_BENCH_STARTS", "7"))
ROUNDS = int(os.environ.get("WL_BENCH_ROUNDS", "500"))
# The client reconnects every 2 ms instead of zmq's default 100 ms: a client that connects
# before the kernel has bound its ports would otherwise measure zmq's retry interval.
RECONNECT_IVL_MS = 2

KERNELS = {
    "wordlab": {"execute": "exp 0", "complete": "perp"},
    "wordlab-xeus": {"execute": "exp 0", "complete": "perp"},
    "ipykernel": {"execute": "1", "complete": "pri"},
}


def install_specs(tmp):
    subprocess.run([WORDLAB, "install-kernel", "--prefix", tmp, "--kernel", "both"], check=True, capture_output=True)
    os.environ["JUPYTER_PATH"] = os.path.join(tmp, "share", "jupyter") + os.pathsep + os.environ.get("JUPYTER_PATH", "")
    os.environ["JUPYTER_RUNTIME_DIR"] = os.path.join(tmp, "runtime")
    specs = KernelSpecManager().find_kernel_specs()
    if "python3" not in specs:
        sys.exit("bench_kernel: the python3 kernel (Debian's python3-ipykernel) is not installed")
    return {"wordlab": "wordlab", "wordlab-xeus": "wordlab-xeus", "ipykernel": "python3"}


def start(spec):
    ctx = zmq.Context()
    ctx.setsockopt(zmq.RECONNECT_IVL, RECONNECT_IVL_MS)
    km = KernelManager(kernel_name=spec, context=ctx)
    km.start_kernel()
    # The client makes its own context unless given one (an asyncio one), with zmq's 100 ms default.
    client_ctx = zmq.asyncio.Context()
    client_ctx.setsockopt(zmq.RECONNECT_IVL, RECONNECT_IVL_MS)
    kc = km.client(context=client_ctx)
    kc.start_channels()
    return km, kc


def first_kernel_info(kc, timeout=30):
    """Sends kernel_info_request until one is answered, as clients do."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg_id = kc.kernel_info()
        while True:
            try:
                reply = kc.get_shell_msg(timeout=0.05)
            except Exception:
                break
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply
    raise RuntimeError("no kernel_info_reply")


def stop(km, kc):
    kc.stop_channels()
    km.shutdown_kernel(now=False)
    km.context.term()
    kc.context.term()


def cold_starts(specs):
    """Cold starts, alternating the kernels so that both see the same machine load."""
    times = {name: [] for name in specs}
    for _ in range(STARTS):
        for name, spec in specs.items():
            t = time.perf_counter()
            km, kc = start(spec)
            first_kernel_info(kc)
            times[name].append(time.perf_counter() - t)
            stop(km, kc)
    return {name: statistics.median(ts) for name, ts in times.items()}


def drain_to_idle(kc, msg_id):
    while True:
        m = kc.get_iopub_msg(timeout=10)
        if (m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "status"
                and m["content"]["execution_state"] == "idle"):
            return


def execute_once(kc, code):
    """Seconds to the execute_reply and to the idle status."""
    t = time.perf_counter()
    msg_id = kc.execute(code)
    while kc.get_shell_msg(timeout=10)["parent_header"].get("msg_id") != msg_id:
        pass
    t1 = time.perf_counter()
    drain_to_idle(kc, msg_id)
    return t1 - t, time.perf_counter() - t


def complete_once(kc, code):
    t = time.perf_counter()
    msg_id = kc.complete(code, len(code))
    while kc.get_shell_msg(timeout=10)["parent_header"].get("msg_id") != msg_id:
        pass
    dt = time.perf_counter() - t
    drain_to_idle(kc, msg_id)   # completion publishes busy/idle too; keep the iopub queue short
    return dt


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def p99(xs):
    return sorted(xs)[min(len(xs) - 1, int(0.99 * len(xs)))]


def measure(specs):
    """Both kernels run at once; requests alternate between them, warm-up rounds excluded."""
    res = {name: {"start": t} for name, t in cold_starts(specs).items()}
    running = {name: start(spec) for name, spec in specs.items()}
    for km, kc in running.values():
        first_kernel_info(kc)
    reply = {name: [] for name in specs}
    idle = {name: [] for name in specs}
    comp = {name: [] for name in specs}
    for i in range(ROUNDS + 20):
        for name, (km, kc) in running.items():
            a, b = execute_once(kc, KERNELS[name]["execute"])
            if i >= 20:
                reply[name].append(a)
                idle[name].append(b)
    for i in range(ROUNDS // 2 + 10):
        for name, (km, kc) in running.items():
            dt = complete_once(kc, KERNELS[name]["complete"])
            if i >= 10:
                comp[name].append(dt)
    time.sleep(1.0)
    for name, (km, kc) in running.items():
        r = res[name]
        r["exec_med"], r["exec_p99"] = statistics.median(reply[name]), p99(reply[name])
        r["idle_med"], r["idle_p99"] = statistics.median(idle[name]), p99(idle[name])
        r["comp_med"] = statistics.median(comp[name])
        r["rss"] = rss_mb(km.provisioner.process.pid)
        stop(km, kc)
    return res


def main():
    with tempfile.TemporaryDirectory(prefix="wl-bench-kernel-") as tmp:
        specs = install_specs(tmp)
        res = measure(specs)
    w, x, p = res["wordlab"], res["wordlab-xeus"], res["ipykernel"]
    print(f"client: jupyter_client, {ROUNDS} executes, {ROUNDS // 2} completions, {STARTS} cold starts per kernel")
    print(f"{'':34}{'wordlab':>12}{'wl-xeus':>12}{'ipykernel':>12}{'wordlab/ipy':>13}{'xeus/ipy':>10}{'target':>9}")
    rows = [
        ("cold start to kernel_info_reply", "start", "ms", 1e3, 0.1),
        ("execute round trip, median", "exec_med", "ms", 1e3, 0.25),
        ("execute round trip, p99", "exec_p99", "ms", 1e3, None),
        ("execute to idle, median", "idle_med", "ms", 1e3, None),
        ("execute to idle, p99", "idle_p99", "ms", 1e3, None),
        ("complete round trip, median", "comp_med", "ms", 1e3, 0.1),
        ("resident memory at idle", "rss", "MB", 1, 0.2),
    ]
    ok = True
    for label, key, unit, scale, target in rows:
        ratio = w[key] / p[key]
        verdict = ""
        if target is not None:
            verdict = f"<= {target:<4}" + (" ok" if ratio <= target else " MISSED")
            ok = ok and ratio <= target
        print(f"{label:34}{w[key] * scale:9.3f} {unit}{x[key] * scale:9.3f} {unit}{p[key] * scale:9.3f} {unit}"
              f"{ratio:12.3f}x{x[key] / p[key]:9.3f}x  {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
