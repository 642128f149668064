#!/usr/bin/env python3
"""serve-demo.py: serves the built demo page (a static directory) on 127.0.0.1, with the right types for .mjs and .wasm.

usage: serve-demo.py DIR [PORT]   (PORT 0, the default, picks a free one; the first line printed gives the URL)
"""
import functools
import http.server
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
                      ".json": "application/json", ".npz": "application/octet-stream"}

    def end_headers(self):
        # cross-origin isolated: performance.now() then has its fine resolution (5 us, not 100 us) for per-call timing
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, fmt, *args):   # quiet: one line per request would bury the URL
        pass


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[-1])
    port = int(sys.argv[2]) if len(sys.argv) == 3 else 0
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=sys.argv[1]))
    print(f"serving {sys.argv[1]} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
