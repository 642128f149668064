"""test_shared_cache.py: the shared cache of computed results seen from the language: the lessons' heavy cells give
byte-identical outputs (text, HTML, JSON) computed, read from the cache and with the cache off; a corrupt entry is
said on stderr and computed again; processes that start at once compute a corpus once; shared=off bypasses it."""
import glob
import json
import os
import subprocess

SRC = os.environ.get("WL_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
WORDLAB = os.environ.get("WORDLAB") or os.path.join(os.environ.get("WL_BUILD_DIR", os.path.join(SRC, "build")), "wordlab")
if not os.access(WORDLAB, os.X_OK):
    raise RuntimeError(f"the wordlab binary {WORDLAB} does not exist; build it and set WORDLAB")

# The heavy cells of lessons 01 and 03 (the dgx corpus, a bundled checkpoint scored on the test split, a story's
# losses) and a short training run on a cached corpus, whose losses must not depend on where the windows live.
HEAVY = """#%% markdown
# heavy cells
#%%
vocab = [artifact vocab.json]
multihead = model load [artifact multihead_seed11.npz] vocab=$vocab
stories = corpus profile=dgx
#%%
evaluate $multihead $stories split=test
#%%
losses $multihead $stories split=test story=1
#%%
story $stories split=train story=1 words=12
#%%
small = corpus profile=smoke stories=120 audit=0
$small
#%%
fresh = model new kind=multihead heads=2 vocab=$small.vocab seed=3
run = train $fresh $small steps=6 batch=8 eval_every=3
print $run.validation_loss $run.test_loss $run.selected_step
#%%
evaluate $fresh $small split=validation
"""


def notebook(tmp_path, cache, name):
    src = tmp_path / "heavy.wlab"
    src.write_text(HEAVY, encoding="utf-8")
    out = tmp_path / f"{name}.ipynb"
    env = dict(os.environ, WORDLAB_CACHE=str(cache))
    r = subprocess.run([WORDLAB, "notebook", str(src), "-o", str(out)], env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    cells = json.loads(out.read_text(encoding="utf-8"))["cells"]
    return [c["outputs"] for c in cells if c["cell_type"] == "code"]


def strip_seconds(outputs):
    """The training cell's outputs without its timings (seconds elapsed are not a result)."""
    return [o for o in outputs if o.get("output_type") == "stream"]


def test_same_outputs_computed_cached_and_off(tmp_path):
    cache = tmp_path / "cache"
    computed = notebook(tmp_path, cache, "computed")
    entries = sorted(os.path.basename(p) for p in glob.glob(str(cache / "*.wlc")))
    # two corpora, their test, train and validation windows as asked for, one score of the checkpoint
    assert len(entries) >= 5, entries
    cached = notebook(tmp_path, cache, "cached")
    off = notebook(tmp_path, "off", "off")
    assert not (tmp_path / "off").exists()
    for k, (a, b, c) in enumerate(zip(computed, cached, off)):
        if k == 5:   # the training run: its printed losses, to the last digit
            a, b, c = strip_seconds(a), strip_seconds(b), strip_seconds(c)
        assert a == b == c, f"code cell {k + 1} differs"
    # the cache held what it was asked for: the second run wrote nothing new
    assert sorted(os.path.basename(p) for p in glob.glob(str(cache / "*.wlc"))) == entries
    for p in glob.glob(str(cache / "*.wlc")):
        assert os.stat(p).st_mode & 0o777 == 0o644


def run(code, cache):
    return subprocess.run([WORDLAB, "-c", code], env=dict(os.environ, WORDLAB_CACHE=str(cache)), capture_output=True,
                          text=True, timeout=300)


def test_a_corrupt_entry_is_said_and_computed_again(tmp_path):
    cache = tmp_path / "cache"
    code = "s = corpus profile=smoke stories=100\nprint $s.train [story $s split=test story=2 words=6]"
    first = run(code, cache)
    assert first.returncode == 0 and first.stderr == "", first.stderr
    (entry,) = glob.glob(str(cache / "*.wlc"))
    data = bytearray(open(entry, "rb").read())
    data[len(data) // 2] ^= 0x20
    open(entry, "wb").write(bytes(data))
    again = run(code, cache)
    assert again.returncode == 0 and again.stdout == first.stdout
    assert "is not used: its content does not match its hash; computing it again" in again.stderr
    third = run(code, cache)
    assert third.stdout == first.stdout and third.stderr == ""


def test_processes_starting_at_once_compute_a_corpus_once(tmp_path):
    cache = tmp_path / "cache"
    code = "s = corpus profile=smoke stories=200 audit=0\nprint $s.vocab $s.test [story $s split=test story=1 words=5]"
    procs = [subprocess.Popen([WORDLAB, "-c", code], env=dict(os.environ, WORDLAB_CACHE=str(cache)),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(8)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e for _, e in outs]
    assert len({o for o, _ in outs}) == 1 and all(e == "" for _, e in outs)
    assert len(glob.glob(str(cache / "*.wlc"))) == 1
    assert not glob.glob(str(cache / ".tmp-*"))


def test_shared_off_and_its_errors(tmp_path):
    cache = tmp_path / "cache"
    r = run("s = corpus profile=smoke stories=80 shared=off\nprint $s.train", cache)
    assert r.returncode == 0 and not glob.glob(str(cache / "*.wlc"))
    r = run("s = corpus profile=smoke stories=80 shared=maybe", cache)
    assert r.returncode != 0 and "shared is on or off, not maybe" in r.stderr
