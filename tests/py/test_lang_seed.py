"""The seed's "One prompt, four weight rows" step through the command language (--json), checked independently:
tokens, ids with BOS and left padding from vocab.json, the shapes of every forward_details tensor, the head
table against the weights tensor, a checkpoint round trip, and the cross-entropy and perplexity example."""
import json
import math
import os
import subprocess

WORDLAB = os.environ.get("WORDLAB", "build/wordlab")
PROMPT = "a little dog found a red hat"


def run_json(code, cwd):
    p = subprocess.run([WORDLAB, "--json", "-c", code], capture_output=True, text=True, cwd=cwd, timeout=600)
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in p.stdout.splitlines()]


def test_one_prompt_four_weight_rows(tmp_path):
    code = f"""
stories = corpus profile=smoke
v = vocab $stories save=vocab.json
m = model new kind=multihead heads=4 vocab=$stories.vocab seed=11
train $m $stories steps=30 batch=64 eval_every=10
toks = tokenize "{PROMPT}"
$toks
ids = encode $toks vocab=$stories.vocab
$ids
d = details $m $ids
$d
heads $d
$d.weights
model save $m m.npz
m2 = model load m.npz vocab=$stories
heads [details $m2 $ids]
model info $m
attention $d
"""
    docs = run_json(code, tmp_path)
    corpus, training, toks, ids, details, heads, weights, heads2, card, attention = docs
    itos = json.loads((tmp_path / "vocab.json").read_text())["itos"]
    assert itos[:4] == ["<PAD>", "<BOS>", "<EOS>", "<UNK>"]
    assert corpus["type"] == "corpus" and training["type"] == "training" and training["steps"] == 30

    assert toks == ["a", "little", "dog", "found", "a", "red", "hat"]
    stoi = {w: i for i, w in enumerate(itos)}
    history = [1] + [stoi.get(t, 3) for t in toks]
    assert ids["shape"] == [1, 64]
    assert ids["ids"] == [0] * (64 - len(history)) + history

    V = len(itos)
    assert details["shapes"] == {
        "E": [1, 64, 64], "Q": [1, 4, 64, 16], "K": [1, 4, 64, 16], "V": [1, 4, 64, 16],
        "scores": [1, 4, 64, 64], "weights": [1, 4, 64, 64], "messages": [1, 64, 64],
        "contextual": [1, 64, 64], "logits_all": [1, 64, V], "logits": [1, V],
    }

    assert heads["tokens"] == ["<BOS>"] + toks
    assert len(heads["weights"]) == 4
    w = weights["values"]
    pad = 64 - len(history)
    for h, row in enumerate(heads["weights"]):
        assert abs(sum(row) - 1) < 1e-5
        last = (h * 64 + 63) * 64
        assert all(w[last + k] == 0 for k in range(pad))            # PAD keys get exactly zero
        assert row == [w[last + pad + k] for k in range(len(history))]
    assert heads2 == heads                                          # the checkpoint keeps every weight
    assert card["parameters"] == 64 * V + 64 * 64 + 4 * 64 * 64 + 256 * 64 + 256 + V * 256 + V
    assert card["selected_step"] == training["selected_step"] > 0

    assert attention["tokens"] == heads["tokens"] and [h["head"] for h in attention["heads"]] == [1, 2, 3, 4]
    for h in attention["heads"]:
        rows = h["weights"]
        assert rows[-1] == heads["weights"][h["head"] - 1]           # the last row is the head table's row
        for q, row in enumerate(rows):
            assert abs(sum(row) - 1) < 1e-5 and all(x == 0 for x in row[q + 1:])   # causal: nothing after the query


def test_cross_entropy_and_perplexity(tmp_path):
    nll, mean, ppl, exp = run_json("nll 0.5 0.25 0.125\nmean [nll 0.5 0.25 0.125]\nperplexity 0.5 0.25 0.125\n"
                                   "exp [mean [nll 0.5 0.25 0.125]]", tmp_path)
    assert nll == [-math.log(0.5), -math.log(0.25), -math.log(0.125)]
    assert abs(mean - 1.3862943611198906) < 1e-15
    assert abs(ppl["perplexity"] - 4) < 1e-10 and ppl["losses"] == nll and abs(exp - 4) < 1e-10
