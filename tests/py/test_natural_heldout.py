"""test_natural_heldout.py: the bundled seed-11 models on hand-written children's sentences that no generator wrote
(tests/data/natural_heldout.txt): pooled perplexity, mean loss, worst token and unknown share per model, written to
build/natural_heldout.txt with the targets set for them (four heads at most 60, no token above 15 nats, four heads <
one head < MLP), each said met or missed. The figures that the README and docs/data.md quote for the set must be the
measured ones."""
import json
import math
import os
import re
import subprocess

import pytest

SRC = os.environ.get("WL_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
BUILD = os.environ.get("WL_BUILD_DIR", os.path.join(SRC, "build"))
WORDLAB = os.environ.get("WORDLAB") or os.path.join(BUILD, "wordlab")
if not os.access(WORDLAB, os.X_OK):
    raise RuntimeError(f"the wordlab binary {WORDLAB} does not exist; build it and set WORDLAB")
DATA = os.environ.get("WL_TEST_DATA") or os.path.join(SRC, "tests", "data")
HELDOUT = os.path.join(DATA, "natural_heldout.txt")
REPORT = os.path.join(BUILD, "natural_heldout.txt")

MODELS = [("mlp", "mlp_seed11.npz"), ("attention", "attention_seed11.npz"), ("multihead", "multihead_seed11.npz")]
MAX_MULTIHEAD_PERPLEXITY = 60.0
MAX_TOKEN_NATS = 15.0
MIN_LINES = 200


def read_set(path):
    """[(file line number, text)]: every line that is neither blank nor a # comment."""
    with open(path, encoding="utf-8") as f:
        rows = f.read().split("\n")
    return [(n, line.strip()) for n, line in enumerate(rows, 1) if line.strip() and not line.startswith("#")]


def quoted(text):
    """text as one string literal of the command language (backslash, quote and $ escaped)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'


def wordlab(args, stdin=None):
    p = subprocess.run([WORDLAB, *args], input=stdin, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, f"wordlab {' '.join(args[:2])} failed ({p.returncode}): {p.stderr[-2000:]}"
    return [json.loads(line) for line in p.stdout.splitlines()]


def score(lines, tmp_dir):
    """(the vocabulary's path, {model: [losses document per line]}): one `losses` per model and line, all in one
    `wordlab --json run`."""
    script = ["artifact vocab.json", "vocab = vocab [artifact vocab.json]"]
    script += [f"{name} = model load [artifact {npz}] vocab=$vocab" for name, npz in MODELS]
    script += [f"losses ${name} {quoted(text)}" for name, _ in MODELS for _, text in lines]
    path = os.path.join(tmp_dir, "natural_heldout.wlab")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(script) + "\n")
    vocab_path, *docs = wordlab(["--json", "run", path])
    assert len(docs) == len(MODELS) * len(lines), f"{len(docs)} documents for {len(MODELS)} x {len(lines)} lines"
    assert all(d.get("type") == "losses" for d in docs)
    return vocab_path, {name: docs[i * len(lines):(i + 1) * len(lines)] for i, (name, _) in enumerate(MODELS)}


def summarise(lines, docs, vocab):
    """One model's row: pooled over every target of every line (each line's tokens and its <EOS>)."""
    total, count, worst = 0.0, 0, (-1.0, None, None)
    unknown = words = 0
    for (n, _), d in zip(lines, docs):
        for token, loss in zip(d["tokens"], d["losses"]):
            total += loss
            count += 1
            if loss > worst[0]:
                worst = (loss, token, n)
        words += len(d["tokens"]) - 1
        unknown += sum(t not in vocab for t in d["tokens"][:-1])
    mean = total / count
    return {"perplexity": math.exp(mean), "loss": mean, "targets": count, "worst_nats": worst[0],
            "worst_token": worst[1], "worst_line": worst[2], "unknown": unknown, "words": words}


def table(lines, rows):
    out = [f"natural held-out set: {len(lines)} lines, {rows['mlp']['words']} tokens, "
           f"{rows['mlp']['targets']} targets (with each line's <EOS>), "
           f"{rows['mlp']['unknown']} unknown ({100 * rows['mlp']['unknown'] / rows['mlp']['words']:.2f}%)",
           f"{'model':<10} {'perplexity':>10} {'mean loss':>9} {'worst nats':>10}  worst token (file line)"]
    for name, _ in MODELS:
        r = rows[name]
        out.append(f"{name:<10} {r['perplexity']:>10.1f} {r['loss']:>9.4f} {r['worst_nats']:>10.2f}  "
                   f"{r['worst_token']!r} (line {r['worst_line']})")
    for target, met in targets(rows):
        out.append(f"target {'met' if met else 'MISSED'}: {target}")
    return "\n".join(out)


def targets(rows):
    """[(the target, whether rows meet it)]."""
    ppl = {name: rows[name]["perplexity"] for name, _ in MODELS}
    return [(f"four heads at most {MAX_MULTIHEAD_PERPLEXITY:g}", ppl["multihead"] <= MAX_MULTIHEAD_PERPLEXITY),
            (f"no token above {MAX_TOKEN_NATS:g} nats",
             all(rows[name]["worst_nats"] <= MAX_TOKEN_NATS for name, _ in MODELS)),
            ("four heads < one head < MLP", ppl["multihead"] < ppl["attention"] < ppl["mlp"])]


class Scores:
    """The set's lines, each model's documents and rows, and the table; its repr is the table, so that a failing
    test prints the numbers rather than the sentences."""

    def __init__(self, lines, docs, rows, report):
        self.lines, self.docs, self.rows, self.report = lines, docs, rows, report

    def __repr__(self):
        return self.report


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    lines = read_set(HELDOUT)
    vocab_path, docs = score(lines, str(tmp_path_factory.mktemp("heldout")))
    with open(vocab_path, encoding="utf-8") as f:
        vocab = set(json.load(f)["itos"])
    rows = {name: summarise(lines, docs[name], vocab) for name, _ in MODELS}
    report = table(lines, rows)
    with open(REPORT, "w", encoding="utf-8") as f:
        f.write(report + "\n")
    print("\n" + report)
    return Scores(lines, docs, rows, report)


def test_the_set_is_large_plain_and_without_repeats():
    lines = read_set(HELDOUT)
    texts = [t for _, t in lines]
    assert len(texts) >= MIN_LINES
    assert len(set(t.lower() for t in texts)) == len(texts), "a line is repeated"
    assert all(t.isascii() for t in texts), "curly quotes or other non-ASCII characters split or drop tokens"


def test_every_line_is_scored_whole(scored):
    """Each document holds exactly the line's tokens (the quoting lost nothing) and then <EOS>."""
    lines, docs = scored.lines, scored.docs
    tokens = wordlab(["tokenize", "--jsonl"], stdin="".join(json.dumps({"text": t}) + "\n" for _, t in lines))
    for name, _ in MODELS:
        for (n, _), d, tok in zip(lines, docs[name], tokens):
            assert d["tokens"] == tok["tokens"] + ["<EOS>"], f"{name}, line {n}"
            assert len(d["losses"]) == len(d["probabilities"]) == len(d["tokens"])


def test_pooled_numbers_agree_with_the_command(scored):
    """The pooled sum is checked against the command's own per-line loss and perplexity."""
    lines, docs, rows, report = scored.lines, scored.docs, scored.rows, scored.report
    for name, _ in MODELS:
        for (n, _), d in zip(lines, docs[name]):
            assert all(abs(loss + math.log(p)) <= 1e-9 * max(1.0, loss) for loss, p in zip(d["losses"], d["probabilities"]))
            mean = sum(d["losses"]) / len(d["losses"])
            assert math.isclose(d["loss"], mean, rel_tol=1e-9), f"{name}, line {n}: {d['loss']} against {mean}"
            assert math.isclose(d["perplexity"], math.exp(mean), rel_tol=1e-9), f"{name}, line {n}"
        weighted = sum(d["loss"] * len(d["losses"]) for d in docs[name]) / sum(len(d["losses"]) for d in docs[name])
        assert math.isclose(rows[name]["loss"], weighted, rel_tol=1e-9), report
        assert rows[name]["targets"] == sum(len(d["tokens"]) for d in docs[name])


def test_the_docs_quote_the_measured_scores(scored):
    """The README's sentence and docs/data.md's table give each model's perplexity (and worst token) on the set as
    measured now, to the digit they show."""
    rows = scored.rows
    with open(os.path.join(SRC, "README.md"), encoding="utf-8") as f:
        readme = " ".join(f.read().split())
    m = re.search(r"perplexities of ([\d.,]+) \(MLP\), ([\d.,]+) \(one head\) and ([\d.,]+) \(four heads\)", readme)
    assert m, "the README does not quote the natural set's perplexities"
    quoted = [float(x.replace(",", "")) for x in m.groups()]
    assert quoted == [round(rows[n]["perplexity"], 1) for n in ("mlp", "attention", "multihead")], scored.report
    with open(os.path.join(SRC, "docs", "data.md"), encoding="utf-8") as f:
        data = f.read()
    cells = re.findall(r"^\| (mlp|attention \(one head\)|multihead \(four heads\)) \|[^|]*\|[^|]*\| ([\d.,]+) \(([\d.]+) nats\) \|",
                       data, re.M)
    assert len(cells) == 3, "docs/data.md's table of the natural sets has no row per model"
    for model, ppl, worst in cells:
        r = rows[model.split()[0]]
        assert (float(ppl.replace(",", "")), float(worst)) == (round(r["perplexity"], 1), round(r["worst_nats"], 1)), \
            scored.report
