"""test_kernel_spec.py: installing the wordlab kernel spec, and how `wordlab kernel` starts, refuses bad input and ends."""
import json
import os
import socket
import struct
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import kernel_util as ku

SOURCE = os.environ.get("WL_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SPEC_SRC = os.path.join(SOURCE, "share", "jupyter", "kernels", "wordlab")


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    return struct.unpack(">II", head[16:24])


def check_spec_dir(d, argv=None, display="wordlab"):
    spec = json.load(open(os.path.join(d, "kernel.json")))
    assert spec["argv"] == (argv or [os.path.realpath(ku.WORDLAB), "kernel", "-f", "{connection_file}"])
    assert spec["language"] == "wordlab" and spec["display_name"] == display
    assert png_size(os.path.join(d, "logo-32x32.png")) == (32, 32)
    assert png_size(os.path.join(d, "logo-64x64.png")) == (64, 64)
    assert ET.parse(os.path.join(d, "logo-svg.svg")).getroot().tag.endswith("svg")
    return spec


def test_committed_spec_files():
    spec = json.load(open(os.path.join(SPEC_SRC, "kernel.json")))
    assert spec["argv"][1:] == ["kernel", "-f", "{connection_file}"] and spec["interrupt_mode"] == "signal"
    assert png_size(os.path.join(SPEC_SRC, "logo-32x32.png")) == (32, 32)
    assert png_size(os.path.join(SPEC_SRC, "logo-64x64.png")) == (64, 64)


def test_install_kernel_prefix_and_user(tmp_path):
    r = subprocess.run([ku.WORDLAB, "install-kernel", "--prefix", str(tmp_path / "p")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    spec = check_spec_dir(tmp_path / "p" / "share" / "jupyter" / "kernels" / "wordlab")
    assert spec["interrupt_mode"] == "signal"
    env = dict(os.environ, JUPYTER_DATA_DIR=str(tmp_path / "data"))
    r = subprocess.run([ku.WORDLAB, "install-kernel", "--user", "--interrupt-mode", "message"], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert check_spec_dir(tmp_path / "data" / "kernels" / "wordlab")["interrupt_mode"] == "message"
    for bad in (["--bogus"], ["--name", "Bad Name"], ["--interrupt-mode", "sometimes"], ["--prefix"]):
        r = subprocess.run([ku.WORDLAB, "install-kernel"] + bad, capture_output=True, text=True)
        assert r.returncode == 2 and r.stderr, bad
    r = subprocess.run([ku.WORDLAB, "install-kernel", "--prefix", "/proc/no/such/place"], capture_output=True, text=True)
    assert r.returncode == 1 and "cannot create" in r.stderr


def test_install_both_kernels(tmp_path):
    r = subprocess.run([ku.WORDLAB, "install-kernel", "--prefix", str(tmp_path), "--kernel", "both"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    kernels = tmp_path / "share" / "jupyter" / "kernels"
    check_spec_dir(kernels / "wordlab")
    xeus_exe = os.path.join(os.path.dirname(os.path.realpath(ku.WORDLAB)), "wordlab-xeus")
    xeus = check_spec_dir(kernels / "wordlab-xeus", [xeus_exe, "-f", "{connection_file}"], "wordlab (xeus)")
    assert os.access(xeus_exe, os.X_OK) and xeus["interrupt_mode"] == "signal"
    # xeus 2.4 does not interrupt on an interrupt_request; --name renames one kernel, not two
    for bad in (["--kernel", "wordlab-xeus", "--interrupt-mode", "message"], ["--kernel", "both", "--name", "x"],
                ["--kernel", "other"]):
        r = subprocess.run([ku.WORDLAB, "install-kernel", "--prefix", str(tmp_path)] + bad, capture_output=True, text=True)
        assert r.returncode == 2 and r.stderr, bad


def test_jupyter_kernelspec_install_works(tmp_path):
    r = subprocess.run(["jupyter", "kernelspec", "install", "--prefix", str(tmp_path), "--name", "wordlab-plain",
                        SPEC_SRC], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # the committed spec runs `wordlab` from PATH
    code = ("import os\nfrom jupyter_client.manager import start_new_kernel\n"
            "km, kc = start_new_kernel(kernel_name='wordlab-plain', startup_timeout=15)\n"
            "r = kc.execute_interactive('mean 1 3', timeout=10, output_hook=lambda m: None)\n"
            "print(r['content']['status'])\nkc.stop_channels()\nkm.shutdown_kernel()\n")
    env = dict(os.environ, PATH=os.path.dirname(os.path.realpath(ku.WORDLAB)) + os.pathsep + os.environ["PATH"],
               JUPYTER_PATH=str(tmp_path / "share" / "jupyter"))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "ok", r.stderr


def conn_file(tmp_path, **over):
    ports = []
    for _ in range(5):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
    info = {"transport": "tcp", "ip": "127.0.0.1", "shell_port": ports[0], "iopub_port": ports[1],
            "stdin_port": ports[2], "control_port": ports[3], "hb_port": ports[4], "key": "k",
            "signature_scheme": "hmac-sha256", "kernel_name": "wordlab"}
    info.update(over)
    path = tmp_path / f"conn-{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps(info))
    return str(path), info


def test_kernel_refuses_bad_connection_files(tmp_path):
    r = subprocess.run([ku.WORDLAB, "kernel"], capture_output=True, text=True)
    assert r.returncode == 2 and "usage" in r.stderr
    r = subprocess.run([ku.WORDLAB, "kernel", "-f", str(tmp_path / "missing.json")], capture_output=True, text=True)
    assert r.returncode == 1 and "missing.json" in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    cases = [str(bad),
             conn_file(tmp_path, signature_scheme="hmac-md5")[0],
             conn_file(tmp_path, shell_port="x")[0],
             conn_file(tmp_path, transport="udp")[0],
             conn_file(tmp_path, key=5)[0]]
    for path in cases:
        r = subprocess.run([ku.WORDLAB, "kernel", "-f", path], capture_output=True, text=True, timeout=10)
        assert r.returncode == 1 and "connection file" in r.stderr, (path, r.stderr)


def test_kernel_reports_a_port_in_use(tmp_path):
    path, info = conn_file(tmp_path)
    with socket.socket() as s:
        s.bind(("127.0.0.1", info["hb_port"]))
        s.listen()
        r = subprocess.run([ku.WORDLAB, "kernel", "-f", path], capture_output=True, text=True, timeout=20)
    assert r.returncode == 1 and "cannot bind the heartbeat socket" in r.stderr, r.stderr


def test_kernel_ends_when_its_parent_is_gone(tmp_path):
    # a client process starts a kernel, prints its pid and dies without shutting it down
    code = ("import os, sys\nfrom jupyter_client.manager import KernelManager\n"
            "km = KernelManager(kernel_name='wordlab')\nkm.start_kernel()\n"
            "print(km.provisioner.process.pid, flush=True)\nos._exit(0)\n")
    with subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True) as p:
        pid = int(p.stdout.readline())
        p.wait(timeout=30)
    deadline = time.monotonic() + ku.TIMEOUT
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    raise AssertionError("the kernel outlived the process that started it")
