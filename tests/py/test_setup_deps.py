"""test_setup_deps.py: scripts/setup-deps.sh picks the package names of the Debian release it runs on, and its
`notebook` mode (make notebook) only the packages that serving the lessons needs.

/etc/debian_version is stood in for by WL_DEBIAN_VERSION, and WL_SETUP_DEPS_PRINT=1 prints the packages chosen
instead of installing anything, so every row of the table is checked on any machine.
"""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, 'scripts', 'setup-deps.sh')
RELEASES = {
    '12': (['libclang-rt-14-dev', 'xeus-dev'], ['libclang-rt-19-dev', 'xeus-zmq-dev']),
    '13': (['libclang-rt-19-dev', 'xeus-dev', 'xeus-zmq-dev'], ['libclang-rt-14-dev']),
}
# What only the tests, the demo and the classroom need: make notebook installs none of it.
TEST_ONLY = ['clang', 'python3-torch', 'chromium', 'emscripten', 'xeus-dev', 'valgrind']


def chosen(version, *args):
    env = dict(os.environ, WL_DEBIAN_VERSION=version, WL_SETUP_DEPS_PRINT='1')
    return subprocess.run(['bash', SCRIPT, *args], env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize('version,release', [('12.11', '12'), ('12.0', '12'), ('bookworm/sid', '12'),
                                             ('13.1', '13'), ('13.0', '13'), ('trixie/sid', '13')])
def test_each_release_gets_its_own_package_names(version, release):
    done = chosen(version)
    assert done.returncode == 0, done.stderr
    packages = done.stdout.split()
    ours, others = RELEASES[release]
    assert all(p in packages for p in ours), (ours, packages)
    assert not any(p in packages for p in others), (others, packages)
    assert all(p in packages for p in TEST_ONLY)


@pytest.mark.parametrize('version', ['12.11', '13.1'])
def test_notebook_mode_leaves_out_what_only_the_tests_need(version):
    done = chosen(version, 'notebook')
    assert done.returncode == 0, done.stderr
    packages = done.stdout.split()
    assert 'cmake' in packages and 'python3-venv' in packages and 'libopenblas-dev' in packages
    assert [p for p in packages if p in TEST_ONLY or p.startswith('libclang-rt-')] == []


@pytest.mark.parametrize('version', ['11.9', 'forky/sid', 'none'])
@pytest.mark.parametrize('mode', [[], ['notebook']])
def test_another_release_is_refused_by_name(version, mode):
    done = chosen(version, *mode)
    assert done.returncode != 0
    assert f"says '{version}'" in done.stderr and 'Debian 12 (bookworm) and 13 (trixie)' in done.stderr
    assert done.stdout == ''
