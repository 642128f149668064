"""test_compare_resume.py: `wordlab -c 'compare ...'` killed with SIGKILL in the middle of a run, then resumed.

A tiny protocol (3 models x 2 seeds, a few steps on the smoke corpus) runs in a subprocess. As soon as
comparison.json holds the two mlp runs (the protocol goes seed by seed: mlp, attention, multihead for seed 11,
then seed 29), the process is stopped (SIGSTOP), the file checked, and the process gets kill -9 while stopped
there, with the attention run of seed 29 in progress. The file
must still be valid JSON with only finished runs; running the same command again keeps them, redoes the rest,
and ends with exactly the results of an uninterrupted run (same seeds, same thread count: bit-identical).
"""
import json
import os
import signal
import subprocess
import time

import pytest


def wordlab():
    exe = os.environ.get('WORDLAB') or os.path.join(os.environ.get('WL_BUILD_DIR', 'build'), 'wordlab')
    assert os.access(exe, os.X_OK), f'{exe} is not built'
    return exe


def script(out):
    return ('stories = corpus profile=smoke\n'
            f'compare $stories dir={out} steps=6 batch=16 eval_every=3 seeds=11,29\n')


def runs_in(path):
    data = json.loads(path.read_text())
    return {kind: [r['seed'] for r in runs] for kind, runs in data['runs'].items()}, data


def stopped(pid):
    """Whether process pid is stopped (state T in /proc/PID/stat)."""
    with open(f'/proc/{pid}/stat') as f:
        return f.read().rsplit(')', 1)[1].split()[0] in ('T', 't')


def test_kill9_then_resume(tmp_path):
    ref_dir, dir_ = tmp_path / 'reference', tmp_path / 'killed'
    done = subprocess.run([wordlab(), '-c', script(ref_dir)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    _, reference = runs_in(ref_dir / 'comparison.json')

    proc = subprocess.Popen([wordlab(), '-c', script(dir_)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    results = dir_ / 'comparison.json'
    deadline = time.monotonic() + 600
    seen = None
    while time.monotonic() < deadline and proc.poll() is None:
        if results.exists():
            try:
                seen, _ = runs_in(results)
            except (ValueError, KeyError):
                pytest.fail('comparison.json was seen half-written')
            if len(seen.get('mlp', [])) == 2:
                os.kill(proc.pid, signal.SIGSTOP)   # from here on its files do not change
                while proc.poll() is None and not stopped(proc.pid):
                    time.sleep(0.001)
                break
        time.sleep(0.001)
    assert proc.poll() is None, 'the protocol finished before it could be stopped: ' + proc.stderr.read().decode()
    seen, _ = runs_in(results)
    assert seen.get('multihead') == [11], f'the last runs finished before the process could be stopped: {seen}'
    os.kill(proc.pid, signal.SIGKILL)   # killed where it was stopped: the attention run of seed 29 in progress
    proc.wait(timeout=60)
    proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL

    after, _ = runs_in(results)   # still valid JSON
    assert after['mlp'] == [11, 29] and after['multihead'] == [11]
    assert after == seen   # what was there when it stopped
    kept = sum(len(v) for v in after.values())
    assert kept in (4, 5)   # the attention run of seed 29 may have been saved just before it stopped
    assert (dir_ / 'mlp_seed11.npz').exists()

    again = subprocess.run([wordlab(), '-c', script(dir_)], capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f'6 of 6 runs done ({kept} kept from before)' in again.stdout, again.stdout[-2000:]
    assert again.stdout.count('already done, kept') == kept

    final, data = runs_in(results)
    assert final == {'mlp': [11, 29], 'attention': [11, 29], 'multihead': [11, 29]}
    for kind in final:
        for got, want in zip(data['runs'][kind], reference['runs'][kind]):
            for field in ('selected_step', 'test_loss', 'validation_loss', 'trace'):
                assert got[field] == want[field], f'{kind} seed {got["seed"]}: {field} differs after resuming'
        assert data['aggregate'][kind]['test_loss'] == reference['aggregate'][kind]['test_loss']
        assert (dir_ / f'{kind}_seed11.npz').exists()
