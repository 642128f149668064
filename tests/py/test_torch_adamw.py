"""test_torch_adamw.py: five training steps of the C runtime (loss, global-norm clipping, AdamW) against PyTorch.

The PyTorch models of test_torch_model.py get PyTorch's default initialisation; their weights and five batches go
to raw little-endian .bin files with a JSON manifest. The C helper nn_adamwcheck (built beside wordlab, found
through WL_BUILD_DIR) runs wl_model_loss, wl_clip_factor and wl_adamw_step five times; PyTorch runs
F.cross_entropy, clip_grad_norm_ and torch.optim.AdamW on the same batches. Three checks:
- the C clipping and AdamW given PyTorch's gradients: every parameter to 1e-5 after five steps;
- the whole C step, each of the five started from PyTorch's parameters and AdamW moments before it: loss,
  gradient norm and every parameter to 1e-5 (except gradients that are rounding noise, see below);
- five whole steps running freely: the losses stay with PyTorch's. Parameters are not compared there: one
  float32 rounding that moves a ReLU input across zero, or a gradient at rounding-noise level that AdamW's
  first steps turn into a full step of lr, changes later steps in any two float32 implementations.
"""
import json
import subprocess

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from test_torch_model import NAMES, AttentionLM, MLPLM, check_helper, make_batch

STEPS = 5


def helper():
    return check_helper('nn_adamwcheck')


def write_case(tmp_path, kind, heads, V, B, lr, wd, clip, seed):
    torch.manual_seed(seed)
    model = MLPLM(V) if kind == 'mlp' else AttentionLM(V, heads)
    assert list(model.state_dict()) == NAMES['mlp' if kind == 'mlp' else 'attention']
    gen = torch.Generator().manual_seed(seed + 1)
    batches = [make_batch(B, V, gen) for _ in range(STEPS)]
    ctx = torch.stack([c for c, _ in batches])   # [steps, B, T]
    tgt = torch.stack([t for _, t in batches])   # [steps, B]
    manifest = dict(kind=kind, heads=heads, V=V, B=B, steps=STEPS, lr=lr, weight_decay=wd, clip=clip)
    (tmp_path / 'manifest.json').write_text(json.dumps(manifest))
    for name, tensor in model.state_dict().items():
        tensor.numpy().astype('<f4').tofile(tmp_path / f'param.{name}.bin')
    ctx.numpy().astype('<i4').tofile(tmp_path / 'ctx.bin')
    tgt.numpy().astype('<i4').tofile(tmp_path / 'tgt.bin')
    return model, ctx, tgt


def torch_steps(model, ctx, tgt, lr, wd, clip, tmp_path):
    """The reference: PyTorch's own loss, clip_grad_norm_ and AdamW (betas 0.9, 0.999, eps 1e-8).
    Writes each step's gradients before clipping to grad.<step>.<name>.bin and the state before each step to
    tf.<step>.{param,m,v}.<name>.bin; returns the losses, the gradient norms, the gradients and the parameters
    after each step."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=wd)
    losses, norms, grads, after = [], [], [], []
    for s in range(STEPS):
        for name, p in model.named_parameters():
            state = opt.state.get(p) or dict(exp_avg=torch.zeros_like(p), exp_avg_sq=torch.zeros_like(p))
            p.detach().numpy().astype('<f4').tofile(tmp_path / f'tf.{s}.param.{name}.bin')
            state['exp_avg'].numpy().astype('<f4').tofile(tmp_path / f'tf.{s}.m.{name}.bin')
            state['exp_avg_sq'].numpy().astype('<f4').tofile(tmp_path / f'tf.{s}.v.{name}.bin')
        opt.zero_grad()
        loss = F.cross_entropy(model(ctx[s].long()), tgt[s].long())
        loss.backward()
        # The exact norm of PyTorch's gradients, in double: clip_grad_norm_'s own float32 reduction can be off
        # by 1e-4 relative on a tensor of a million values, and the C runtime sums in double as SPEC section 4 says.
        norms.append(sum(float((p.grad.double() ** 2).sum()) for p in model.parameters()) ** 0.5)
        grads.append({name: p.grad.numpy().copy() for name, p in model.named_parameters()})
        for name, g in grads[-1].items():
            g.astype('<f4').tofile(tmp_path / f'grad.{s}.{name}.bin')
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        losses.append(loss.item())
        opt.step()
        after.append({name: p.detach().numpy().copy() for name, p in model.named_parameters()})
    return losses, norms, grads, after


def run_helper(tmp_path):
    done = subprocess.run([str(helper()), str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def c_param(tmp_path, name, shape):
    return np.fromfile(tmp_path / f'out.param.{name}.bin', dtype='<f4').reshape(shape)


CASES = [('mlp', 1, 50, 16, 1e-3, 1e-4), ('attention', 1, 50, 16, 3e-3, 1e-3), ('multihead', 4, 50, 16, 3e-3, 1e-3),
         ('mlp', 1, 4000, 8, 1e-3, 1e-4), ('attention', 1, 4000, 8, 3e-3, 1e-3), ('multihead', 4, 4000, 8, 3e-3, 1e-3)]


@pytest.mark.parametrize('kind,heads,V,B,lr,wd', CASES)
@pytest.mark.parametrize('clip', [1.0, 0.05])
def test_clip_and_adamw_alone_match_torch(tmp_path, kind, heads, V, B, lr, wd, clip):
    """PyTorch's gradients given to the C clipping and AdamW: every parameter agrees to 1e-5."""
    torch.set_num_threads(1)
    model, ctx, tgt = write_case(tmp_path, kind, heads, V, B, lr, wd, clip, seed=V + heads)
    manifest = json.loads((tmp_path / 'manifest.json').read_text())
    (tmp_path / 'manifest.json').write_text(json.dumps(dict(manifest, given_grads=True)))
    _, norms, _, _ = torch_steps(model, ctx, tgt, lr, wd, clip, tmp_path)
    run_helper(tmp_path)
    np.testing.assert_allclose(np.fromfile(tmp_path / 'out.norm.bin', dtype='<f8'), norms, rtol=1e-6)
    if clip < 1:
        assert min(norms) > clip, norms   # every step clips
    for name, p in model.named_parameters():
        want = p.detach().numpy()
        diff = float(np.abs(c_param(tmp_path, name, want.shape) - want).max())
        assert diff <= 1e-5, f'{kind} H={heads} V={V} clip={clip}: {name} differs by {diff:.3g}'


@pytest.mark.parametrize('kind,heads,V,B,lr,wd', CASES)
@pytest.mark.parametrize('clip', [1.0, 0.05])
def test_each_training_step_matches_torch(tmp_path, kind, heads, V, B, lr, wd, clip):
    """The whole C step (model loss and gradients, clipping, AdamW) from PyTorch's state before each step.

    Every parameter agrees to 1e-5, except where the two gradients of that parameter disagreed by more than 0.1%
    of their own size: a gradient that is float32 rounding noise (a sum that cancels to almost nothing). Near
    AdamW's eps such a value decides the update by itself, so two float32 implementations (or PyTorch on two
    machines) move that parameter differently. Those few are counted (at most 0.1% of the parameters) and only
    held to the size of one optimizer step."""
    torch.set_num_threads(1)
    model, ctx, tgt = write_case(tmp_path, kind, heads, V, B, lr, wd, clip, seed=V + heads)
    manifest = json.loads((tmp_path / 'manifest.json').read_text())
    (tmp_path / 'manifest.json').write_text(json.dumps(dict(manifest, write_grads=True, teacher_forced=True)))
    losses, norms, grads, after = torch_steps(model, ctx, tgt, lr, wd, clip, tmp_path)
    run_helper(tmp_path)
    np.testing.assert_allclose(np.fromfile(tmp_path / 'out.loss.bin', dtype='<f8'), losses, rtol=1e-5,
                               err_msg='batch losses differ')
    np.testing.assert_allclose(np.fromfile(tmp_path / 'out.norm.bin', dtype='<f8'), norms, rtol=1e-5,
                               err_msg='gradient norms before clipping differ')
    if clip < 1:
        assert min(norms) > clip, norms   # every step clips
    report, noisy_total, total = [], 0, 0
    for s in range(STEPS):
        for name, want in after[s].items():
            got = np.fromfile(tmp_path / f'out.param.{s}.{name}.bin', dtype='<f4').reshape(want.shape)
            c_grad = np.fromfile(tmp_path / f'out.grad.{s}.{name}.bin', dtype='<f4').reshape(want.shape)
            noisy = np.abs(c_grad - grads[s][name]) > 1e-3 * np.abs(grads[s][name])
            diff = np.abs(got - want)
            clean, worst_noisy = float(np.where(noisy, 0, diff).max()), float(np.where(noisy, diff, 0).max())
            noisy_total += int(noisy.sum())
            total += want.size
            report.append(f'step {s + 1} {name}: max diff {clean:.3g}; {int(noisy.sum())} noise-level gradients, '
                          f'max diff {worst_noisy:.3g}')
            assert clean <= 1e-5, f'{kind} H={heads} V={V} clip={clip}: parameters differ\n' + '\n'.join(report)
            assert worst_noisy <= 2 * lr, report[-1]
    assert noisy_total <= 1e-3 * total, f'too many noise-level gradients to be rounding: {noisy_total} of {total}'
    print('\n'.join(report))


@pytest.mark.parametrize('kind,heads,V,B,lr,wd', CASES)
@pytest.mark.parametrize('clip', [1.0, 0.05])
def test_five_free_running_steps_track_torch(tmp_path, kind, heads, V, B, lr, wd, clip):
    """Five whole C steps on their own: the first loss and gradient norm to 1e-5 (same start), every loss to 1e-3."""
    torch.set_num_threads(1)
    model, ctx, tgt = write_case(tmp_path, kind, heads, V, B, lr, wd, clip, seed=V + heads)
    losses, norms, _, _ = torch_steps(model, ctx, tgt, lr, wd, clip, tmp_path)
    run_helper(tmp_path)
    c_losses = np.fromfile(tmp_path / 'out.loss.bin', dtype='<f8')
    c_norms = np.fromfile(tmp_path / 'out.norm.bin', dtype='<f8')
    np.testing.assert_allclose(c_losses[0], losses[0], rtol=1e-5)
    np.testing.assert_allclose(c_norms[0], norms[0], rtol=1e-5)
    np.testing.assert_allclose(c_losses, losses, rtol=1e-3, err_msg='the free-running losses drift apart')


def test_helper_rejects_a_bad_manifest(tmp_path):
    (tmp_path / 'manifest.json').write_text(json.dumps(dict(kind='mlp', heads=1, V=50, B=2)))
    done = subprocess.run([str(helper()), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and 'needs kind, heads, V, B, steps' in done.stderr
