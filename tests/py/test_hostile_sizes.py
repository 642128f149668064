"""test_hostile_sizes.py: inputs built to make the program quadratic stay fast: a comparison.json naming 60,000
models, and a vocabulary of 131,072 tokens and a corpus of 524,288 that all fall in one slot of an FNV-1a hash table (the
hash wordlab used before it keyed its tables at random); the first two are as large as their files may be (16 MiB). Quadratic work on these sizes takes many minutes; the
bound of each run is a generous 60 s, far above the few seconds linear work needs on a slow machine."""
import itertools
import json
import os
import random
import subprocess

WORDLAB = os.environ.get("WORDLAB", "build/wordlab")
LIMIT = 60
FNV_OFFSET, FNV_PRIME, M64 = 1469598103934665603, 1099511628211, (1 << 64) - 1


def fnv1a(h, s):
    for c in s.encode():
        h = ((h ^ c) * FNV_PRIME) & M64
    return h


def colliding_tokens(blocks=18, bits=20):
    """2**blocks tokens whose FNV-1a hashes agree in their low `bits` bits (Joux's multicollision: each block is a
    pair of strings that lead from the same low state to the same low state, so every choice of one string per
    block ends in the same low state)."""
    rng, mask, h, pairs = random.Random(7), (1 << bits) - 1, FNV_OFFSET, []
    for _ in range(blocks):
        seen = {}
        while True:
            s = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(4))
            low = fnv1a(h, s) & mask
            if low in seen and seen[low] != s:
                pairs.append((seen[low], s))
                h = fnv1a(h, s)
                break
            seen[low] = s
    tokens = ["".join(p) for p in itertools.product(*pairs)]
    assert len({fnv1a(FNV_OFFSET, t) & mask for t in tokens[:1000]}) == 1
    return tokens


def run(code):
    r = subprocess.run([WORDLAB, "-c", code], capture_output=True, text=True, timeout=LIMIT)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def test_a_vocab_json_of_colliding_tokens_loads_in_linear_time(tmp_path):
    tokens = colliding_tokens(blocks=17)   # 131,072 tokens of 68 letters: a vocab.json under its 16 MiB
    path = tmp_path / "vocab.json"
    path.write_text(json.dumps({"itos": ["<PAD>", "<BOS>", "<EOS>", "<UNK>"] + tokens}))
    probe = " ".join(tokens[-3:] + ["zzzz"])
    out = run(f'v = vocab {path}\nprint $v.size\ne = encode "{probe}" vocab=$v\nprint $e.real')
    size, ids = out.splitlines()[:2]
    n = 4 + len(tokens)
    assert int(size) == n
    assert ids == f"[1, {n - 3}, {n - 2}, {n - 1}, 3]"   # <BOS>, the last three tokens, <UNK>


def test_a_corpus_of_colliding_tokens_is_counted_in_linear_time(tmp_path):
    tokens = colliding_tokens(blocks=19, bits=21)   # more: a probe of the counting table is cheaper than a strcmp
    path = tmp_path / "stories.txt"
    path.write_text("\n<|endoftext|>\n".join(" ".join(tokens[i:i + 128]) for i in range(0, len(tokens), 128)))
    out = run(f"c = corpus file={path} profile=smoke stories=100000\nprint $c.vocab.size")
    assert int(out.split()[-1]) == 4   # every token appears once: none reaches min_freq 2


def test_results_on_60000_model_names_is_n_log_n(tmp_path):
    n = 60_000   # with the model of 100,000 runs below, a comparison.json near its 16 MiB
    names = [f"model{i:06d}" for i in range(n)] + ["long" * 1250]   # and one name of 5,000 characters
    stat = {"mean": 1.5, "sample_std": 0.25}
    agg = {k: {"test_loss": stat, "test_perplexity": stat, "runtime_seconds": stat} for k in names}
    runs = {k: [{"selected_step": 7}] for k in reversed(names)}
    runs[names[0]] = [{"selected_step": s} for s in range(100_000)]   # and one model of 100,000 runs
    path = tmp_path / "comparison.json"
    path.write_text(json.dumps({"aggregate": agg, "runs": runs}))
    out = run(f"results {path}")
    lines = out.splitlines()
    rows = [line for line in lines if line.startswith(("model0", "model1", "long"))]
    assert len(rows) == n + 1 and len(out) < 40 * 1024 * 1024   # every model once; no row padded to a huge cell
    row = next(line for line in lines if line.startswith(f"model{n - 1:06d} "))
    assert row.split()[1:4] == ["1", "1.5000", "±"] and row.rstrip().endswith("7")
    first = next(line for line in lines if line.startswith("model000000 "))
    assert "100000" in first.split()[1] and "… (100000 runs)" in first
    assert any(line.startswith("long" * 15 + "…") for line in lines)
