"""test_kernel_mime.py: every command's help example, executed on the kernel: every display bundle carries text/plain,
no type that a stock front end (JupyterLab, Notebook, VS Code, nbconvert) would prefer over the HTML, SVG or text
meant for reading (application/json), and only the types wordlab declares; the value's JSON under its vendor type."""
import json
import subprocess

import kernel_util

# The types a wordlab bundle may carry; application/json is not among them.
ALLOWED = {"text/plain", "text/html", "image/svg+xml", "application/vnd.wordlab.value+json",
           "application/vnd.vegalite.v5+json"}


def examples():
    """(command, example lines) for every command of the table, from `wordlab commands` and each help page."""
    names = subprocess.run([kernel_util.WORDLAB, "commands"], check=True, capture_output=True, text=True).stdout.split()
    assert len(names) >= 20 and "help" in names, names
    out = []
    for name in names:
        page = subprocess.run([kernel_util.WORDLAB, "--json", "-c", f"help {name}"], check=True, capture_output=True,
                              text=True).stdout
        text = json.loads(page.splitlines()[-1])["text"]
        lines = text.split("\nexample:\n", 1)[1].splitlines()
        code = "\n".join(line[4:] for line in lines if line.startswith("    "))
        assert name in code, (name, code)
        out.append((name, code))
    return out


def test_every_example_shows_readable_bundles(tmp_path):
    km, kc = kernel_util.start(cwd=str(tmp_path))
    seen = {}
    try:
        for name, code in examples():
            reply, msgs = kernel_util.run(kc, code, timeout=300, allow_stdin=False)
            assert reply["content"]["status"] == "ok", (name, code, reply["content"])
            bundles = [m["content"]["data"] for m in msgs
                       if m["msg_type"] in ("display_data", "update_display_data", "execute_result")]
            bundles += [p["data"] for p in reply["content"].get("payload", []) if "data" in p]
            for data in bundles:
                assert "text/plain" in data, (name, sorted(data))
                assert "application/json" not in data, (name, sorted(data))
                assert set(data) <= ALLOWED, (name, sorted(data))
                for mime in data:
                    seen[mime] = seen.get(mime, 0) + 1
    finally:
        kernel_util.stop(km, kc)
    # The examples show tables, pictures and values for programs, not only text.
    assert {"text/html", "image/svg+xml", "application/vnd.wordlab.value+json"} <= set(seen), seen
