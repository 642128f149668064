"""bench_nn.py: the models' speed against PyTorch, measured in the same run: ratios, targets and GFLOP/s.

Measures, at V = 4000, context 64: the training step (forward + backward of the mean cross-entropy at batch 512)
for mlp, attention and multihead (4 heads); the one-context forward (the generation call); forward_details of one
context with every output materialised; evaluation throughput (the mean loss of a batch of 512 without gradients,
examples/s). Each figure is the fastest of repeated runs, on both sides, over ROUNDS rounds that alternate the
two programs (this machine's speed drifts by 10-20% over minutes; alternating lets both sides see the same spells).
The reference is PyTorch at its best on this machine: 2 threads, OMP_WAIT_POLICY=passive and glibc's malloc
settings below, run in a subprocess. wordlab's figures come from the nn_bench program in WL_BUILD_DIR.
GFLOP/s counts the work the way PyTorch does it (the final-row forward of the lesson's code, backward = 2x
forward), for both columns, so the figure is the effective rate.
Usage: WL_BUILD_DIR=build /usr/bin/python3 tests/bench/bench_nn.py
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

V, B, T, D, F = 4000, 512, 64, 64, 256
KINDS = ['mlp', 'attention', 'multihead']
REF_ENV = {'OMP_WAIT_POLICY': 'passive', 'MALLOC_MMAP_THRESHOLD_': '33554432',
           'MALLOC_TRIM_THRESHOLD_': '1073741824', 'MALLOC_TOP_PAD_': '268435456'}
REF_THREADS = 2
ROUNDS = 3
# nn_bench's metric -> the target ratio wordlab / PyTorch per model (None: reported, no target)
TARGETS = {
    'train_step_ms': {'mlp': 0.8, 'attention': 0.5, 'multihead': 0.5},
    'forward_one_ms': {'mlp': None, 'attention': 0.25, 'multihead': 0.25},
    'details_one_ms': {'mlp': None, 'attention': 0.8, 'multihead': 0.8},
    'eval_batch_ms': {'mlp': None, 'attention': 0.5, 'multihead': 0.5},
}


def forward_flops(kind, rows=1):
    """Multiply-adds x 2 of one example's final-row forward as the lesson's PyTorch code computes it."""
    if kind == 'mlp':
        return 2 * (T * D * F + F * V)
    return 2 * (D * D + 2 * T * D * D + 2 * T * D + D * D + D * F + F * V)


def details_flops(kind):
    if kind == 'mlp':
        return forward_flops(kind)
    return 2 * T * (4 * D * D + 2 * T * D + D * F + F * V)


def flops(metric, kind):
    return {'train_step_ms': 3 * B * forward_flops(kind), 'forward_one_ms': forward_flops(kind),
            'details_one_ms': details_flops(kind), 'eval_batch_ms': B * forward_flops(kind)}[metric]


def best_ms(fn, reps, warm=3):
    """The fastest of reps timed calls: other load on the machine only ever adds time."""
    for _ in range(warm):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1e3


def reference():
    """Runs inside the subprocess: PyTorch timings as JSON on stdout."""
    import torch
    from torch.nn import functional as F_
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / 'py'))
    from test_torch_model import MLPLM, AttentionLM, make_batch
    torch.set_num_threads(REF_THREADS)
    out = {'torch': torch.__version__, 'threads': torch.get_num_threads()}
    gen = torch.Generator().manual_seed(2024)
    ctx, tgt = make_batch(B, V, gen)
    ctx, tgt = ctx.long(), tgt.long()
    one = ctx[1:2]
    for kind in KINDS:
        torch.manual_seed(11)
        model = MLPLM(V) if kind == 'mlp' else AttentionLM(V, 4 if kind == 'multihead' else 1)

        def step():
            model.zero_grad(set_to_none=True)
            F_.cross_entropy(model(ctx), tgt).backward()

        res = {'train_step_ms': best_ms(step, 40)}
        with torch.inference_mode():
            res['forward_one_ms'] = best_ms(lambda: model(one), 1000)
            details = (lambda: model(one)) if kind == 'mlp' else (lambda: model.details(one))
            res['details_one_ms'] = best_ms(details, 400)
            res['eval_batch_ms'] = best_ms(lambda: F_.cross_entropy(model(ctx), tgt), 40)
        out[kind] = res
    print(json.dumps(out))


def fastest(runs):
    """The first run's figures with each time replaced by the fastest of all runs."""
    best = runs[0]
    for kind in KINDS:
        for metric in TARGETS:
            best[kind][metric] = min(r[kind][metric] for r in runs)
    return best


def main():
    build = Path(os.environ.get('WL_BUILD_DIR', sys.argv[1] if len(sys.argv) > 1 else 'build'))
    exe = build / 'nn_bench'
    if not exe.exists():
        print(f'{exe} is not built (cmake --build {build} --target nn_bench)')
        return 1
    env = dict(os.environ, **REF_ENV)
    print('PyTorch reference: torch.set_num_threads(%d), %s' % (REF_THREADS,
          ' '.join(f'{k}={v}' for k, v in REF_ENV.items())))
    refs, ourss = [], []
    for _ in range(ROUNDS):
        refs.append(json.loads(subprocess.run([sys.executable, __file__, '--reference'], env=env, check=True,
                                              capture_output=True, text=True).stdout))
        ourss.append(json.loads(subprocess.run([str(exe), str(V), str(B)], check=True, capture_output=True,
                                               text=True).stdout))
    ref, ours = fastest(refs), fastest(ourss)
    print(f"torch {ref['torch']} ({ref['threads']} threads); wordlab {exe} (OpenBLAS, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'default')}); V={V}, B={B}, T={T}; "
          f"fastest of {ROUNDS} alternating rounds")
    print(f"{'metric':<16}{'model':<11}{'PyTorch':>11}{'wordlab':>11}{'ratio':>8}{'target':>8}  "
          f"{'GFLOP/s torch':>13}{'wordlab':>9}  ok")
    failed = 0
    for metric, targets in TARGETS.items():
        for kind in KINDS:
            r, o = ref[kind][metric], ours[kind][metric]
            ratio, target = o / r, targets[kind]
            ok = '-' if target is None else ('yes' if ratio <= target else 'NO')
            failed += ok == 'NO'
            gf = flops(metric, kind) / 1e9
            print(f"{metric:<16}{kind:<11}{r:>9.3f}ms{o:>9.3f}ms{ratio:>8.3f}{'' if target is None else target:>8}  "
                  f"{gf / r * 1e3:>13.1f}{gf / o * 1e3:>9.1f}  {ok}")
    print('evaluation throughput (examples/s, batch %d):' % B)
    for kind in KINDS:
        r, o = B / ref[kind]['eval_batch_ms'] * 1e3, B / ours[kind]['eval_batch_ms'] * 1e3
        print(f"  {kind:<10} PyTorch {r:>9.0f}  wordlab {o:>9.0f}  ({o / r:.2f}x)")
    print('all targets met' if not failed else f'{failed} target(s) missed')
    return 1 if failed else 0


if __name__ == '__main__':
    if '--reference' in sys.argv:
        reference()
    else:
        sys.exit(main())
