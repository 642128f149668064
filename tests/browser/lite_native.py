"""lite_native.py: what the native wordlab kernel shows for every code cell of the lessons, for the Lite browser test.

usage: lite_native.py OUT.json NOTEBOOK.ipynb...   (env: WORDLAB, the native program)
Each notebook's code cells run in order on one native kernel (jupyter_client); each cell's outputs are kept as a
front end keeps them (lite.mjs reads the same from the page): consecutive streams of one name joined, a display's
updates applied to it in place, text/plain only. Writes {"lessons": {notebook: {"cells": [[output, ...], ...], "seconds": S, "cell_seconds": [...]}}, ...}
with S the native Run All time (every cell's execute_request to its reply) and each cell's, and under "requests" the native
replies' content to REQUESTS (completion, inspection, is_complete, `?name`'s pager payload), under "training"
TRAINING's outputs and its number of display updates."""
import json
import os
import sys
import tempfile
import time

import nbformat

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "py"))
import kernel_util as ku  # noqa: E402


# The requests whose replies the browser kernel must give alike: [label, msg_type, content].
REQUESTS = [
    ["complete", "complete_request", {"code": "m = model lo", "cursor_pos": 12}],
    ["inspect", "inspect_request", {"code": "train $m", "cursor_pos": 2, "detail_level": 0}],
    ["is_complete", "is_complete_request", {"code": 'print "abc'}],
    ["help page", "execute_request", {"code": "?generate", "silent": False, "store_history": True}],
]


# A short training run with its live display (its outputs and how many display updates it sent), on a small corpus.
TRAINING = ("tiny = corpus profile=smoke stories=40\n"
            "net = model new kind=multihead heads=4 vocab=$tiny.vocab seed=11\n"
            "run = train $net $tiny steps=60 batch=32 eval_every=20")


def requests():
    """The native kernel's reply content for each of REQUESTS (an execute's: its payload), and TRAINING's outputs."""
    km, kc = ku.start("wordlab")
    try:
        out = {}
        for label, msg_type, content in REQUESTS:
            msg = kc.session.msg(msg_type, content)
            kc.shell_channel.send(msg)
            reply = ku.shell_reply(kc, msg["header"]["msg_id"], timeout=60)["content"]
            out[label] = reply["payload"] if msg_type == "execute_request" else reply
        msg_id = kc.execute(TRAINING)
        ku.shell_reply(kc, msg_id, timeout=600)
        msgs = ku.collect(kc, msg_id, timeout=600)
        training = {"outputs": outputs(msgs), "updates": sum(m["msg_type"] == "update_display_data" for m in msgs)}
        return out, training
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def outputs(msgs):
    """The cell's outputs from its IOPub messages: [{"type", "text"}], as a notebook front end shows them."""
    out, by_id = [], {}
    for m in msgs:
        t, c = m["msg_type"], m["content"]
        if t == "stream":
            if out and out[-1]["type"] == "stream" and out[-1]["name"] == c["name"]:
                out[-1]["text"] += c["text"]
            else:
                out.append({"type": "stream", "name": c["name"], "text": c["text"]})
        elif t in ("display_data", "execute_result"):
            o = {"type": t, "text": c["data"].get("text/plain", "")}
            out.append(o)
            did = c.get("transient", {}).get("display_id")
            if did:
                by_id.setdefault(did, []).append(o)
        elif t == "update_display_data":
            for o in by_id.get(c["transient"]["display_id"], []):
                o["text"] = c["data"].get("text/plain", "")
        elif t == "error":
            out.append({"type": "error", "text": "\n".join([c["ename"], c["evalue"], *c["traceback"]])})
        elif t == "clear_output":
            out = []
    return out


def main():
    result = {}
    for path in sys.argv[2:]:
        nb = nbformat.read(path, as_version=4)
        with tempfile.TemporaryDirectory(prefix="wl-lite-native-") as cwd:
            km, kc = ku.start("wordlab", cwd=cwd)
            try:
                cells, times, t0 = [], [], time.monotonic()
                for cell in nb.cells:
                    if cell.cell_type != "code":
                        continue
                    t = time.monotonic()
                    msg_id = kc.execute(cell.source)
                    ku.shell_reply(kc, msg_id, timeout=600)
                    times.append(time.monotonic() - t)
                    cells.append(outputs(ku.collect(kc, msg_id, timeout=600)))
                result[os.path.basename(path)] = {"cells": cells, "seconds": time.monotonic() - t0, "cell_seconds": times}
            finally:
                kc.stop_channels()
                km.shutdown_kernel(now=True)
    replies, training = requests()
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        json.dump({"lessons": result, "requests": replies, "requests_sent": REQUESTS, "training": training,
                   "training_code": TRAINING}, f)


if __name__ == "__main__":
    main()
