"""test_kernel_clients.py: the wordlab kernel under real front ends: nbclient runs a notebook, jupyter-console in a
pseudo-terminal, the Notebook 7 server of the project environment over its websocket."""
import asyncio
import io
import json
import os
import re
import shutil
import socket
import subprocess
import time
import uuid

import nbformat
import pexpect
import pytest
import requests
from tornado.websocket import websocket_connect
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

import kernel_util as ku

CELLS = [
    ("markdown", "# A tiny lesson\nCross-entropy and perplexity, step by step."),
    ("code", 'print "hello, notebook"'),
    ("code", "perplexity 0.5 0.25 0.125"),
    ("code", "p = perplexity 0.25 0.25\nprint $p.perplexity"),
    ("code", 'warn "a warning"\nmean 1 2\nexp 0'),
    ("code", 'print "gone"\nclear\nprint "kept"'),
    ("code", "?mean"),
]


def notebook(cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "wordlab", "display_name": "wordlab", "language": "wordlab"}
    for kind, src in cells:
        nb.cells.append(nbformat.v4.new_markdown_cell(src) if kind == "markdown" else nbformat.v4.new_code_cell(src))
    return nb


def test_nbclient_runs_a_notebook(tmp_path):
    nb = notebook(CELLS)
    NotebookClient(nb, timeout=60, kernel_name="wordlab", resources={"metadata": {"path": str(tmp_path)}}).execute()
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    assert code[0].outputs == [{"output_type": "stream", "name": "stdout", "text": "hello, notebook\n"}]
    res = code[1].outputs[0]
    assert res.output_type == "execute_result" and {"text/plain", "text/html", "application/vnd.wordlab.value+json"} <= set(res.data)
    assert res.data["application/vnd.wordlab.value+json"]["perplexity"] == pytest.approx(4.0)
    assert code[2].outputs[0].text == "4.0\n"
    kinds = [o.output_type for o in code[3].outputs]
    assert kinds == ["stream", "display_data", "execute_result"], kinds
    assert code[3].outputs[0].name == "stderr"
    # clear_output removed what came before it
    assert [o.get("text") for o in code[4].outputs] == ["kept\n"]
    # the pager payload is not an output
    assert code[5].outputs == []
    # the notebook round-trips through nbformat
    path = tmp_path / "lesson.ipynb"
    nbformat.write(nb, str(path))
    assert nbformat.read(str(path), as_version=4).cells[1].outputs[0]["text"] == "hello, notebook\n"


def test_nbclient_reports_errors(tmp_path):
    nb = notebook([("code", "mean 1 2"), ("code", "nosuchcommand 3"), ("code", 'print "never"')])
    with pytest.raises(CellExecutionError) as e:
        NotebookClient(nb, timeout=60, kernel_name="wordlab").execute()
    assert "UnknownCommand" in str(e.value)
    nb = notebook([("code", "nosuchcommand 3"), ("code", 'print "after"')])
    NotebookClient(nb, timeout=60, kernel_name="wordlab", allow_errors=True).execute()
    err = nb.cells[0].outputs[0]
    assert err.output_type == "error" and err.ename == "UnknownCommand" and isinstance(err.traceback, list)
    assert nb.cells[1].outputs[0].text == "after\n"


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[>=]|\r")


def test_jupyter_console_in_a_pty(tmp_path):
    console = shutil.which("jupyter-console")
    assert console, "jupyter-console is not installed (Debian package jupyter-console)"
    env = dict(os.environ, TERM="xterm", HOME=str(tmp_path), COLUMNS="120", LINES="40",
               JUPYTER_CONFIG_DIR=str(tmp_path / "config"), JUPYTER_DATA_DIR=str(tmp_path / "data"))
    child = pexpect.spawn(console, ["--kernel", "wordlab", "--simple-prompt"], env=env, encoding="utf-8",
                          timeout=30, dimensions=(40, 120))
    child.logfile_read = transcript = io.StringIO()
    try:
        child.expect(r"In \[1\]: ", timeout=60)
        assert "wordlab" in ANSI.sub("", child.before)   # the banner
        child.sendline('print "hello from the console"')
        child.expect("hello from the console")
        child.expect(r"In \[2\]: ")
        child.sendline("mean 2 4")
        child.expect(r"Out\[2\]: 3\.0")
        child.expect(r"In \[3\]: ")
        child.sendline("nosuchcommand")
        child.expect("UnknownCommand")
        child.expect(r"In \[4\]: ")
        child.sendline('name = input "who? "')
        child.expect("who\\? ")
        child.sendline("Grace")
        child.expect(r"In \[5\]: ")
        child.sendline('print "hi $name"')
        child.expect("hi Grace")
        child.expect(r"In \[6\]: ")
        child.sendeof()   # Ctrl-D: the console asks, then shuts the kernel down
        if child.expect([r"exit.*\?", pexpect.EOF]) == 0:
            child.sendline("y")
            child.expect(pexpect.EOF)
    except pexpect.TIMEOUT:
        raise AssertionError("jupyter-console stalled; its screen so far:\n" + ANSI.sub("", transcript.getvalue()))
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, (child.exitstatus, child.signalstatus)


# What `make notebook` serves: the project environment's Notebook 7 (on jupyter_server 2, with the environment's own
# settings: kernels on ipc), never Debian's notebook package.
NOTEBOOK = os.path.join(ku.BUILD, "venv", "bin", "jupyter-notebook")


def test_notebook_server_runs_the_kernel(tmp_path):
    """Notebook 7 of the project environment lists the spec with its logos and runs cells over its websocket."""
    assert os.access(NOTEBOOK, os.X_OK), f"{NOTEBOOK} is missing: the build makes the project environment (target venv)"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = uuid.uuid4().hex
    env = dict(os.environ, HOME=str(tmp_path), JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTER_DATA_DIR=str(tmp_path / "data"))
    args = [NOTEBOOK, "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={tmp_path}"]
    if os.geteuid() == 0:
        args.append("--allow-root")
    log = open(tmp_path / "server.log", "w")
    server = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    auth = {"Authorization": f"token {token}"}
    try:
        while True:   # up when its API answers (or the test's timeout ends the wait)
            assert server.poll() is None, "the notebook server exited:\n" + (tmp_path / "server.log").read_text()
            try:
                if requests.get(f"{base}/api/status", headers=auth, timeout=5).ok:
                    break
            except (requests.ConnectionError, requests.Timeout):
                time.sleep(0.1)
        specs = requests.get(f"{base}/api/kernelspecs", headers=auth, timeout=10).json()["kernelspecs"]
        assert specs["wordlab"]["spec"]["language"] == "wordlab"
        for logo in ("logo-32x32.png", "logo-64x64.png"):
            r = requests.get(f"{base}/kernelspecs/wordlab/{logo}", headers=auth, timeout=10)
            assert r.ok and r.content.startswith(b"\x89PNG")
        kernel = requests.post(f"{base}/api/kernels", json={"name": "wordlab"}, headers=auth, timeout=30).json()

        async def run_cells(cells):
            ws = await websocket_connect(f"ws://127.0.0.1:{port}/api/kernels/{kernel['id']}/channels?token={token}")
            results = []
            for code in cells:
                msg_id = uuid.uuid4().hex
                await ws.write_message(json.dumps({
                    "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "t", "session": "s",
                               "version": "5.3", "date": ""},
                    "parent_header": {}, "metadata": {}, "channel": "shell",
                    "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                                "allow_stdin": False, "stop_on_error": True}}))
                reply, outs, idle = None, [], False
                while reply is None or not idle:   # shell and iopub share the websocket, in either order
                    msg = json.loads(await asyncio.wait_for(ws.read_message(), 30))
                    if msg["parent_header"].get("msg_id") != msg_id:
                        continue
                    if msg["channel"] == "shell":
                        reply = msg
                    elif msg["msg_type"] == "status":
                        idle = msg["content"]["execution_state"] == "idle"
                    else:
                        assert not idle, "output after idle"
                        outs.append(msg)
                results.append((reply, outs))
            ws.close()
            return results

        results = asyncio.new_event_loop().run_until_complete(
            run_cells(['print "hello, notebook server"', "perplexity 0.5 0.25 0.125"]))
        (r1, o1), (r2, o2) = results
        assert r1["content"]["status"] == "ok" and r2["content"]["execution_count"] == 2
        assert [o["content"].get("text") for o in o1 if o["msg_type"] == "stream"] == ["hello, notebook server\n"]
        assert any(o["msg_type"] == "execute_result" and "text/html" in o["content"]["data"] for o in o2)
        requests.delete(f"{base}/api/kernels/{kernel['id']}", headers=auth, timeout=30)
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
        print((tmp_path / "server.log").read_text())   # shown when the test fails
