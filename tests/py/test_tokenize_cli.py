"""test_tokenize_cli.py: `wordlab tokenize --jsonl` against the golden vectors, its error lines, and
Python's own normalize/tokenize (the course's definition) over every assigned code point."""
import hashlib
import json
import os
import re
import subprocess
import unicodedata
from pathlib import Path

WORDLAB = os.environ["WORDLAB"]
DATA = Path(os.environ.get("WL_TEST_DATA", Path(__file__).resolve().parents[1] / "data"))
TOKEN_RE = re.compile(r"[a-z]+(?:'[a-z]+)?|[0-9]+|[^\w\s]", re.IGNORECASE)


def run_tokenize(data: bytes):
    p = subprocess.run([WORDLAB, "tokenize", "--jsonl"], input=data, capture_output=True, timeout=300)
    return p.returncode, [json.loads(line) for line in p.stdout.decode("utf-8").splitlines()], p.stderr.decode()


def ref_normalize(text):
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def golden(name, count):
    """The cases of a golden file (count of them) beside what `wordlab tokenize --jsonl` gives for them, line by line."""
    data = (DATA / name).read_bytes()
    cases = [json.loads(line) for line in data.decode("utf-8").splitlines()]
    rc, out, err = run_tokenize(data)
    assert rc == 0, err
    assert len(cases) == count and len(out) == len(cases)
    return cases, out


def test_golden_tokenize_jsonl():
    cases, out = golden("tokenize.jsonl", 3005)
    for i, (case, got) in enumerate(zip(cases, out), 1):
        assert got["tokens"] == case["tokens"], f"line {i}: {case['text']!r}"
    print(f"tokenize.jsonl: {len(cases)} golden token lists match")


def test_golden_corpus_jsonl():
    cases, out = golden("corpus.jsonl", 2000)
    for i, (case, got) in enumerate(zip(cases, out), 1):
        for field in ("tokens", "doc_id", "split", "detokenized"):
            assert got[field] == case[field], f"line {i} {field}: {case['text']!r}"
    print(f"corpus.jsonl: {len(cases)} golden cases match (tokens, doc_id, split, detokenized)")


def test_error_lines_name_the_line_and_the_rest_continue():
    lines = [
        b'{"text": "Hello, World!"}',
        b"not json",
        b'{"text": "bad \xff byte"}',
        b'{"story": "no text field"}',
        b'{"text": 5}',
        b"",
        b'{"text": "nul \\u0000 here"}',
        b'{"text": "Don\xe2\x80\x99t stop"}',
    ]
    rc, out, err = run_tokenize(b"\n".join(lines) + b"\n")
    assert rc != 0
    assert len(out) == len(lines)
    assert out[0]["tokens"] == ["hello", ",", "world", "!"] and out[0]["detokenized"] == "hello, world!"
    expected = {2: "not valid JSON", 3: "invalid UTF-8 at byte 15", 4: 'no "text" field', 5: '"text" is not a string',
                6: "not valid JSON", 7: "\\u0000"}
    for n, words in expected.items():
        got = out[n - 1]
        assert got["line"] == n and got["error"].startswith(f"line {n}: ") and words in got["error"], got
    assert out[7]["tokens"] == ["don", "\u2019", "t", "stop"]
    assert "6 of 8 lines failed" in err


def test_usage_errors():
    p = subprocess.run([WORDLAB, "tokenize"], capture_output=True, timeout=60)
    assert p.returncode == 2 and b"--jsonl" in p.stderr


def test_every_code_point_against_python():
    """Each assigned code point (Python's Unicode database; NUL cannot travel in JSON text) in
    contexts that exercise [a-z] under IGNORECASE, \\w, \\s, the apostrophe branch and the final
    sigma of str.lower(); tokens and doc_id (which hashes normalize(text)) must equal Python's."""
    texts = []
    for cp in range(1, 0x110000):
        c = chr(cp)
        if 0xD800 <= cp < 0xE000 or unicodedata.category(c) == "Cn":
            continue
        texts.append(f"{c} a{c}b \u03a3{c}\u03a3 A{c}\u03a3 {c}'x x'{c} 1{c}2 ")
    data = "".join(json.dumps({"text": t}) + "\n" for t in texts).encode("utf-8")
    rc, out, err = run_tokenize(data)
    assert rc == 0, err
    assert len(out) == len(texts)
    bad = []
    for t, got in zip(texts, out):
        norm = ref_normalize(t)
        if got["tokens"] != TOKEN_RE.findall(norm) or got["doc_id"] != hashlib.sha256(norm.encode()).hexdigest()[:16]:
            bad.append(f"U+{ord(t[0]):04X}")
    assert not bad, f"{len(bad)} code points differ from Python: {bad[:50]}"
    print(f"{len(texts)} code points match Python {unicodedata.unidata_version}")


def ref_detokenize(tokens):
    text = " ".join(t for t in tokens if t not in ("<PAD>", "<BOS>", "<EOS>", "<UNK>"))
    text = re.sub(r"\s+([.,!?;:%)\]}])", r"\1", text)
    text = re.sub(r"([(\[{])\s+", r"\1", text)
    text = re.sub(r"([\"“])\s+", r"\1", text)
    text = re.sub(r"\s+([\"”])", r"\1", text)
    text = re.sub(r"\s+'\s*", "'", text)
    return text.strip()


def test_random_mixtures_against_python():
    """Seeded random strings mixing ASCII, combining marks, Hangul jamo, sigma, dotted I, ligatures,
    quotes, brackets and whitespace: sequences whose NFKC composes across characters."""
    import random
    rng = random.Random(31415)
    pool = (list("abcdeiksxyzAEIKSZ0123456789'\".,!?;:%()[]{}_ ") + ["\t", "\n", "\u00a0", "\u2028", "\u3000", "\x1c"]
            + [chr(c) for c in range(0x300, 0x370)] + [chr(c) for c in range(0x1100, 0x1200, 7)]
            + [chr(c) for c in range(0xAC00, 0xAC40)] + ["\u03a3", "\u03c3", "\u0130", "\u0131", "\u017f", "\u212a",
            "\ufb00", "\ufb01", "\u2460", "\u00bd", "\u201c", "\u201d", "\u2019", "\u00e9", "\u00df", "\u1e9e",
            "\u0345", "\u00aa", "\u02b0", "\u2160", "\uff21", "\uff07", "\u00b7", "\u0387", "\u200d", "\u00ad"])
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(0, 40))) for _ in range(20000)]
    data = "".join(json.dumps({"text": t}) + "\n" for t in texts).encode("utf-8")
    rc, out, err = run_tokenize(data)
    assert rc == 0, err
    assert len(out) == len(texts)
    for t, got in zip(texts, out):
        norm = ref_normalize(t)
        tokens = TOKEN_RE.findall(norm)
        assert got["tokens"] == tokens, repr(t)
        assert got["doc_id"] == hashlib.sha256(norm.encode()).hexdigest()[:16], repr(t)
        assert got["detokenized"] == ref_detokenize(tokens), repr(t)
