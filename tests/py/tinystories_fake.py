"""tinystories_fake.py: a fake of the Hugging Face Hub API and the Dataset Viewer rows API on 127.0.0.1 (plain
HTTP, a free port), serving rows that this module makes, with faults a test queues per request."""
import gzip
import http.server
import json
import random
import threading
import urllib.parse

REVISION = "f54c09fd23315a6f9c86f9dc80f725de7d8f9c64"
TOTAL_ROWS = 2_119_719
HUB_PATH = "/api/datasets/roneneldan/TinyStories"

WORDS = ("once upon a time there was a little dog named Tom . He liked to play in the park with his red ball , "
         "and Lily's cat didn't like it ! \" she said , ' yes ' 3 2nd").split()
ODD = ["\"", "\\", "\n", "\r\n", "\t", "\b", "\f", "\x01", "\x1f", "\x7f", "é", "Ünïcödé", "日本語", "😀", "\u2028",
       "\u00a0", "ﬁ", "’", "“quoted”", "\\n", "\\u0041", "/", "</script>", "\U0001f600\U0001f3fd", "Ω≈ç√"]


def row_text(i):
    """The story of row i: words with quotes, backslashes, control characters and non-ASCII, different per row."""
    rng = random.Random(i)
    parts = []
    for _ in range(rng.randint(25, 90)):
        parts.append(rng.choice(ODD) if rng.random() < 0.08 else rng.choice(WORDS))
    return " ".join(parts) + f" story {i}."


class Fake:
    """The server. faults[key] is a list of actions taken by the next requests for key ("hub" or a page offset):
    ("status", code, headers) answers with that status; "partial", "truncated", "malformed", ("rows", n) spoil the
    page; "block" holds the request until release() (blocked is set meanwhile); "drip" sends the page 2 bytes every
    half second, until the client goes away or the fake closes; ("bomb", mib) answers with a gzip body of 100 KB
    that decodes to a JSON array of mib MiB; None answers normally."""

    def __init__(self):
        self.revision = REVISION
        self.faults = {}
        self.log = []                  # (path, raw query, User-Agent) of every request, in order
        self.lock = threading.Lock()
        self.blocked = threading.Event()
        self.released = threading.Event()
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                fake.handle(self)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.released.set()
        self.server.shutdown()
        self.server.server_close()

    def release(self):
        self.released.set()

    def queue(self, key, *actions):
        with self.lock:
            self.faults.setdefault(key, []).extend(actions)

    def requests(self, path=None):
        with self.lock:
            return [r for r in self.log if path is None or r[0] == path]

    def page_offsets(self):
        return [int(urllib.parse.parse_qs(q)["offset"][0]) for _, q, _ in self.requests("/rows")]

    def _next_action(self, key):
        with self.lock:
            todo = self.faults.get(key)
            return todo.pop(0) if todo else None

    def _send(self, h, code, body, headers=(), drip=False):
        try:
            h.send_response(code)
            h.send_header("Content-Type", "application/json; charset=utf-8")
            h.send_header("Content-Length", str(len(body)))
            for k, v in headers:
                h.send_header(k, v)
            h.end_headers()
            if not drip:
                h.wfile.write(body)
            for at in range(0, len(body) if drip else 0, 2):
                h.wfile.write(body[at:at + 2])
                h.wfile.flush()
                if self.released.wait(0.5):
                    break
        except OSError:   # the client went away (killed, interrupted or timed out)
            pass

    def page(self, offset, length, action):
        rows = [{"row_idx": i, "row": {"text": row_text(i)}, "truncated_cells": []}
                for i in range(offset, min(offset + length, TOTAL_ROWS))]
        if action == "truncated":
            rows[7]["truncated_cells"] = ["text"]
            rows[7]["row"]["text"] = rows[7]["row"]["text"][:20]
        if isinstance(action, tuple) and action[0] == "rows":
            rows = rows[:action[1]]
        payload = {"features": [{"feature_idx": 0, "name": "text", "type": {"dtype": "string", "_type": "Value"}}],
                   "rows": rows, "num_rows_total": TOTAL_ROWS, "num_rows_per_page": 100,
                   "partial": action == "partial"}
        # alternate raw UTF-8 and \u escapes (surrogate pairs included), as JSON servers differ
        return json.dumps(payload, ensure_ascii=(offset // 100) % 2 == 1).encode()

    def handle(self, h):
        url = urllib.parse.urlsplit(h.path)
        with self.lock:
            self.log.append((url.path, url.query, h.headers.get("User-Agent", "")))
        if url.path == HUB_PATH:
            key = "hub"
        elif url.path == "/rows":
            q = urllib.parse.parse_qs(url.query)
            if (q.get("dataset"), q.get("config"), q.get("split")) != (["roneneldan/TinyStories"], ["default"], ["train"]):
                return self._send(h, 400, b'{"error": "bad query"}')
            key = int(q["offset"][0])
        else:
            return self._send(h, 404, b'{"error": "not found"}')
        action = self._next_action(key)
        if action == "block":
            self.blocked.set()
            self.released.wait(60)
            action = None
        if isinstance(action, tuple) and action[0] == "status":
            return self._send(h, action[1], b'{"error": "fake"}', action[2] if len(action) > 2 else ())
        if isinstance(action, tuple) and action[0] == "bomb":
            zeros = b"[" + b"0," * (action[1] << 19) + b"0]"
            return self._send(h, 200, gzip.compress(zeros), [("Content-Encoding", "gzip")])
        if key == "hub":
            body = json.dumps({"id": "roneneldan/TinyStories", "sha": self.revision, "private": False}).encode()
        else:
            body = self.page(key, int(q["length"][0]), action)
        if action == "malformed":
            body = body[: len(body) // 2]
        self._send(h, 200, body, drip=action == "drip")
