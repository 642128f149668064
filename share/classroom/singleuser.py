"""singleuser.py: one student's Jupyter server: jupyterhub-singleuser without what it loads at start but never uses.

Every student has a server of their own (a Python process), so what it loads at start is paid once per student.
  - Three imports are optional for their importers, which fall back when they are missing, and serve nothing a
    student of the lessons uses (a name set to None in sys.modules makes its import raise ImportError):
      rfc3987_syntax  jsonschema's checker of the "iri" format (jupyter_events validates with jsonschema): it builds
                      a lark parser of RFC 3987 at import, 15 MB of private memory and about a second of CPU
      isoduration     jsonschema's checker of the "duration" format (with arrow: 2 MB)
      cryptography    the hub's encryption of authentication state (jupyterhub.crypto), never used by a
                      single-user server (7 MB)
  - The hub's database layer (jupyterhub.orm: SQLAlchemy's ORM and dialects, Alembic; 20 MB of private memory and
    about a second of CPU) is loaded only if something uses it. The single-user server's request log
    (jupyterhub.log) imports the hub's page handlers for one name, HealthCheckHandler, to log the hub's health checks
    quietly; a single-user server has no such handler, so jupyterhub.log is imported here with a class of that name
    that nothing is an instance of in place of the hub's pages, and then the real module is put back for whoever
    imports it. jupyterhub.orm is imported lazily (importlib's LazyLoader: the module runs at the first use of one of
    its names). Should a later JupyterHub need more of either, it gets the real module: this only ever loses the
    saving, never a feature.
  - Importing jupyterlab.labapp asks node for yarn's configuration (the npm registry a build of JupyterLab would
    use): a node process of 95 MB and half a second of CPU at every start, for builds a student's server never runs
    (the hub's configuration turns the build check off). It is imported here with only this environment's bin/ on
    PATH, where there is no node, so JupyterLab skips yarn's configuration; PATH is restored before the server
    starts (the kernels inherit it).
  - The lessons that lessons-copy.sh copied in are signed for the student here (nbformat's NotebookNotary, the same
    key and database as `jupyter trust`), listed in the file WORDLAB_SIGN_LIST names: nbformat is loaded anyway, so
    signing costs a tenth of a second instead of a Python process of its own (`jupyter trust`, 1.9 s of CPU).

usage (lab-singleuser.sh): VENV/bin/python singleuser.py [jupyterhub-singleuser arguments...]
"""
import importlib.util
import os
import sys
import types

for name in ("rfc3987_syntax", "isoduration", "cryptography"):
    sys.modules[name] = None


class LazyModules:
    """A finder that loads the named modules lazily (a module runs at the first use of one of its names)."""

    def __init__(self, *names):
        self.names = set(names)

    def find_spec(self, name, path, target=None):
        if name not in self.names:
            return None
        sys.meta_path.remove(self)  # the spec the other finders give, then wrapped
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        if spec is not None and spec.loader is not None:
            spec.loader = importlib.util.LazyLoader(spec.loader)
        return spec


sys.meta_path.insert(0, LazyModules("jupyterhub.orm"))
PAGES = "jupyterhub.handlers.pages"
pages = types.ModuleType(PAGES)
pages.HealthCheckHandler = type("HealthCheckHandler", (), {"__doc__": "the hub's; no handler of a single-user server"})
sys.modules[PAGES] = pages
try:
    import jupyterhub.log  # noqa: E402,F401
except ImportError:  # it wants more of the pages than that name: the real module
    del sys.modules[PAGES]
    import jupyterhub.log  # noqa: E402,F401,F811
sys.modules.pop(PAGES, None)

path = os.environ.get("PATH", "")
os.environ["PATH"] = os.path.dirname(sys.executable)
import jupyterlab.labapp  # noqa: E402,F401  (imported once, without node on PATH)
os.environ["PATH"] = path

from jupyterhub.singleuser import main  # noqa: E402


def sign_lessons(listing):
    """Signs for this user each notebook named in the file listing (one path a line), then removes the file."""
    import nbformat
    from nbformat.sign import NotebookNotary

    notary = NotebookNotary()
    with open(listing, encoding="utf-8") as f:
        paths = [line.rstrip("\n") for line in f if line.strip()]
    for nb_path in paths:
        with open(nb_path, encoding="utf-8") as f:
            nb = nbformat.read(f, as_version=nbformat.NO_CONVERT)
        if not notary.check_signature(nb):
            notary.sign(nb)
    os.unlink(listing)
    print("singleuser: %d lesson(s) signed for this user" % len(paths), file=sys.stderr)


listing = os.environ.pop("WORDLAB_SIGN_LIST", "")
if listing:
    sign_lessons(listing)
sys.argv[0] = "jupyterhub-singleuser"
sys.exit(main())
