"""conftest.py: fixtures shared by the pytest suites in tests/py."""
import pytest


@pytest.fixture(scope="module")
def kernel():
    """A started wordlab kernel and its ready client, one per test module (kernel_util imported only when used)."""
    import kernel_util as ku
    km, kc = ku.start()
    yield km, kc
    ku.stop(km, kc)
