"""singleuser.py: one student's Jupyter server: jupyterhub-singleuser without what it loads at start but never uses.

Every student has a server of their own (a Python process), so what it loads at start is paid once per student.
  - Three imports are optional for their importers, which fall back when they are missing, and serve nothing a
    student of the lessons uses (a name set to None in sys.modules makes its import raise ImportError):
      rfc3987_syntax  jsonschema's checker of the "iri" format (jupyter_events validates with jsonschema): it builds
                      a lark parser of RFC 3987 at import, 15 MB of private memory and about a second of CPU
      isoduration     jsonschema's checker of the "duration" format (with arrow: 2 MB)
      cryptography    the hub's encryption of authentication state (jupyterhub.crypto), never used by a
                      single-user server (7 MB)
  - Importing jupyterlab.labapp asks node for yarn's configuration (the npm registry a build of JupyterLab would
    use): a node process of 95 MB and half a second of CPU at every start, for builds a student's server never runs
    (the hub's configuration turns the build check off). It is imported here with only this environment's bin/ on
    PATH, where there is no node, so JupyterLab skips yarn's configuration; PATH is restored before the server
    starts (the kernels inherit it).

usage (lab-singleuser.sh): VENV/bin/python singleuser.py [jupyterhub-singleuser arguments...]
"""
import os
import sys

for name in ("rfc3987_syntax", "isoduration", "cryptography"):
    sys.modules[name] = None

path = os.environ.get("PATH", "")
os.environ["PATH"] = os.path.dirname(sys.executable)
import jupyterlab.labapp  # noqa: E402,F401  (imported once, without node on PATH)
os.environ["PATH"] = path

from jupyterhub.singleuser import main  # noqa: E402

sys.argv[0] = "jupyterhub-singleuser"
sys.exit(main())
