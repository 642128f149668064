"""test_torch_model.py: the C models against PyTorch with identical weights and batch: logits, loss, gradients, details.

A PyTorch model per kind (the same math as SPEC section 3, written here) gets PyTorch's default initialisation;
its weights and a batch go to raw little-endian .bin files with a JSON manifest, the C helper nn_torchcheck
(built beside wordlab, found through WL_BUILD_DIR) runs forward, loss with backward and forward_details on them,
and the outputs are compared tensor by tensor.
"""
import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn import functional as F

T, D, HIDDEN, PAD = 64, 64, 256, 0


class MLPLM(nn.Module):
    def __init__(self, V):
        super().__init__()
        self.token_embedding = nn.Embedding(V, D, padding_idx=PAD)
        self.hidden_layer = nn.Linear(T * D, HIDDEN)
        self.vocab_head = nn.Linear(HIDDEN, V)

    def forward(self, ids):
        x = self.token_embedding(ids).reshape(ids.shape[0], T * D)
        return self.vocab_head(F.relu(self.hidden_layer(x)))


class AttentionLM(nn.Module):
    def __init__(self, V, heads):
        super().__init__()
        self.heads, self.width = heads, D // heads
        self.token_embedding = nn.Embedding(V, D, padding_idx=PAD)
        self.position_embedding = nn.Embedding(T, D)
        self.W_Q, self.W_K, self.W_V, self.W_O = (nn.Linear(D, D, bias=False) for _ in range(4))
        self.hidden_layer = nn.Linear(D, HIDDEN)
        self.vocab_head = nn.Linear(HIDDEN, V)

    def embed(self, ids):
        return self.token_embedding(ids) + self.position_embedding(torch.arange(T))[None]

    def split(self, rows):
        return rows.reshape(rows.shape[0], rows.shape[1], self.heads, self.width).transpose(1, 2)

    def predict(self, contextual):
        return self.vocab_head(F.relu(self.hidden_layer(contextual)))

    def forward(self, ids):
        E = self.embed(ids)
        Q = self.split(self.W_Q(E[:, -1:]))
        K, V = self.split(self.W_K(E)), self.split(self.W_V(E))
        scores = Q @ K.transpose(-2, -1) / math.sqrt(self.width)
        A = F.softmax(scores.masked_fill(ids.eq(PAD)[:, None, None, :], float('-inf')), dim=-1)
        message = (A @ V).transpose(1, 2).reshape(ids.shape[0], D)
        return self.predict(E[:, -1] + self.W_O(message))

    def details(self, ids):
        E = self.embed(ids)
        Q, K, V = (self.split(layer(E)) for layer in (self.W_Q, self.W_K, self.W_V))
        scores = Q @ K.transpose(-2, -1) / math.sqrt(self.width)
        future = torch.ones(T, T, dtype=torch.bool).triu(1)
        real = ids.ne(PAD)
        mask = future[None] | ((~real[:, None, :]) & real[:, :, None])
        scores = scores.masked_fill(mask[:, None], float('-inf'))
        A = F.softmax(scores, dim=-1)
        messages = (A @ V).transpose(1, 2).reshape(ids.shape[0], T, D)
        contextual = E + self.W_O(messages)
        logits_all = self.predict(contextual)
        return dict(E=E, Q=Q, K=K, V=V, scores=scores, weights=A, messages=messages, contextual=contextual,
                    logits_all=logits_all, logits=logits_all[:, -1])


NAMES = {
    'mlp': ['token_embedding.weight', 'hidden_layer.weight', 'hidden_layer.bias', 'vocab_head.weight',
            'vocab_head.bias'],
    'attention': ['token_embedding.weight', 'position_embedding.weight', 'W_Q.weight', 'W_K.weight', 'W_V.weight',
                  'W_O.weight', 'hidden_layer.weight', 'hidden_layer.bias', 'vocab_head.weight', 'vocab_head.bias'],
}


def check_helper(name):
    """The C check helper `name` in WL_BUILD_DIR (nn_torchcheck here, nn_adamwcheck for test_torch_adamw.py)."""
    build = os.environ.get('WL_BUILD_DIR')
    assert build, f'WL_BUILD_DIR must name the build directory that holds {name}'
    exe = Path(build) / name
    assert exe.exists(), f'{exe} is not built (cmake --build {build} --target {name})'
    return exe


def helper():
    return check_helper('nn_torchcheck')


def make_batch(B, V, gen):
    """Windows as the corpus makes them: left padding of any length, a real token in the last slot."""
    ctx = torch.randint(1, V, (B, T), generator=gen, dtype=torch.int32)
    pads = torch.randint(0, T, (B,), generator=gen)
    pads[0], pads[-1] = 0, T - 1   # a full context and a context of one real token
    for b in range(B):
        ctx[b, :pads[b]] = PAD
    tgt = torch.randint(0, V, (B,), generator=gen, dtype=torch.int32)
    return ctx, tgt


def run_case(tmp_path, kind, heads, V, B, seed):
    torch.manual_seed(seed)
    model = MLPLM(V) if kind == 'mlp' else AttentionLM(V, heads)
    state = model.state_dict()
    assert list(state) == NAMES['mlp' if kind == 'mlp' else 'attention']
    gen = torch.Generator().manual_seed(seed + 1)
    ctx, tgt = make_batch(B, V, gen)
    (tmp_path / 'manifest.json').write_text(json.dumps(dict(kind=kind, heads=heads, V=V, B=B)))
    for name, tensor in state.items():
        tensor.numpy().astype('<f4').tofile(tmp_path / f'param.{name}.bin')
    ctx.numpy().astype('<i4').tofile(tmp_path / 'ctx.bin')
    tgt.numpy().astype('<i4').tofile(tmp_path / 'tgt.bin')
    done = subprocess.run([str(helper()), str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr

    def out(name, shape):
        return np.fromfile(tmp_path / f'out.{name}.bin', dtype='<f4').reshape(shape)

    logits = model(ctx.long())
    diff = np.abs(out('logits', (B, V)) - logits.detach().numpy()).max()
    assert diff <= 1e-4, f'{kind} H={heads} V={V}: logits differ by {diff:.3g}'

    loss = F.cross_entropy(logits, tgt.long())
    loss.backward()
    c_loss = float(np.fromfile(tmp_path / 'out.loss.bin', dtype='<f8')[0])
    assert abs(c_loss - loss.item()) <= 1e-5 * abs(loss.item()), (c_loss, loss.item())
    report = []
    for name, p in model.named_parameters():
        ref = p.grad.numpy()
        got = out(f'grad.{name}', ref.shape)
        scale = float(np.abs(ref).max())
        rel = float(np.abs(got - ref).max()) / scale
        report.append(f'{name}: max|g| {scale:.3g}, rel diff {rel:.2g}')
        assert scale > 0, f'{name}: the reference gradient is zero, the check would be empty'
        assert rel <= 1e-4, f'{kind} H={heads} V={V} gradient of ' + '\n'.join(report)
    assert not out('grad.token_embedding.weight', (V, D))[PAD].any(), 'the PAD row received gradient'

    with torch.no_grad():
        ref_logits = model(ctx.long()).numpy()
        if kind == 'mlp':
            diff = np.abs(out('details.logits', (B, V)) - ref_logits).max()
            assert diff <= 1e-4
            return report
        ref = model.details(ctx.long())
    d = D // heads
    shapes = dict(E=(B, T, D), Q=(B, heads, T, d), K=(B, heads, T, d), V=(B, heads, T, d),
                  scores=(B, heads, T, T), weights=(B, heads, T, T), messages=(B, T, D), contextual=(B, T, D),
                  logits_all=(B, T, V), logits=(B, V))
    for name, shape in shapes.items():
        got, want = out(f'details.{name}', shape), ref[name].numpy()
        masked = np.isneginf(want)
        assert (np.isneginf(got) == masked).all(), f'details {name}: masked entries differ'
        diff = np.abs(np.where(masked, 0, got) - np.where(masked, 0, want)).max()
        assert diff <= 1e-4, f'{kind} H={heads} V={V}: details {name} differs by {diff:.3g}'
    diff = np.abs(out('details.logits', (B, V)) - ref_logits).max()
    assert diff <= 1e-4, f'details logits differ from the PyTorch forward by {diff:.3g}'
    return report


CASES = [('mlp', 1, 50, 16), ('attention', 1, 50, 16), ('multihead', 4, 50, 16), ('multihead', 16, 50, 16),
         ('mlp', 1, 4000, 8), ('attention', 1, 4000, 8), ('multihead', 4, 4000, 8)]


@pytest.mark.parametrize('kind,heads,V,B', CASES)
def test_against_torch(tmp_path, kind, heads, V, B):
    torch.set_num_threads(1)
    report = run_case(tmp_path, kind, heads, V, B, seed=V + heads)
    print('\n'.join(report))


def test_helper_rejects_a_short_weight_file(tmp_path):
    torch.manual_seed(0)
    model = AttentionLM(50, 4)
    (tmp_path / 'manifest.json').write_text(json.dumps(dict(kind='multihead', heads=4, V=50, B=2)))
    for name, tensor in model.state_dict().items():
        tensor.numpy().astype('<f4').tofile(tmp_path / f'param.{name}.bin')
    model.W_K.weight.detach().numpy()[:10].astype('<f4').tofile(tmp_path / 'param.W_K.weight.bin')
    done = subprocess.run([str(helper()), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and 'param.W_K.weight.bin: 2560 bytes, expected 16384' in done.stderr
