"""test_attacks_files.py: attacks through files and paths on `wordlab`: what a save may replace (FIFO, socket,
directory, symbolic links; a file of another kind: an essay, a notebook, a .docx, the user's files in a compare
folder; a checkpoint under a notebook's or a text's name), a link planted at a temporary file's name, paths longer than 511 bytes, read errors
taken for the end of a file, output that cannot be written (/dev/full), NUL bytes and lone CRs in scripts, NUL
in a corpus or a vocabulary token, stdin of /dev/zero under a memory limit, means of huge numbers; every reader of a
named file takes a regular file of bounded size only (devices, FIFOs, directories and files over the limit are errors
before a byte is read); a corpus file's format from its name or format=; numbers out of range and JSON that is not
JSON said with what and where."""
import json
import os
import resource
import shutil
import socket
import stat
import subprocess

import numpy as np
import pytest

WORDLAB = os.environ.get("WORDLAB", "build/wordlab")
SRC = os.environ.get("WL_SOURCE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MODEL = "m = model new kind=mlp vocab=50 seed=3\n"


def run(*args, stdin=None, cwd=None, limit_kb=None, timeout=120, **kw):
    def limit():
        if limit_kb:
            resource.setrlimit(resource.RLIMIT_AS, (limit_kb * 1024, limit_kb * 1024))
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    feed = {"input": stdin} if stdin is None or isinstance(stdin, bytes) else {"stdin": stdin}
    return subprocess.run([WORDLAB, *args], capture_output=True, cwd=cwd, env=env,
                          preexec_fn=limit if limit_kb else None, timeout=timeout, **feed, **kw)


def text(p):
    return p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")


# ---- 1. a save replaces only a regular file; a link to one is written through ----

def make_socket(path):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()


@pytest.mark.parametrize("kind", ["fifo", "socket", "directory"])
@pytest.mark.parametrize("what", ["model", "vocab"])
def test_save_refuses_what_is_not_a_regular_file(tmp_path, kind, what):
    dest = tmp_path / "dest"
    {"fifo": os.mkfifo, "socket": make_socket, "directory": os.mkdir}[kind](dest)
    before = os.lstat(dest).st_mode
    save = f"model save $m {dest}" if what == "model" else f"vocab {SRC}/share/artifacts/vocab.json save={dest}"
    p = run("-c", MODEL + save)
    assert p.returncode == 1, text(p)
    shown = {"fifo": "a FIFO", "socket": "a socket", "directory": "a directory"}[kind]
    assert f"{dest}: is {shown}; wordlab replaces only regular files" in text(p)
    assert os.lstat(dest).st_mode == before
    assert sorted(os.listdir(tmp_path)) == ["dest"]               # no temporary file left


def test_save_through_a_link_replaces_the_file_it_leads_to(tmp_path):
    real = tmp_path / "runs" / "latest.npz"
    real.parent.mkdir()
    np.savez(real, old=np.zeros(3))                               # an earlier checkpoint: of the kind saved
    link = tmp_path / "model.npz"
    link.symlink_to(os.path.relpath(real, tmp_path))
    p = run("-c", MODEL + f"model save $m {link}\nn = model load {link}\nprint $n.parameters")
    assert p.returncode == 0, text(p)
    assert link.is_symlink() and os.readlink(link) == "runs/latest.npz"
    with np.load(real) as z:
        assert "state__token_embedding.weight" in z.files
    assert sorted(os.listdir(real.parent)) == ["latest.npz"]


@pytest.mark.parametrize("leads_to", ["nothing", "fifo"])
def test_save_refuses_a_link_to_nothing_or_to_a_fifo(tmp_path, leads_to):
    target, link = tmp_path / "target", tmp_path / "model.npz"
    if leads_to == "fifo":
        os.mkfifo(target)
    link.symlink_to(target)
    p = run("-c", MODEL + f"model save $m {link}")
    assert p.returncode == 1, text(p)
    assert f"{link}: is a symbolic link" in text(p)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert os.path.lexists(target) == (leads_to == "fifo")
    if leads_to == "fifo":
        assert stat.S_ISFIFO(os.lstat(target).st_mode)


# ---- 1b. a save replaces only a file of the kind it writes ----

NOTEBOOK = os.path.join(SRC, "notebooks", "01_one_head_and_four_heads.ipynb")
VOCAB = os.path.join(SRC, "share", "artifacts", "vocab.json")


def docx(path):
    import zipfile
    with zipfile.ZipFile(path, "w") as z:                         # a ZIP, but not of .npy arrays
        z.writestr("[Content_Types].xml", "<Types/>")


@pytest.mark.parametrize("name,make,held", [
    ("essay", lambda p: p.write_text("my essay\nsecond line"), 'holds text beginning "my essay second line"'),
    ("thesis.docx", docx, "holds a ZIP archive of"),
    ("photo", lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n\0\0"), "holds binary data of 10 bytes"),
    ("run.npz", lambda p: shutil.copy(NOTEBOOK, p), 'holds text beginning "{ \'cells\': ['),
])
def test_model_save_refuses_to_replace_what_is_not_a_checkpoint(tmp_path, name, make, held):
    dest = tmp_path / name
    make(dest)
    before = dest.read_bytes()
    p = run("-c", MODEL + f"model save $m {dest}")
    assert p.returncode == 1, text(p)
    assert f"{dest}: {held}" in text(p)
    assert "not an .npz file" in text(p) and "nothing was written" in text(p)
    assert dest.read_bytes() == before
    assert os.listdir(tmp_path) == [name]                         # no temporary file left


def test_model_save_through_a_link_refuses_what_the_link_leads_to(tmp_path):
    lesson = tmp_path / "lesson.ipynb"
    shutil.copy(NOTEBOOK, lesson)
    link = tmp_path / "model.npz"
    link.symlink_to(lesson)
    p = run("-c", MODEL + f"model save $m {link}")
    assert p.returncode == 1, text(p)
    assert f"{lesson}: holds text beginning" in text(p)
    assert lesson.read_bytes() == open(NOTEBOOK, "rb").read() and link.is_symlink()


@pytest.mark.parametrize("ext", [".ipynb", ".wlab", ".txt", ".json", ".jsonl", ".py", ".md", ".TXT"])
def test_a_checkpoint_is_not_saved_under_another_kind_of_name(tmp_path, ext):
    dest = tmp_path / f"essay{ext}"
    p = run("-c", MODEL + f"model save $m {dest}")
    assert p.returncode == 1, text(p)
    assert (f"{dest}: a checkpoint is not saved under a name ending {ext}" in text(p)
            and f"give a name ending .npz, such as {tmp_path}/essay.npz" in text(p))
    assert os.listdir(tmp_path) == []


def test_a_save_replaces_its_own_kind_and_an_empty_file(tmp_path):
    (tmp_path / "m.npz").write_bytes(b"")
    (tmp_path / "v.json").write_bytes(b"")
    twice = (f"model save $m {tmp_path}/m.npz\nmodel save $m {tmp_path}/m.npz\n"
             f"vocab {VOCAB} save={tmp_path}/v.json\nvocab {VOCAB} save={tmp_path}/v.json\n"
             f"n = model load {tmp_path}/m.npz\nprint $n.parameters")
    p = run("-c", MODEL + twice)
    assert p.returncode == 0, text(p)
    assert json.loads((tmp_path / "v.json").read_text())["itos"] == json.load(open(VOCAB))["itos"]
    assert sorted(os.listdir(tmp_path)) == ["m.npz", "v.json"]


@pytest.mark.parametrize("content,held", [
    (None, 'holds text beginning "{ \'cells\': ['),                 # a notebook
    ('{"tokens": ["a"]}', 'holds text beginning "{\'tokens\': [\'a\']}"'),
    ("[1, 2]", 'holds text beginning "[1, 2]"'),
])
def test_vocab_save_refuses_to_replace_what_is_not_a_vocab(tmp_path, content, held):
    dest = tmp_path / "mynb.ipynb"
    if content is None:
        shutil.copy(NOTEBOOK, dest)
    else:
        dest.write_text(content)
    before = dest.read_bytes()
    p = run("-c", f"vocab {VOCAB} save={dest}")
    assert p.returncode == 1, text(p)
    assert f'{dest}: {held}' in text(p) and 'not a vocab.json (a JSON object with "itos")' in text(p)
    assert dest.read_bytes() == before and os.listdir(tmp_path) == ["mynb.ipynb"]


COMPARE = "c = corpus profile=smoke audit=0\ncompare $c dir={d} steps=2 batch=8 seeds=11 eval_every=2"


@pytest.mark.parametrize("mine", ["vocab.json", "mlp_seed11.npz", "attention_seed11.npz"])
def test_compare_refuses_a_folder_with_its_names_but_no_comparison(tmp_path, mine):
    d = tmp_path / "cmpd"
    d.mkdir()
    if mine == "vocab.json":
        (d / mine).write_text('{"itos": ["mine"]}')                # a vocab.json, but the user's
    else:
        np.savez(d / mine, mine=np.arange(3))                     # a checkpoint, but the user's
    before = (d / mine).read_bytes()
    p = run("-c", COMPARE.format(d=d))
    assert p.returncode == 1, text(p)
    assert (f"{d}/{mine} is already there, and no comparison.json beside it says that a comparison wrote it"
            in text(p))
    assert (d / mine).read_bytes() == before and os.listdir(d) == [mine]


def test_compare_replaces_its_own_files_beside_its_comparison(tmp_path):
    d = tmp_path / "cmpd"
    p = run("-c", COMPARE.format(d=d))
    assert p.returncode == 0, text(p)
    first = json.loads((d / "comparison.json").read_text())["runs"]["mlp"][0]["test_loss"]
    (d / "mlp_seed11.npz").unlink()                               # a run whose checkpoint is gone is run again
    p = run("-c", COMPARE.format(d=d))
    assert p.returncode == 0, text(p)
    assert json.loads((d / "comparison.json").read_text())["runs"]["mlp"][0]["test_loss"] == first
    assert sorted(os.listdir(d)) == ["attention_seed11.npz", "comparison.json", "mlp_seed11.npz",
                                     "multihead_seed11.npz", "vocab.json"]
    (d / "vocab.json").write_text("my notes")                     # beside its comparison, still only a vocab.json
    p = run("-c", COMPARE.format(d=d))
    assert p.returncode == 1, text(p)
    assert f'{d}/vocab.json: holds text beginning "my notes", not a vocab.json' in text(p)
    assert (d / "vocab.json").read_text() == "my notes"


# ---- 2. the temporary file: unpredictable, exclusive, never through a link ----

def test_a_link_planted_at_the_old_temporary_name_is_not_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    dest = tmp_path / "model.npz"
    proc = subprocess.Popen([WORDLAB, "-c", MODEL + 'x = input "save? "\n' + f"model save $m {dest}"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    planted = tmp_path / f"model.npz.tmp.{proc.pid}"
    planted.symlink_to(victim)
    out, err = proc.communicate(b"yes\n", timeout=120)         # the save starts once the link is in place
    assert proc.returncode == 0, err
    assert victim.read_text() == "precious"
    assert planted.is_symlink() and not dest.is_symlink()
    with np.load(dest) as z:
        assert "metadata_json" in z.files


# ---- 3. no path is cut ----

def long_dir(root, total):
    """A directory under root whose path is at least total bytes long, made of 200-byte components."""
    d = str(root)
    while len(d) < total:
        d = os.path.join(d, "d" * 200)
    os.makedirs(d)
    return d


def test_a_path_longer_than_511_bytes_is_used_whole(tmp_path):
    d = long_dir(tmp_path, 600)
    shutil.copy(os.path.join(SRC, "share/artifacts/comparison.json"), os.path.join(d, "comparison.json"))
    prefix = os.path.join(d, "comparison.json")[:511]
    p = run("-c", f'r = results "{d}"\nprint ok\n$r')
    assert p.returncode == 0, text(p)
    out = p.stdout.decode()
    assert f"comparison {d}/comparison.json" in out and prefix not in out.replace(f"{d}/comparison.json", "")
    path = os.path.join(d, "model.npz")
    p = run("-c", MODEL + f'model save $m "{path}"\nn = model load "{path}"\nmodel info $n')
    assert p.returncode == 0, text(p)
    assert f"from {path}" in p.stdout.decode()
    corpus = os.path.join(d, "stories.txt")
    with open(corpus, "w") as f:
        f.write("once there was a dog.\n<|endoftext|>\na cat sat on a mat.\n<|endoftext|>\nthe sun was hot.\n")
    p = run("-c", f'c = corpus file="{corpus}"\n$c')
    assert p.returncode == 0, text(p)
    assert corpus in p.stdout.decode()


def test_a_path_longer_than_the_system_allows_is_an_error(tmp_path):
    path = str(tmp_path) + "/" + "/".join(["x" * 200] * 25) + "/comparison.json"   # over 4096 bytes
    p = run("-c", f'results "{path}"')
    assert p.returncode == 1
    assert "File name too long" in text(p)


# ---- 6. read errors are not the end of the input ----

def test_stdin_that_cannot_be_read_is_an_error(tmp_path):
    d = os.open(tmp_path, os.O_RDONLY)                          # a directory: read() fails with EISDIR
    try:
        for args in ([], ["tokenize", "--jsonl"], ["--json"]):
            p = run(*args, stdin=d)
            assert p.returncode == 1, (args, text(p))
            assert "cannot read: Is a directory" in text(p), (args, text(p))
    finally:
        os.close(d)


def story_file(path, long_at, size):
    lines = []
    for i in range(13):
        lines.append(f"story number {i} was about a dog and a cat." if i != long_at else "word " * (size // 5))
        lines.append("<|endoftext|>")
    path.write_text("\n".join(lines) + "\n")


def test_corpus_read_failing_for_memory_is_an_error_not_the_end(tmp_path):
    f = tmp_path / "stories.txt"
    story_file(f, 6, 100_000_000)                                  # one 100 MB line under a 300 MB limit
    p = run("-c", f"c = corpus file={f} profile=smoke\nprint $c.stories", limit_kb=300_000)
    assert p.returncode == 1, text(p)
    assert f"{f} line 13: " in text(p) and "longer than" in text(p)


def test_tokenize_read_failing_for_memory_is_an_error(tmp_path):
    lines = [json.dumps({"text": "a dog ran."}), json.dumps({"text": "x " * 50_000_000}), json.dumps({"text": "a cat."})]
    f = tmp_path / "in.jsonl"
    f.write_text("\n".join(lines) + "\n")
    with open(f, "rb") as inp:
        p = run("tokenize", "--jsonl", stdin=inp, limit_kb=300_000)
    assert p.returncode == 1, text(p)
    assert "line 2: " in p.stderr.decode() and "longer than" in p.stderr.decode()


# ---- 7. output that cannot be written ----

@pytest.mark.parametrize("args", [["-c", "print 1"], ["--json", "-c", "mean 1 2"], ["run", "SCRIPT"], ["STDIN"],
                                  ["tokenize", "--jsonl"], ["--version"]])
def test_output_to_dev_full_exits_non_zero_with_a_message(tmp_path, args):
    script = tmp_path / "s.wlab"
    script.write_text("print 1\nmean 1 2\n")
    stdin = b'{"text": "a dog ran."}\n' if args[0] == "tokenize" else None
    if args == ["STDIN"]:
        args, stdin = [], b"print 1\n"
    args = [str(script) if a == "SCRIPT" else a for a in args]
    with open("/dev/full", "wb") as full:
        p = subprocess.run([WORDLAB, *args], input=stdin, stdout=full, stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 1, p.stderr
    assert p.stderr.decode().endswith("wordlab: cannot write the output: No space left on device\n"), p.stderr


# ---- 8. NUL bytes and lone CRs ----

def test_a_nul_byte_in_a_script_is_an_error_with_its_place(tmp_path):
    code = b"print 1\nprint 22\x00print 3\n"
    script = tmp_path / "nul.wlab"
    script.write_bytes(code)
    p = run("run", str(script))
    assert p.returncode == 1 and p.stdout == b"", text(p)
    assert f"{script}:2:9: ParseError: a NUL byte" in p.stderr.decode()
    p = run(stdin=code)
    assert p.returncode == 1 and p.stdout == b"", text(p)
    assert "<stdin>:2:9: ParseError: a NUL byte" in p.stderr.decode()


def test_a_nul_in_a_kernel_cell_is_an_error_with_its_place(kernel):
    import kernel_util as ku
    km, kc = kernel
    reply, msgs = ku.run(kc, 'print "fine"', user_expressions={"x": "print \u0000"})   # a NUL elsewhere: not the code's
    assert reply["content"]["status"] == "ok" and ku.stdout_text(msgs) == "fine\n"
    reply, msgs = ku.run(kc, "print 1\nprint 22\u0000print 3", user_expressions={"x": "print ok"})
    c = reply["content"]
    assert c["status"] == "error" and c["ename"] == "ParseError", c
    assert "cell:2:9: ParseError: a NUL byte" in c["traceback"][0], c["traceback"]
    assert ku.stdout_text(msgs) == ""
    assert km.is_alive()


def test_a_lone_cr_is_a_line_break():
    p = run("-c", "print 1\rprint 2\r\nprint 3")
    assert p.returncode == 0, text(p)
    assert p.stdout == b"1\n2\n3\n"
    p = run("-c", "print 1\rmean 1 two")
    assert p.returncode == 1 and b"-c:2:8: TypeError" in p.stderr


def test_a_nul_byte_in_a_plain_text_corpus_is_an_error_as_in_json_lines(tmp_path):
    plain, jsonl = tmp_path / "c.txt", tmp_path / "c.jsonl"
    plain.write_bytes(b"a dog ran.\n<|endoftext|>\na cat\x00 sat.\n")
    jsonl.write_bytes(b'{"text": "a dog ran."}\n{"text": "a cat\x00 sat."}\n')
    for f, where in ((plain, "line 3: a NUL byte at byte 6"), (jsonl, "line 2: a NUL byte at byte 16")):
        p = run("-c", f"corpus file={f}")
        assert p.returncode == 1, text(p)
        assert f"{f} {where} of the line, which a story cannot hold" in text(p)


def test_a_vocab_token_with_u0000_is_an_error(tmp_path):
    v = json.load(open(os.path.join(SRC, "share/artifacts/vocab.json")))
    v["itos"][10] = "do\u0000g"
    f = tmp_path / "vocab.json"
    f.write_text(json.dumps(v))
    p = run("-c", f"vocab {f}")
    assert p.returncode == 1, text(p)
    assert f"{f}: itos[10] holds U+0000 (NUL), which a token cannot hold" in text(p)


# ---- 11. /dev/zero under a memory limit; means without overflow ----

def test_dev_zero_on_stdin_under_a_memory_limit_gives_a_message():
    with open("/dev/zero", "rb") as zero:
        p = run(stdin=zero, limit_kb=400_000)
    assert p.returncode == 1
    assert "<stdin>:1:1: ParseError: a NUL byte" in p.stderr.decode()


def test_an_endless_script_on_stdin_is_refused_past_the_limit():
    yes = subprocess.Popen(["yes", "print 1"], stdout=subprocess.PIPE)
    try:
        p = run(stdin=yes.stdout, limit_kb=400_000)
    finally:
        yes.kill()
        yes.wait()
    assert p.returncode == 1 and p.stdout == b""
    assert "LimitError" in p.stderr.decode()


@pytest.mark.parametrize("answer,said", [
    ("é" * 32768, "the answer is longer than 65535 bytes, the most an input takes"),   # one byte over
    ("a" * (17 << 20), "the answer is longer than 65535 bytes, the most an input takes"),   # past the line limit
], ids=["one-byte-over", "past-the-line-limit"])
def test_an_answer_longer_than_an_input_takes_is_refused_whole(tmp_path, answer, said):
    """`input` in a script reads its answer from stdin: one longer than it takes is refused with an error that says
    so (never cut inside a character), and the rest of that line is not read as the next answer."""
    script = tmp_path / "ask.wlab"
    script.write_text('x = input "name? " default=none\nprint got $x\n')
    p = run("run", str(script), stdin=(answer + "\nsecond\n").encode())
    assert p.returncode == 1 and said in text(p) and "got" not in text(p), text(p)[-300:]
    ok = run("run", str(script), stdin=("é" * 32767 + "\n").encode())
    assert ok.returncode == 0 and ok.stdout.decode().endswith("é" * 32767 + "\n"), text(ok)[-300:]


def test_mean_of_huge_numbers_does_not_overflow():
    p = run("-c", "print [mean 1e308 1e308]\nprint [mean -1e308 -1e308 -1e308]\nperplexity 1e-300 1e-300")
    assert p.returncode == 0, text(p)
    lines = p.stdout.decode().splitlines()
    assert lines[:2] == ["1e+308", "-1e+308"], lines


# ---- 12. readers take regular files only, and check the size before they read ----

READERS = {   # how each reader of a user-named file is asked to read PATH
    "vocab": ["-c", "vocab PATH"],
    "model": ["-c", "n = model load PATH"],
    "corpus": ["-c", "c = corpus file=PATH format=text"],
    "results": ["-c", "results PATH"],
    "run": ["run", "PATH"],
}


def make_special(path, kind):
    if kind == "/dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)   # no writer: opening it for reading would wait for one
    else:
        path.mkdir()


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "directory"])
@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_reader_refuses_what_is_not_a_regular_file(tmp_path, reader, kind):
    path = tmp_path / "input.json"
    make_special(path, kind)
    p = run(*[a.replace("PATH", str(path)) for a in READERS[reader]], limit_kb=400_000, timeout=60)
    assert p.returncode == 1, text(p)
    shown = {"/dev/zero": "/dev/zero: is a character device", "fifo": f"{os.path.realpath(path)}: is a FIFO",
             "directory": f"{os.path.realpath(path)}: is a directory"}[kind]
    assert f"{shown}, not a regular file; wordlab reads only regular files" in text(p), text(p)


@pytest.mark.parametrize("reader,limit", [("vocab", 16 << 20), ("model", (2 << 30) + (16 << 20)), ("run", 1 << 20),
                                          ("results", 16 << 20), ("corpus", 4 << 30)])
def test_a_reader_checks_the_size_against_its_limit_before_reading(tmp_path, reader, limit):
    path = tmp_path / "input.json"
    with open(path, "wb") as f:
        f.truncate(limit + 1)   # sparse: no disk space, and more than the memory limit below
    p = run(*[a.replace("PATH", str(path)) for a in READERS[reader]], limit_kb=400_000, timeout=60)
    assert p.returncode == 1, text(p)
    assert f"{path}: is {limit + 1} bytes, larger than {limit} bytes, the most read here" in text(p), text(p)


# ---- 13. a corpus file's format comes from its name or format=, never from its first byte ----

def test_a_jsonl_corpus_whose_first_line_is_not_json_is_an_error_at_that_line(tmp_path):
    f = tmp_path / "stories.jsonl"
    f.write_text("Once upon a time there was a dog.\n" + json.dumps({"text": "a cat sat on a mat."}) + "\n")
    p = run("-c", f"c = corpus file={f}")
    assert p.returncode == 1, text(p)
    assert f"{f} line 1: not valid JSON: at byte 1" in text(p)
    p = run("-c", f"c = corpus file={f} format=text\nprint $c.train $c.validation $c.test")
    assert p.returncode == 0, text(p)
    assert sum(map(int, p.stdout.decode().split()[-3:])) == 1   # one plain-text story of two lines


def test_a_corpus_file_of_another_name_needs_format(tmp_path):
    f = tmp_path / "stories.data"
    f.write_text(json.dumps({"text": "a dog ran."}) + "\n" + json.dumps({"text": "a cat sat."}) + "\n")
    p = run("-c", f"c = corpus file={f}")
    assert p.returncode == 1
    assert f"{f}: its name does not say how to read it (.jsonl: JSON lines" in text(p)
    assert "give format=jsonl or format=text" in text(p)
    p = run("-c", f"c = corpus file={f} format=jsonl\nprint $c.train $c.validation $c.test")
    assert p.returncode == 0, text(p)
    assert sum(map(int, p.stdout.decode().split()[-3:])) == 2
    p = run("-c", f"c = corpus file={f} format=csv")
    assert p.returncode == 1 and 'unknown format "csv"' in text(p)
    p = run("-c", "c = corpus format=text")
    assert p.returncode == 1 and "format= goes with file=" in text(p)


# ---- 14. what is wrong is said, and where ----

def test_a_number_out_of_range_says_so_at_its_place():
    p = run("-c", "s = corpus profile=smoke stories=20\nm = model new kind=mlp vocab=$s\ntrain $m $s lr=1e309 steps=1")
    assert p.returncode == 1
    assert ("-c:3:13: ArgumentError: option lr= of `train` is 1e309, a number out of range: a number's magnitude is "
            "at most 1.7976931348623157e+308") in text(p), text(p)


@pytest.mark.parametrize("content,message", [
    (b'{"itos": ["\\ud800"]}', "not valid JSON: at byte 12: \\ud800 is the first half of a UTF-16 surrogate pair, and "
                               "no \\uDC00-\\uDFFF follows it: it is not a character"),
    (b"[" * 100_000 + b"]" * 100_000, "not valid JSON: at byte 1001: nested deeper than 1000 levels, the most the JSON "
                                      "parser takes"),
    (b'{"itos": ["<PAD>", "a', "not valid JSON: at byte 21: the text ends inside the string that starts at byte 20"),
], ids=["lone surrogate", "100,000 deep", "unclosed string"])
def test_a_vocab_json_that_is_not_json_says_what_and_where(tmp_path, content, message):
    f = tmp_path / "vocab.json"
    f.write_bytes(content)
    p = run("-c", f"vocab {f}")
    assert p.returncode == 1
    assert f"{f}: {message}" in text(p), text(p)
