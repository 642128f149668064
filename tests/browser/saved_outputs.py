"""saved_outputs.py: what a notebook file's saved outputs show, as JSON, for the browser tests to expect on first open.

usage: saved_outputs.py NOTEBOOK.ipynb  ->  {"svg": N, "shaded": M}
  svg: the SVG pictures shown: image/svg+xml outputs without HTML (HTML is preferred), plus <svg> elements in HTML
  shaded: HTML outputs with background colours (tables and stories shaded by value)
"""
import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    data = [o.get("data", {}) for c in json.load(f)["cells"] for o in c.get("outputs", [])]
html = ["".join(d.get("text/html", "")) for d in data]
print(json.dumps({"svg": sum("image/svg+xml" in d and "text/html" not in d for d in data) + sum(h.count("<svg") for h in html),
                  "shaded": sum("background" in h for h in html)}))
