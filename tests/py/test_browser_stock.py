"""test_browser_stock.py: a stock JupyterLab 4 (a second environment from lab/requirements.txt) where only
`wordlab install-kernel --prefix` was done: highlighted cells, and tables and pictures after Run All, never JSON
trees (tests/browser/stock.sh; screenshots in build/browser-stock/)."""
from test_browser_lab import run_browser_test


def test_a_stock_jupyterlab_shows_tables_and_pictures():
    out, shots = run_browser_test("stock.sh", "browser-stock")
    assert "stock.mjs: all checks passed" in out, out[-4000:]
    assert shots == ["01-stock-table.png", "02-stock-picture.png"], shots
