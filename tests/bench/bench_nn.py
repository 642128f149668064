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

The machine is named (CPU model and the instruction sets that matter), and in every round the matrix-multiply
rate of the machine is measured on the six products of the mlp's training step: OpenBLAS's cblas_sgemm
(`nn_bench sgemm`) under every OPENBLAS_CORETYPE the CPU can run (OpenBLAS 0.3.21 does not know every CPU: on a
Zen 5 under KVM its own choice alternates between its AVX2 and AVX-512 kernels, 2.5x apart) and PyTorch's
torch.mm; the fastest time of each product over all of them gives "the sgemm rate". Every GFLOP/s figure is
also printed as a percentage of it; the mlp's training step must reach 85% of it (it is nothing but those six
products and a little elementwise work), and the attention models' training steps 0.5x PyTorch's time.
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
    'train_step_ms': {'mlp': None, 'attention': 0.5, 'multihead': 0.5},
    'forward_one_ms': {'mlp': None, 'attention': 0.25, 'multihead': 0.25},
    'details_one_ms': {'mlp': None, 'attention': 0.8, 'multihead': 0.8},
    'eval_batch_ms': {'mlp': None, 'attention': 0.5, 'multihead': 0.5},
}


MLP_SGEMM_TARGET = 0.85   # the mlp's training step, GFLOP/s over the sgemm rate on its own shapes
# The products of the mlp's training step (as nn_bench sgemm times them): C[M,N] = op(A) op(B), A/B transposed.
SGEMM_SHAPES = [(B, F, T * D, 0, 1), (V, B, F, 0, 1), (V, F, B, 0, 0), (B, F, V, 1, 0), (F, T * D, B, 1, 0),
                (B, T * D, F, 0, 0)]
CPU_FLAGS = ['sse4_2', 'avx', 'avx2', 'fma', 'f16c', 'avx512f', 'avx512dq', 'avx512bw', 'avx512vl', 'avx512_vnni',
             'avx512_bf16', 'avx_vnni', 'amx_tile']


def openblas_coretypes(present):
    """OPENBLAS_CORETYPE values to try (None: OpenBLAS's own choice): the kernels this CPU can execute."""
    types = [None]
    if {'avx2', 'fma'} <= set(present):
        types += ['Haswell', 'Zen']
    if {'avx512f', 'avx512dq', 'avx512bw', 'avx512vl'} <= set(present):
        types += ['SkylakeX'] + (['Cooperlake'] if 'avx512_bf16' in present else [])
    return types


def cpu_info():
    """The CPU model as /proc/cpuinfo names it, and the instruction sets that matter here: present, absent."""
    info = {}
    with open('/proc/cpuinfo') as f:
        for line in f:
            key, _, value = line.partition(':')
            info.setdefault(key.strip(), value.strip())
    flags = set(info.get('flags', '').split())
    model = (f"{info.get('model name', '?')} (vendor {info.get('vendor_id', '?')}, family {info.get('cpu family', '?')}, "
             f"model {info.get('model', '?')}, stepping {info.get('stepping', '?')})")
    return model, [f for f in CPU_FLAGS if f in flags], [f for f in CPU_FLAGS if f not in flags]


def sgemm_flops():
    return sum(2 * m * n * k for m, n, k, _, _ in SGEMM_SHAPES)


def torch_sgemm(torch):
    """torch.mm on SGEMM_SHAPES: the fastest ms of each and the rate of the whole step."""
    ms = []
    for m, n, k, ta, tb in SGEMM_SHAPES:
        a = torch.randn(k, m).t() if ta else torch.randn(m, k)
        b = torch.randn(n, k).t() if tb else torch.randn(k, n)
        out = torch.empty(m, n)
        ms.append(best_ms(lambda: torch.mm(a, b, out=out), 30))
    return {'ms': ms, 'step_ms': sum(ms), 'gflops': sgemm_flops() / sum(ms) * 1e-6}


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
    with torch.inference_mode():
        out['sgemm'] = torch_sgemm(torch)
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


def fastest_sgemm(runs):
    """The fastest time of each product over all runs, and the step's rate from them."""
    ms = [min(r['ms'][i] for r in runs) for i in range(len(SGEMM_SHAPES))]
    return {'ms': ms, 'step_ms': sum(ms), 'gflops': sgemm_flops() / sum(ms) * 1e-6}


def main():
    build = Path(os.environ.get('WL_BUILD_DIR', sys.argv[1] if len(sys.argv) > 1 else 'build')).resolve()
    exe = build / 'nn_bench'
    if not exe.exists():
        print(f'{exe} is not built (cmake --build {build} --target nn_bench)')
        return 1
    env = dict(os.environ, **REF_ENV)
    model, present, absent = cpu_info()
    print(f"machine: {model}; {len(os.sched_getaffinity(0))} CPUs for this process; "
          f"load average at the start {os.getloadavg()[0]:.2f}")
    print(f"instruction sets: {' '.join(present) or '-'}; absent: {' '.join(absent) or '-'}")
    print('PyTorch reference: torch.set_num_threads(%d), %s' % (REF_THREADS,
          ' '.join(f'{k}={v}' for k, v in REF_ENV.items())))
    coretypes = openblas_coretypes(present)
    refs, ourss, blas = [], [], {c: [] for c in coretypes}
    for _ in range(ROUNDS):
        refs.append(json.loads(subprocess.run([sys.executable, __file__, '--reference'], env=env, check=True,
                                              capture_output=True, text=True).stdout))
        for c in coretypes:
            benv = {k: v for k, v in os.environ.items() if k != 'OPENBLAS_CORETYPE'}
            if c:
                benv['OPENBLAS_CORETYPE'] = c
            blas[c].append(json.loads(subprocess.run([str(exe), 'sgemm', str(V), str(B)], env=benv, check=True,
                                                     capture_output=True, text=True).stdout))
        ourss.append(json.loads(subprocess.run([str(exe), str(V), str(B)], check=True, capture_output=True,
                                               text=True).stdout))
    ref, ours = fastest(refs), fastest(ourss)
    by_core = {c: fastest_sgemm([{'ms': [s['ms'] for s in b['shapes']]} for b in runs]) for c, runs in blas.items()}
    sg_torch = fastest_sgemm([r['sgemm'] for r in refs])
    rate = fastest_sgemm(list(by_core.values()) + [sg_torch])['gflops']
    print(f"torch {ref['torch']} ({ref['threads']} threads); wordlab {exe} (OpenBLAS, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'default')}); V={V}, B={B}, T={T}; "
          f"fastest of {ROUNDS} alternating rounds")
    print(f"sgemm on the mlp's training products ({sgemm_flops() / 1e9:.2f} GFLOP per step):")
    names = [c or 'own choice' for c in coretypes]
    print(f"  {'M':>5} {'N':>5} {'K':>5} {'op':<6}" + ''.join(f"{n:>12}" for n in names) + f"{'torch.mm':>10}  (GFLOP/s)")
    for i, (m, n, k, ta, tb) in enumerate(SGEMM_SHAPES):
        gf = 2 * m * n * k / 1e6
        print(f"  {m:>5} {n:>5} {k:>5} {('AT' if ta else 'A') + ('BT' if tb else 'B'):<6}"
              + ''.join(f"{gf / by_core[c]['ms'][i]:>12.1f}" for c in coretypes) + f"{gf / sg_torch['ms'][i]:>10.1f}")
    print("  whole step: " + ', '.join(f"{n} {by_core[c]['gflops']:.1f}" for n, c in zip(names, coretypes))
          + f", torch.mm {sg_torch['gflops']:.1f} GFLOP/s")
    own = sorted({b['openblas'].rsplit('core ', 1)[-1] for b in blas[None]})
    print(f"  OpenBLAS: {blas[None][0]['openblas'].rsplit(',', 1)[0]} ({blas[None][0]['threads']} threads; its own "
          f"choice of kernels in these runs: {', '.join(own)}); the sgemm rate, from the fastest time of each product: "
          f"{rate:.1f} GFLOP/s")
    print(f"{'metric':<16}{'model':<11}{'PyTorch':>11}{'wordlab':>11}{'ratio':>8}{'target':>8}  "
          f"{'GFLOP/s torch':>13}{'wordlab':>9}{'% sgemm: torch':>16}{'wordlab':>9}  ok")
    failed = 0
    for metric, targets in TARGETS.items():
        for kind in KINDS:
            r, o = ref[kind][metric], ours[kind][metric]
            ratio, target = o / r, targets[kind]
            ok = '-' if target is None else ('yes' if ratio <= target else 'NO')
            failed += ok == 'NO'
            gf = flops(metric, kind) / 1e9
            gr, go = gf / r * 1e3, gf / o * 1e3
            print(f"{metric:<16}{kind:<11}{r:>9.3f}ms{o:>9.3f}ms{ratio:>8.3f}{'' if target is None else target:>8}  "
                  f"{gr:>13.1f}{go:>9.1f}{gr / rate:>16.0%}{go / rate:>9.0%}  {ok}")
    mlp = flops('train_step_ms', 'mlp') / ours['mlp']['train_step_ms'] * 1e-6
    ok = mlp >= MLP_SGEMM_TARGET * rate
    failed += not ok
    print(f"mlp training step: {mlp:.1f} GFLOP/s = {mlp / rate:.0%} of the sgemm rate {rate:.1f} "
          f"(target >= {MLP_SGEMM_TARGET:.0%}): {'yes' if ok else 'NO'}")
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
