"""test_checkpoint_numpy.py: checkpoints cross NumPy and PyTorch both ways.

A PyTorch model's state_dict goes into an .npz written by numpy.savez_compressed (or savez) with state__<name>
arrays and a metadata_json string; the C helper nn_adamwcheck loads it with wl_checkpoint_load, trains five steps
and saves the result with wl_checkpoint_save; numpy.load reads that file and PyTorch's load_state_dict(strict=True)
takes it. Bad files written by NumPy must fail with a message that names the array.
"""
import json
import subprocess

import numpy as np
import pytest
import torch

from test_torch_adamw import helper, write_case
from test_torch_model import NAMES

META_KEYS = {'kind', 'heads', 'seed', 'selected_step', 'test_loss', 'vocab_size'}


def save_npz(path, state, meta, compressed=True):
    arrays = {f'state__{k}': v for k, v in state.items()}
    arrays['metadata_json'] = np.array(json.dumps(meta))
    (np.savez_compressed if compressed else np.savez)(path, **arrays)


def torch_state(model):
    return {k: v.detach().numpy().astype('<f4') for k, v in model.state_dict().items()}


def run(tmp_path, **extra):
    manifest = json.loads((tmp_path / 'manifest.json').read_text())
    (tmp_path / 'manifest.json').write_text(json.dumps(dict(manifest, **extra)))
    return subprocess.run([str(helper()), str(tmp_path)], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize('kind,heads', [('mlp', 1), ('attention', 1), ('multihead', 4)])
@pytest.mark.parametrize('compressed', [True, False])
def test_numpy_checkpoint_in_torch_checkpoint_out(tmp_path, kind, heads, compressed):
    V = 60
    model, _, _ = write_case(tmp_path, kind, heads, V, 8, 3e-3, 1e-3, 1.0, seed=5)
    meta = dict(kind=kind, heads=heads, seed=5, selected_step=0, test_loss=None, vocab_size=V)
    save_npz(tmp_path / 'start.npz', torch_state(model), meta, compressed)
    # The .bin weights are replaced by zeros: the start must come from the checkpoint.
    for name in model.state_dict():
        (tmp_path / f'param.{name}.bin').write_bytes(b'')
    done = run(tmp_path, load='start.npz', save='end.npz')
    assert done.returncode == 0, done.stderr

    with np.load(tmp_path / 'end.npz') as z:
        names = list(z.keys())
        names_want = [f'state__{n}' for n in NAMES['mlp' if kind == 'mlp' else 'attention']] + ['metadata_json']
        assert names == names_want
        meta_out = json.loads(str(z['metadata_json']))
        assert z['metadata_json'].dtype.kind == 'U' and z['metadata_json'].shape == ()
        state = {n[len('state__'):]: z[n] for n in names if n.startswith('state__')}
    assert META_KEYS <= set(meta_out), meta_out
    assert meta_out['kind'] == kind and meta_out['heads'] == heads and meta_out['vocab_size'] == V
    assert meta_out['selected_step'] == 5 and meta_out['source'] == 'nn_adamwcheck'
    for name, arr in state.items():
        assert arr.dtype == np.float32, name
        got = np.fromfile(tmp_path / f'out.param.{name}.bin', dtype='<f4').reshape(arr.shape)
        assert np.array_equal(arr, got), f'{name}: the checkpoint does not hold the trained parameters'

    fresh = type(model)(V) if kind == 'mlp' else type(model)(V, heads)
    fresh.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()}, strict=True)
    ids = torch.randint(1, V, (2, 64))
    assert torch.isfinite(fresh(ids)).all()
    # Five steps moved every parameter tensor away from the start.
    start = torch_state(model)
    for name in state:
        assert not np.array_equal(state[name], start[name]), f'{name} did not change'


def bad_case(tmp_path, edit):
    model, _, _ = write_case(tmp_path, 'attention', 1, 60, 8, 3e-3, 1e-3, 1.0, seed=5)
    state = torch_state(model)
    meta = dict(kind='attention', heads=1, seed=5, selected_step=0, test_loss=None, vocab_size=60)
    edit(state, meta)
    save_npz(tmp_path / 'bad.npz', state, meta)
    done = run(tmp_path, load='bad.npz')
    assert done.returncode == 1
    return done.stderr


def test_wrong_shape_names_the_array(tmp_path):
    def edit(state, meta):
        state['W_V.weight'] = state['W_V.weight'][:, :32].copy()
    err = bad_case(tmp_path, edit)
    assert 'state__W_V.weight' in err and 'shape' in err and 'bad.npz' in err, err


def test_wrong_dtype_names_the_array(tmp_path):
    def edit(state, meta):
        state['hidden_layer.bias'] = state['hidden_layer.bias'].astype(np.float64)
    err = bad_case(tmp_path, edit)
    assert 'state__hidden_layer.bias' in err and '<f8' in err, err


def test_missing_and_extra_arrays_are_named(tmp_path):
    def drop(state, meta):
        del state['W_O.weight']
    assert 'state__W_O.weight' in bad_case(tmp_path, drop)

    def extra(state, meta):
        state['W_O.bias'] = np.zeros(64, dtype='<f4')
    err = bad_case(tmp_path, extra)
    assert 'state__W_O.bias' in err and 'unexpected' in err, err


def test_vocabulary_of_another_size_is_refused(tmp_path):
    model, _, _ = write_case(tmp_path, 'attention', 1, 60, 8, 3e-3, 1e-3, 1.0, seed=5)
    torch.manual_seed(1)
    bigger = type(model)(70, 1)
    save_npz(tmp_path / 'big.npz', torch_state(bigger), dict(kind='attention', heads=1, vocab_size=70))
    done = run(tmp_path, load='big.npz')
    assert done.returncode == 1 and 'state__token_embedding.weight' in done.stderr and '70' in done.stderr, done.stderr


def test_truncated_file_gives_the_offset(tmp_path):
    model, _, _ = write_case(tmp_path, 'mlp', 1, 60, 8, 1e-3, 1e-4, 1.0, seed=5)
    save_npz(tmp_path / 'whole.npz', torch_state(model), dict(kind='mlp', heads=1, vocab_size=60))
    data = (tmp_path / 'whole.npz').read_bytes()
    (tmp_path / 'cut.npz').write_bytes(data[:len(data) // 2])
    done = run(tmp_path, load='cut.npz')
    assert done.returncode == 1 and 'cut.npz' in done.stderr and ('truncated' in done.stderr or 'offset' in done.stderr)
    (tmp_path / 'text.npz').write_text('not a zip archive at all, just some words in a file\n' * 3)
    done = run(tmp_path, load='text.npz')
    assert done.returncode == 1 and 'text.npz' in done.stderr and 'ZIP' in done.stderr, done.stderr


def test_wordlab_checkpoint_carries_its_vocabulary(tmp_path):
    """`model save` puts the vocabulary into metadata_json; NumPy and PyTorch read the file as before, and
    `model load PATH` alone reads text with it."""
    import os
    from test_torch_model import AttentionLM
    wordlab = os.environ['WORDLAB']
    code = ('stories = corpus profile=smoke\nm = model new kind=multihead heads=4 vocab=$stories.vocab seed=3\n'
            f'model save $m {tmp_path}/m.npz\nvocab $stories save={tmp_path}/v.json')
    done = subprocess.run([wordlab, '-c', code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    itos = json.loads((tmp_path / 'v.json').read_text())['itos']
    with np.load(tmp_path / 'm.npz') as z:
        names = list(z.keys())
        assert names == [f'state__{n}' for n in NAMES['attention']] + ['metadata_json']
        meta = json.loads(str(z['metadata_json']))
        state = {n[len('state__'):]: torch.from_numpy(z[n]) for n in names if n.startswith('state__')}
    assert META_KEYS <= set(meta) and meta['vocab']['itos'] == itos and meta['vocab_size'] == len(itos)
    AttentionLM(len(itos), 4).load_state_dict(state, strict=True)
    done = subprocess.run([wordlab, '-c', f'm = model load {tmp_path}/m.npz\nmodel info $m\n'
                           'generate $m "a little dog" tokens=3\nd = details $m "a little dog"\nheads $d'],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert 'vocabulary attached (its metadata)' in done.stdout and 'little' in done.stdout


def test_a_bad_vocabulary_in_the_metadata_is_an_error(tmp_path):
    import os
    wordlab = os.environ['WORDLAB']
    done = subprocess.run([wordlab, '-c', 'stories = corpus profile=smoke\nm = model new kind=mlp vocab=$stories.vocab seed=3\n'
                           f'model save $m {tmp_path}/m.npz'], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with np.load(tmp_path / 'm.npz') as z:
        arrays = {k: z[k] for k in z.keys()}
    meta = json.loads(str(arrays['metadata_json']))
    for bad, says in (({'itos': ['<PAD>', '<BOS>', '<EOS>', '<UNK>', 'dog']}, 'has 5 tokens'),
                      ({'itos': ['dog']}, 'fewer than the 4 special tokens')):
        arrays['metadata_json'] = np.array(json.dumps(dict(meta, vocab=bad)))
        np.savez(tmp_path / 'bad.npz', **arrays)
        done = subprocess.run([wordlab, '-c', f'model load {tmp_path}/bad.npz'], capture_output=True, text=True, timeout=300)
        assert done.returncode == 1 and 'bad.npz: metadata_json\'s "vocab"' in done.stderr and says in done.stderr, done.stderr
