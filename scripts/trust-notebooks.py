"""trust-notebooks.py: signs notebooks for the user who runs it (nbformat's notary: the secret and the signature
database in Jupyter's data directory), so that JupyterLab and Notebook show their saved HTML and SVG outputs.

The files are not changed: only their signatures are recorded. Run with /usr/bin/python3 (Debian's nbformat).
usage: trust-notebooks.py NOTEBOOK.ipynb...
"""
import sys

import nbformat
from nbformat.sign import NotebookNotary


def main(paths):
    if not paths:
        sys.exit("usage: trust-notebooks.py NOTEBOOK.ipynb...")
    notary = NotebookNotary()
    for path in paths:
        try:
            nb = nbformat.read(path, as_version=4)
        except (OSError, ValueError) as e:
            sys.exit(f"trust-notebooks: {path}: {e}")
        notary.sign(nb)
        if not notary.check_signature(nb):
            sys.exit(f"trust-notebooks: {path}: the signature did not take ({notary.db_file})")
    print(f"trusted {len(paths)} notebook(s) for this user ({notary.db_file})")


if __name__ == "__main__":
    main(sys.argv[1:])
