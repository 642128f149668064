"""test_setup_deps.py: scripts/setup-deps.sh picks the package names of the Debian release it runs on.

/etc/debian_version is stood in for by WL_DEBIAN_VERSION, and WL_SETUP_DEPS_PRINT=1 prints the release's packages
instead of installing anything, so every row of the table is checked on any machine.
"""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, 'scripts', 'setup-deps.sh')


def release_packages(version):
    env = dict(os.environ, WL_DEBIAN_VERSION=version, WL_SETUP_DEPS_PRINT='1')
    return subprocess.run(['bash', SCRIPT], env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize('version', ['12.11', '12.0', 'bookworm/sid'])
def test_debian_12_gets_clang_14_and_xeus_2(version):
    done = release_packages(version)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ['libclang-rt-14-dev', 'xeus-dev']


@pytest.mark.parametrize('version', ['13.1', '13.0', 'trixie/sid'])
def test_debian_13_gets_clang_19_and_xeus_5_with_xeus_zmq(version):
    done = release_packages(version)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ['libclang-rt-19-dev', 'xeus-dev', 'xeus-zmq-dev']


@pytest.mark.parametrize('version', ['11.9', 'forky/sid', 'none'])
def test_another_release_is_refused_by_name(version):
    done = release_packages(version)
    assert done.returncode != 0
    assert f"says '{version}'" in done.stderr and 'Debian 12 (bookworm) and 13 (trixie)' in done.stderr
    assert done.stdout == ''
