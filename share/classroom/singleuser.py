"""singleuser.py: one student's Jupyter server, jupyterhub-singleuser without the modules it imports but never uses.

Every student has a server of their own (a Python process), so what it imports at start is paid once per student.
Three of its imports are optional for their importers, which fall back when they are missing, and serve nothing a
student of the lessons uses:
  rfc3987_syntax  jsonschema's checker of the "iri" format (jupyter_events validates with jsonschema): it builds a
                  lark parser of RFC 3987 at import, 15 MB of private memory and about a second of CPU per student
  isoduration     jsonschema's checker of the "duration" format (with arrow, 2 MB)
  cryptography    the hub's encryption of authentication state (jupyterhub.crypto), which a single-user server
                  never uses (7 MB)
A name set to None in sys.modules makes its import raise ImportError, the case each importer handles.

usage (lab-singleuser.sh): VENV/bin/python singleuser.py [jupyterhub-singleuser arguments...]
"""
import sys

for name in ("rfc3987_syntax", "isoduration", "cryptography"):
    sys.modules[name] = None

from jupyterhub.singleuser import main  # noqa: E402  (after the modules above are marked missing)

sys.argv[0] = "jupyterhub-singleuser"
sys.exit(main())
