"""test_notebooks.py: every committed lesson notebook runs top to bottom, headless, on the wordlab kernel through nbclient."""
import os

import nbformat
import pytest
from nbclient import NotebookClient

import kernel_util  # noqa: F401  (installs the kernel spec of the built wordlab into a temporary JUPYTER_PATH)

SRC = os.environ.get("WL_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
NOTEBOOKS = sorted(f for f in os.listdir(os.path.join(SRC, "notebooks")) if f.endswith(".ipynb"))


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 4, NOTEBOOKS


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_executes(name, tmp_path):
    path = os.path.join(SRC, "notebooks", name)
    committed = nbformat.read(path, as_version=4)
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    # The notebook's own kernelspec names the kernel; it runs in a scratch directory like a user's.
    assert nb.metadata.kernelspec.name == "wordlab"
    NotebookClient(nb, timeout=600, resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    old = [c for c in committed.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    for new, before in zip(code, old):
        assert not [o for o in new.outputs if o.output_type == "error"]
        # the kernel shows the same kinds of output, with the same rich forms, as the committed run
        kinds = sorted({(o.output_type, tuple(sorted(o.get("data", {})))) for o in new.outputs})
        kinds_before = sorted({(o.output_type, tuple(sorted(o.get("data", {})))) for o in before.outputs})
        assert kinds == kinds_before, (before.source, kinds, kinds_before)
