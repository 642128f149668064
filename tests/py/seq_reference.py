"""seq_reference.py: an independent double-precision reference of the sequence lesson (seed 002) for the tests.

Written from the lesson's algorithm, operation by operation in the same order: every sum is
accumulated left to right from 0.0 with explicit loops (so the result does not depend on how a
Python version implements sum()), products and quotients are parenthesised as the lesson does.
Run as a script it prints the same JSON as the seq_dump helper:

    python3 seq_reference.py --seed 7 --n 120 --train 60 --test 50 --epochs 20 --heads 1,2,4 --runs 2
"""
import argparse
import json
import math

T, C, D = 12, 3, 4          # steps, input channels, total inner width
MASK = 0xFFFFFFFF


class Draws:
    """The lesson's integer hash seeding a 32-bit LCG; each draw is state / 2**32."""

    def __init__(self, t):
        h = ((t ^ (t >> 16)) * 2246822507) & MASK
        h = ((h ^ (h >> 13)) * 3266489909) & MASK
        self.state = (h ^ (h >> 16)) & MASK

    def __call__(self):
        self.state = (self.state * 1664525 + 1013904223) & MASK
        return self.state / 4294967296


def acc_sum(values):
    total = 0.0
    for v in values:
        total += v
    return total


def make_data(seed, n):
    readings, labels = [], []
    for i in range(n):
        r = Draws(seed + i)
        r()
        row = [0.0]
        for _ in range(T - 1):
            v = r()
            v += r()
            v += r()
            row.append(round((v - 1.5) * 1.9, 3))
        readings.append(row)
        early = acc_sum(row[1:6]) / 5
        late = acc_sum(row[7:12]) / 5
        labels.append(1 if late - early > 0.30 else 0)
    return readings, labels


def make_inputs(row, positions):
    out = []
    for t in range(T):
        if positions:
            out.append([row[t], math.sin(math.pi * t / (T - 1)), math.cos(math.pi * t / (T - 1))])
        else:
            out.append([row[t], 0.0, 0.0])
    return out


class Net:
    """Flat parameters: Wk rows 0..3, Wv rows 0..3 (row h*d+i is row i of head h), q[4], w[4], b."""

    def __init__(self, seed, heads):
        self.H, self.d = heads, D // heads
        self.scale = 1.0 / math.sqrt(self.d)
        r = Draws(seed)
        flat = []
        for _ in range(32):
            v = r()
            v += r()
            v += r()
            flat.append((v - 1.5) * 0.9)
        self.Wk = [flat[3 * k:3 * k + 3] for k in range(4)]
        self.Wv = [flat[12 + 3 * k:12 + 3 * k + 3] for k in range(4)]
        self.q = flat[24:28]
        self.w = flat[28:32]
        self.b = 0.0

    def flat(self):
        out = []
        for row in self.Wk + self.Wv:
            out.extend(row)
        return out + self.q + self.w + [self.b]

    def folded(self, h):
        rows = range(h * self.d, (h + 1) * self.d)
        return [acc_sum(self.q[k] * self.Wk[k][j] for k in rows) for j in range(C)]

    def attention(self, x, h, u=None):
        u = self.folded(h) if u is None else u
        scores = [(u[0] * s[0] + u[1] * s[1] + u[2] * s[2]) * self.scale for s in x]
        top = scores[0]
        for v in scores[1:]:
            if v > top:
                top = v
        ex = [math.exp(v - top) for v in scores]
        z = acc_sum(ex)
        return [v / z for v in ex]

    def head_parts(self, x, h, u=None):
        a = self.attention(x, h, u)
        xa = [acc_sum(a[t] * x[t][j] for t in range(T)) for j in range(C)]
        rows = range(h * self.d, (h + 1) * self.d)
        return a, xa, [acc_sum(self.Wv[k][j] * xa[j] for j in range(C)) for k in rows]

    def logit(self, x):
        o = self.b
        for h in range(self.H):
            c = self.head_parts(x, h)[2]
            o += acc_sum(self.w[h * self.d + i] * c[i] for i in range(self.d))
        return o


def squash(o):
    clamped = o if o < 30.0 else 30.0
    clamped = clamped if clamped > -30.0 else -30.0
    return 1.0 / (1.0 + math.exp(-clamped))


def train(seed, heads, xs, ys, epochs, lr, momentum):
    net = Net(seed, heads)
    d, n = net.d, len(xs)
    vel = [0.0] * 33
    for _ in range(epochs):
        us = [net.folded(h) for h in range(heads)]
        gk = [[0.0] * C for _ in range(4)]
        gv = [[0.0] * C for _ in range(4)]
        gq, gw, gb = [0.0] * 4, [0.0] * 4, 0.0
        for x, y in zip(xs, ys):
            parts = [net.head_parts(x, h, us[h]) for h in range(heads)]
            cs = [c for p in parts for c in p[2]]
            o = net.b + acc_sum(net.w[k] * cs[k] for k in range(4))
            df = squash(o) - y
            gb += df
            for h in range(heads):
                a, xa, c = parts[h]
                rows = range(h * d, (h + 1) * d)
                dc = [df * net.w[k] for k in rows]
                mv = [acc_sum(dc[i] * net.Wv[h * d + i][j] for i in range(d)) for j in range(C)]
                da = [mv[0] * s[0] + mv[1] * s[1] + mv[2] * s[2] for s in x]
                mean = acc_sum(a[t] * da[t] for t in range(T))
                back = [0.0, 0.0, 0.0]
                for t in range(T):
                    ds = a[t] * (da[t] - mean) * net.scale
                    for j in range(C):
                        back[j] += ds * x[t][j]
                for i, k in enumerate(rows):
                    gw[k] += df * c[i]
                    gq[k] += acc_sum(net.Wk[k][j] * back[j] for j in range(C))
                    for j in range(C):
                        gk[k][j] += net.q[k] * back[j]
                        gv[k][j] += dc[i] * xa[j]
        grads = [g for row in gk + gv for g in row] + gq + gw + [gb]
        params = net.flat()
        for k in range(33):
            vel[k] = momentum * vel[k] - lr * grads[k] / n
            params[k] += vel[k]
        net.Wk = [params[3 * k:3 * k + 3] for k in range(4)]
        net.Wv = [params[12 + 3 * k:12 + 3 * k + 3] for k in range(4)]
        net.q, net.w, net.b = params[24:28], params[28:32], params[32]
    return net


def accuracy(net, xs, ys):
    right = 0
    for x, y in zip(xs, ys):
        right += (net.logit(x) > 0) == (y == 1)
    return right / len(xs)


def center(net, xs, h):
    return acc_sum(acc_sum(t * a for t, a in enumerate(net.attention(x, h))) for x in xs) / len(xs)


def separation(net, xs):
    H = net.H
    if H < 2:
        return 0.0
    total = 0.0
    for x in xs:
        att = [net.attention(x, h) for h in range(H)]
        for i in range(H):
            for j in range(i + 1, H):
                total += acc_sum(abs(att[i][t] - att[j][t]) for t in range(T)) / 2
    return total / (len(xs) * H * (H - 1) / 2)


def mean_weights(net, xs):
    out = []
    for h in range(net.H):
        m = [0.0] * T
        for x in xs:
            a = net.attention(x, h)
            for t in range(T):
                m[t] += a[t]
        out.extend(v / len(xs) for v in m)
    return out


def shuffled(x, seed):
    r, perm = Draws(seed), list(range(T))
    for i in range(T - 1, 0, -1):
        j = int(r() * (i + 1))
        perm[i], perm[j] = perm[j], perm[i]
    return [[x[perm[t]][0], x[t][1], x[t][2]] for t in range(T)]


def order_test(net, xs, seed0):
    total, largest = 0.0, 0.0
    for i, x in enumerate(xs):
        change = abs(squash(net.logit(shuffled(x, seed0 + i))) - squash(net.logit(x)))
        total += change
        if change > largest:
            largest = change
    return total / len(xs), largest


def describe(net, run, positions, xs, ys):
    return {"H": net.H, "run": run, "positions": positions, "acc": accuracy(net, xs, ys),
            "separation": separation(net, xs), "centers": [center(net, xs, h) for h in range(net.H)],
            "mean_weights": mean_weights(net, xs), "params": net.flat()}


def lesson(seed=20260218, n=720, ntrain=200, ntest=180, epochs=150, lr=0.15, momentum=0.8,
           heads=(1, 2, 4), runs=2, order_heads=2):
    readings, labels = make_data(seed, n)
    with_pos = [make_inputs(r, True) for r in readings]
    no_pos = [make_inputs(r, False) for r in readings]
    tr_y, te_y = labels[:ntrain], labels[n - ntest:]
    rate = acc_sum(float(y) for y in te_y) / ntest
    out = {"readings": readings, "labels": labels,
           "train_rate": acc_sum(float(y) for y in tr_y) / ntrain, "test_rate": rate,
           "baseline": 1 - rate if 1 - rate > rate else rate, "heads": []}
    nets = {}   # training is deterministic: a (heads, run) net is trained once
    for H in heads:
        for k in range(runs):
            nets[H, k] = train(seed + k + 1, H, with_pos[:ntrain], tr_y, epochs, lr, momentum)
            out["heads"].append(describe(nets[H, k], k + 1, 1, with_pos[n - ntest:], te_y))
    pos_nets = [nets.get((order_heads, k)) or train(seed + k + 1, order_heads, with_pos[:ntrain], tr_y, epochs, lr,
                                                    momentum) for k in range(runs)]
    nopos_nets = [train(seed + k + 1, order_heads, no_pos[:ntrain], tr_y, epochs, lr, momentum) for k in range(runs)]
    out["order_pos"] = [describe(m, k + 1, 1, with_pos[n - ntest:], te_y) for k, m in enumerate(pos_nets)]
    out["order_nopos"] = [describe(m, k + 1, 0, no_pos[n - ntest:], te_y) for k, m in enumerate(nopos_nets)]
    e0, m0 = order_test(pos_nets[-1], with_pos[n - ntest:], seed + 4000)
    e1, m1 = order_test(nopos_nets[-1], no_pos[n - ntest:], seed + 4000)
    out["order_mean"], out["order_max"] = [e0, e1], [m0, m1]
    out["text"] = render(out, n, ntrain, ntest, epochs, heads, runs)
    return out


def render(out, n, ntrain, ntest, epochs, heads, runs):
    """The lesson's printed lines for out (a lesson() result), column for column."""
    lines = [f"sequences {n}, length {T}, training {ntrain}, held-out {ntest}",
             f"rise label rate train {out['train_rate']:.4f}, held-out {out['test_rate']:.4f}",
             f"baseline (most frequent class) {out['baseline']:.4f}",
             f"example sequence {out['readings'][0]}",
             f"total inner dimension {D}, epochs {epochs}, training examples {ntrain}, "
             f"baseline {out['baseline']:.4f}",
             f"{'heads':>6}{'head size':>12}{'parameters':>11}"
             + "".join(f"{'run ' + str(k + 1):>10}" for k in range(runs)) + f"{'mean':>10}{'run difference':>16}"]
    rows = out["heads"]
    for i, H in enumerate(heads):
        accs = [r["acc"] for r in rows[i * runs:(i + 1) * runs]]
        lines.append(f"{H:>6}{D // H:>12}{33:>11}" + "".join(f"{a:>10.4f}" for a in accs)
                     + f"{acc_sum(accs) / runs:>10.4f}"
                     + (f"{max(accs) - min(accs):>16.4f}" if runs > 1 else f"{'–':>16}"))   # one run: no difference
    lines += ["the two regions the task wants: steps 1-5 and 7-11",
              f"{'':18}{'weight centers':>34}{'separation':>12}{'held-out':>10}"]
    for r in rows:
        name = f"{r['H']} head" + ("s" if r["H"] > 1 else "") + f", run {r['run']}"
        m = ", ".join(f"{c:.2f}" for c in r["centers"])
        lines.append(f"{name:<18}{m:>34}{r['separation']:>12.4f}{r['acc']:>10.4f}")
    lines += [f"baseline (most frequent class) {out['baseline']:.4f}",
              f"{'':28}" + "".join(f"{'run ' + str(k + 1):>9}" for k in range(runs)) + f"{'mean |change|':>15}{'largest':>10}"]
    for row, (name, key) in enumerate((("positional encoding present", "order_pos"),
                                       ("positional encoding absent", "order_nopos"))):
        lines.append(f"{name:<28}" + "".join(f"{r['acc']:>9.4f}" for r in out[key])
                     + f"{out['order_mean'][row]:>15.4f}{out['order_max'][row]:>10.4f}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=20260218)
    ap.add_argument("--n", type=int, default=720)
    ap.add_argument("--train", type=int, default=200)
    ap.add_argument("--test", type=int, default=180)
    ap.add_argument("--epochs", type=int, default=150)
    ap.add_argument("--lr", type=float, default=0.15)
    ap.add_argument("--momentum", type=float, default=0.8)
    ap.add_argument("--heads", default="1,2,4")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--order-heads", type=int, default=2)
    a = ap.parse_args()
    print(json.dumps(lesson(a.seed, a.n, a.train, a.test, a.epochs, a.lr, a.momentum,
                            [int(h) for h in a.heads.split(",")], a.runs, a.order_heads)))


if __name__ == "__main__":
    main()
