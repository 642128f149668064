"""test_security.py: what the kernel exposes and what commands may touch.

The kernel listens only on the connection file's ip; it refuses a signature scheme it does not know
(naming it), with or without a key; it warns on stderr when the key is empty; nothing runs a program;
the front ends read a few environment variables, each listed here with its reason; file errors name the
path resolved (absolute, from the working directory of the process).
"""
import json
import os
import re
import socket
import subprocess
import time

import kernel_util as ku

WORDLAB = ku.WORDLAB
SRC = os.environ.get("WL_SOURCE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def connection_file(tmp_path, **changes):
    names = ["shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"]
    info = dict(zip(names, free_ports(5)), ip="127.0.0.1", transport="tcp", key="secret-key",
                signature_scheme="hmac-sha256", kernel_name="wordlab")
    info.update(changes)
    path = tmp_path / "kernel.json"
    path.write_text(json.dumps(info))
    return path, info


def listening(pid):
    """(ip, port) of every TCP socket in LISTEN state that process pid holds."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        m = re.fullmatch(r"socket:\[(\d+)\]", target)
        if m:
            inodes.add(m[1])
    found = []
    for table, width in (("tcp", 8), ("tcp6", 32)):
        with open(f"/proc/{pid}/net/{table}") as f:
            next(f)
            for row in f:
                cols = row.split()
                local, state, inode = cols[1], cols[3], cols[9]
                if state != "0A" or inode not in inodes:      # 0A: LISTEN
                    continue
                addr, port = local.split(":")
                raw = bytes.fromhex(addr)
                if width == 8:
                    ip = socket.inet_ntop(socket.AF_INET, raw[::-1])
                else:
                    ip = socket.inet_ntop(socket.AF_INET6, b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4)))
                found.append((ip, int(port, 16)))
    return found


def start_kernel(path):
    return subprocess.Popen([WORDLAB, "kernel", "-f", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def wait_listening(pid, n, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = listening(pid)
        if len(found) >= n:
            return found
        time.sleep(0.05)
    return listening(pid)


def stop_kernel(proc):
    proc.terminate()
    try:
        return proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()


def test_binds_only_to_the_connection_files_ip(tmp_path):
    path, info = connection_file(tmp_path)
    proc = start_kernel(path)
    try:
        found = wait_listening(proc.pid, 5)
    finally:
        stop_kernel(proc)
    ports = {info[k] for k in ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")}
    assert sorted(found) == sorted(("127.0.0.1", p) for p in ports), found


def test_refuses_an_unknown_signature_scheme(tmp_path):
    path, _ = connection_file(tmp_path, signature_scheme="hmac-md5")
    done = subprocess.run([WORDLAB, "kernel", "-f", str(path)], capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert "signature_scheme" in done.stderr and "hmac-md5" in done.stderr, done.stderr


def test_refuses_an_unknown_signature_scheme_without_a_key(tmp_path):
    path, _ = connection_file(tmp_path, signature_scheme="rot13", key="")
    done = subprocess.run([WORDLAB, "kernel", "-f", str(path)], capture_output=True, text=True, timeout=30)
    assert done.returncode != 0 and "signature_scheme" in done.stderr, done.stderr


def test_warns_loudly_when_the_key_is_empty(tmp_path):
    path, _ = connection_file(tmp_path, key="")
    proc = start_kernel(path)
    try:
        wait_listening(proc.pid, 5)
    finally:
        _, err = stop_kernel(proc)
    assert "WARNING" in err and "key" in err and "not signed" in err, err


def c_sources(folder):
    for name in sorted(os.listdir(os.path.join(SRC, folder))):
        sub = os.path.join(SRC, folder, name)
        if os.path.isdir(sub):
            yield from c_sources(os.path.join(folder, name))
        elif name.endswith((".c", ".h")):
            yield os.path.join(folder, name), open(sub, encoding="utf-8").read()


def calls(text, names):
    """(function, line number) of each call of one of names in C text, comments and strings left out."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"",
                  lambda m: "\n" * m[0].count("\n") if m[0][0] != '"' else '""', text, flags=re.S)
    pattern = re.compile(r"\b(" + "|".join(names) + r")\s*\(")
    return [(m[1], text.count("\n", 0, m.start()) + 1) for m in pattern.finditer(text)]


SHELL = ["system", "popen", "execl", "execlp", "execle", "execv", "execvp", "execvpe", "fork", "vfork",
         "posix_spawn", "posix_spawnp", "wordexp"]
ENV = ["getenv", "secure_getenv", "putenv", "setenv", "unsetenv", "clearenv"]

# The only places that read the environment, all in front ends (kernel/, cli/), each for one stated reason.
FRONT_END_ENV = {
    "kernel/kernel_main.c": {
        "JPY_PARENT_PID": "jupyter_client names its pid: the kernel exits when its client is gone",
    },
    "kernel/kernel_spec.c": {
        "JUPYTER_DATA_DIR": "install-kernel --user: the user's Jupyter data directory",
        "XDG_DATA_HOME": "install-kernel --user: the same, as jupyter_core finds it",
        "HOME": "install-kernel --user: the same, the last fallback",
    },
    "cli/repl.c": {
        "NO_COLOR": "the REPL honours the no-colour convention",
        "TERM": "the REPL draws no colour on a dumb terminal",
        "HOME": "the REPL's history file ~/.wordlab_history",
    },
    "cli/cli_http.c": {
        "WORDLAB_ARTIFACTS": "where `artifact` looks first for the bundled files, passed to the interpreter",
        "XDG_CACHE_HOME": "the user's cache directory for `corpus source=tinystories`, passed to the interpreter",
        "HOME": "the same, ~/.cache without XDG_CACHE_HOME",
        "WORDLAB_CACHE": "the shared cache folder (off: none), passed to the interpreter",
        "WORDLAB_CACHE_LIMIT_MB": "the shared cache's bound, passed to the interpreter",
    },
}
LISTED_ENV = {(path, var) for path, reasons in FRONT_END_ENV.items() for var in reasons}


def test_the_runtime_runs_no_program():
    found = [(path, fn, line) for path, text in c_sources("runtime") for fn, line in calls(text, SHELL)]
    assert found == [], f"the runtime runs a program: {found}"


def test_the_runtime_reads_no_environment():
    found = [(path, fn, line) for path, text in c_sources("runtime") for fn, line in calls(text, ENV)]
    assert found == [], f"the runtime reads or changes the environment: {found}"


def test_front_ends_run_no_shell_and_read_only_the_listed_variables():
    seen = set()
    for path, text in [*c_sources("kernel"), *c_sources("cli")]:
        assert calls(text, SHELL) == [], path
        for fn, line in calls(text, ENV):
            src_line = text.splitlines()[line - 1]
            assert fn == "getenv", f"{path}:{line} changes the environment"
            for var in re.findall(r'getenv\("([A-Z_]+)"\)', src_line):
                assert (path, var) in LISTED_ENV, f"{path}:{line} reads ${var}, which is not on the list"
                seen.add((path, var))
            assert re.findall(r'getenv\("([A-Z_]+)"\)', src_line), f"{path}:{line}: getenv of a computed name"
    assert seen == LISTED_ENV, f"listed but no longer read: {LISTED_ENV - seen}"


def test_file_errors_show_the_resolved_path(tmp_path):
    (tmp_path / "work").mkdir()
    cases = [
        ("m = model load missing/model.npz", "missing/model.npz"),
        ("m = model new kind=mlp vocab=100\nmodel save $m no/such/dir/m.npz", "no/such/dir/m.npz"),
        ("v = vocab ./missing.json", "missing.json"),
        ("results ../work/nothing-here", "nothing-here/comparison.json"),
        ("c = corpus file=missing.jsonl", "missing.jsonl"),
    ]
    for code, rel in cases:
        done = subprocess.run([WORDLAB, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path / "work")
        assert done.returncode != 0
        want = os.path.normpath(os.path.join(tmp_path, "work", rel))
        assert want in done.stderr, f"{code!r}: the error does not name {want}: {done.stderr}"
