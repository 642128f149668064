"""test_lessons.py: the .wlab lessons and the committed notebooks agree cell for cell, every lesson runs, and `wordlab notebook` builds what it should."""
import functools
import json
import math
import os
import re
import subprocess

import nbformat
import pytest

SRC = os.environ.get("WL_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
WORDLAB = os.environ.get("WORDLAB") or os.path.join(os.environ.get("WL_BUILD_DIR", os.path.join(SRC, "build")), "wordlab")
if not os.access(WORDLAB, os.X_OK):
    raise RuntimeError(f"the wordlab binary {WORDLAB} does not exist; build it and set WORDLAB")

LESSONS = sorted(f for f in os.listdir(os.path.join(SRC, "lessons")) if f.endswith(".wlab"))
EXPECTED = ["01_one_head_and_four_heads.wlab", "02_heads_and_positions.wlab",
            "03_cross_entropy_and_perplexity.wlab", "04_multihead_step_by_step.wlab"]


def parse_lesson(text):
    """The lesson's cells as (kind, source), parsed independently of the C implementation."""
    cells, kind, lines = [], None, []

    def close():
        while lines and not lines[0]:
            lines.pop(0)
        while lines and not lines[-1]:
            lines.pop()
        cells.append((kind, "\n".join(lines)))

    rows = text.split("\n")
    if rows and rows[-1] == "":
        rows.pop()   # the newline that ends the last line
    for n, line in enumerate(rows, 1):
        line = line.rstrip("\r")
        m = re.fullmatch(r"#%%\s*(\S*)\s*", line)
        if line.startswith("#%%"):
            assert m and m.group(1) in ("", "markdown"), f"line {n}: bad marker {line!r}"
            if kind is not None:
                close()
            kind, lines = ("markdown" if m.group(1) else "code"), []
            continue
        if kind is None:
            assert not line.strip(), f"line {n}: text before the first cell marker"
            continue
        if kind == "markdown":
            assert line == "#" or line.startswith("# "), f"line {n}: markdown lines start with '# '"
            line = line[2:]
        lines.append(line)
    if kind is not None:
        close()
    return cells


def notebook_path(lesson):
    return os.path.join(SRC, "notebooks", lesson[:-len(".wlab")] + ".ipynb")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_the_four_lessons_exist():
    assert LESSONS == EXPECTED
    notebooks = sorted(f for f in os.listdir(os.path.join(SRC, "notebooks")) if f.endswith(".ipynb"))
    assert notebooks == [lesson[:-5] + ".ipynb" for lesson in EXPECTED]


@pytest.mark.parametrize("lesson", LESSONS)
def test_notebook_cells_equal_lesson_cells(lesson):
    cells = parse_lesson(read(os.path.join(SRC, "lessons", lesson)))
    assert cells and cells[0][0] == "markdown" and cells[0][1].startswith("# ")
    nb = nbformat.read(notebook_path(lesson), as_version=4)
    nbformat.validate(nb)
    assert (nb.nbformat, nb.nbformat_minor) == (4, 5)
    assert nb.metadata.kernelspec == {"name": "wordlab", "display_name": "wordlab", "language": "wordlab"}
    assert nb.metadata.language_info.name == "wordlab"
    assert [(c.cell_type, c.source) for c in nb.cells] == cells
    ids = [c.id for c in nb.cells]
    assert len(set(ids)) == len(ids)
    code = [c for c in nb.cells if c.cell_type == "code"]
    # committed with the outputs of a full run, in order, without errors
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    assert all(c.outputs for c in code), "a command cell without output"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]


@functools.lru_cache(maxsize=None)
def run_lesson(lesson):
    return subprocess.run([WORDLAB, "run", os.path.join("lessons", lesson)], cwd=SRC, capture_output=True,
                          text=True, timeout=900)


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_runs(lesson):
    r = run_lesson(lesson)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip()
    # outputs name bundled files by their place in the project, never by this machine's absolute path
    assert os.path.realpath(SRC) not in r.stdout and "/share/artifacts" not in r.stdout.replace(" share/artifacts", "")


# ---- what the lessons say, against the course ----

def markdown(lesson):
    return "\n".join(src for kind, src in parse_lesson(read(os.path.join(SRC, "lessons", lesson))) if kind == "markdown")


def code(lesson):
    return "\n".join(src for kind, src in parse_lesson(read(os.path.join(SRC, "lessons", lesson))) if kind == "code")


@pytest.mark.parametrize("lesson", LESSONS)
def test_lessons_refer_only_to_lessons_that_exist(lesson):
    text = markdown(lesson)
    assert not re.search(r"previous lesson|earlier (sequence )?lesson|next lesson", text, re.I), lesson
    numbers = {f[:2] for f in LESSONS}
    for m in re.finditer(r"\blessons? ((?:\d\d(?:, | and )?)+)", text):
        for n in re.findall(r"\d\d", m.group(1)):
            assert n in numbers, f"{lesson} mentions lesson {n}"


def test_lesson_02_shows_the_33_parameter_model():
    text = markdown("02_heads_and_positions.wlab")
    for part in ("33", "u = qᵀ W_k", "√d", "W_v", "sigmoid", "12 numbers each", "the queries 4"):
        assert part in text, part
    assert "seq_params" in code("02_heads_and_positions.wlab")
    out = run_lesson("02_heads_and_positions.wlab").stdout
    rows = dict(re.findall(r"^(W_k|W_v|q|w|b|total) +.*? (\d+)  ", out, re.M))
    assert rows == {"W_k": "12", "W_v": "12", "q": "4", "w": "4", "b": "1", "total": "33"}, rows
    assert re.search(r"1/√d = 0\.7071 \(d = 2\)", out) and re.search(r"head 2: u = \(-?\d", out)
    assert "p(rise) = sigmoid(o)" in out


def test_lesson_01_checks_forward_against_forward_details():
    assert re.search(r"^f = forward \$multihead \$ids$", code("01_one_head_and_four_heads.wlab"), re.M)
    out = run_lesson("01_one_head_and_four_heads.wlab").stdout
    lo, hi = map(float, re.search(r"logits \[1,\d+\] float32: min (\S+), max (\S+),", out).groups())
    diff = float(re.search(r"max \|forward − forward_details\| over the last-row logits: (\S+)", out).group(1))
    assert diff <= 1e-5 * max(abs(lo), abs(hi)), (diff, lo, hi)


def test_lesson_01_gives_the_course_generation_advice():
    text = markdown("01_one_head_and_four_heads.wlab")
    for part in ("**training story**", "**held-out story**", "outside the domain", "`<UNK>`", "warm-up"):
        assert part in text, part
    src = code("01_one_head_and_four_heads.wlab")
    assert "story $stories split=train" in src and "story $stories split=test" in src
    out = run_lesson("01_one_head_and_four_heads.wlab").stdout
    assert "<UNK>" in out[out.index("held-out story 1 begins:"):]
    timed = re.findall(r"(\d+) model calls, .*\((\S+) ms per call\); warm-up call before them (\S+) ms, not counted", out)
    assert len(timed) >= 6 and all(float(w) > 0 for _, _, w in timed)
    # the machine beside the runtimes, and one statement about it that docs/data.md shares
    assert "the machine the runtimes were measured on:" in out and "cpus_online" in out
    data = read(os.path.join(SRC, "docs", "data.md"))
    assert "shared with other heavy jobs" in data and "nothing else running" not in data
    flat = " ".join(text.split())
    assert "the bundled run shared its two CPU cores with other heavy jobs" in flat
    assert "to itself" not in flat and "nothing else" not in flat


def test_lesson_03_shows_enough_digits_of_one_over_v():
    out = run_lesson("03_cross_entropy_and_perplexity.wlab").stdout
    size = int(re.search(r"vocabulary size: (\d+)", out).group(1))
    p, loss = re.search(r"^\s*(0\.000\d+) +(\d+\.\d+)$", out, re.M).groups()
    assert abs(float(p) - 1 / size) / (1 / size) < 1e-3   # 1/V to three significant digits at least
    assert abs(-math.log(float(p)) - float(loss)) < 1e-3   # checkable by hand from the digits shown


def test_lesson_03_next_and_losses_read_the_same_numbers():
    """Lesson 03 shows the probability of every word after a text, then the loss of its target from `losses`: the same
    p, to the last digit; its corpus is there for the stories, not for its statistics table."""
    out = run_lesson("03_cross_entropy_and_perplexity.wlab").stdout
    m = re.search(r"^target dog: p (\S+), loss -ln p (\S+), rank 7 of 4,000$", out, re.M)
    assert m, out[:2000]
    assert re.search(r"^p of dog from next: (\S+)   from losses: \1   difference: 0.0$", out, re.M), out
    assert "story length median" not in out and "its audit table: .audit" in out


# ---- the notebook command itself ----

LESSON = """
#%% markdown
# # Title
#
# Some *text*.
#%%
print "one"
print "two"
warn "careful"

#%%
perplexity 0.5 0.25 0.125
#%%
p = perplexity 0.5
print $p.perplexity
#%% markdown
# # Title
#
# Some *text*.
#%%
print "gone"
clear
mean 1 2
"""


def build(tmp_path, text, name="lesson.wlab"):
    src = tmp_path / name
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "out.ipynb"
    r = subprocess.run([WORDLAB, "notebook", str(src), "-o", str(out)], capture_output=True, text=True, timeout=120)
    return r, out


def test_notebook_command_builds_outputs(tmp_path):
    r, out = build(tmp_path, LESSON)
    assert r.returncode == 0, r.stderr
    nb = nbformat.read(str(out), as_version=4)
    nbformat.validate(nb)
    assert [(c.cell_type, c.source) for c in nb.cells] == parse_lesson(LESSON)
    assert nb.metadata.wordlab == {"lesson": "lesson.wlab"}
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == [1, 2, 3, 4]
    # consecutive writes to one stream form one output; stderr is its own stream
    assert [(o.output_type, o.get("name"), o.get("text")) for o in code[0].outputs] == [
        ("stream", "stdout", "one\ntwo\n"), ("stream", "stderr", "careful\n")]
    res = code[1].outputs[0]
    assert res.output_type == "execute_result" and res.execution_count == 2
    assert {"text/plain", "text/html", "application/vnd.wordlab.value+json"} <= set(res.data)
    assert res.data["application/vnd.wordlab.value+json"]["perplexity"] == pytest.approx(4.0)
    assert code[2].outputs == [{"output_type": "stream", "name": "stdout", "text": "2.0\n"}]
    # clear removes what came before it; the value of the last command is the result
    assert len(code[3].outputs) == 1 and code[3].outputs[0].output_type == "execute_result"
    assert code[3].outputs[0].data["text/plain"] == "1.5"
    # identical cells get distinct ids, and the ids do not change when the lesson is rebuilt
    ids = [c.id for c in nb.cells]
    assert len(set(ids)) == len(ids) and ids[0] != ids[4] and ids[4].startswith(ids[0])
    first = read(out)
    r, out = build(tmp_path, LESSON)
    assert r.returncode == 0 and read(out) == first
    # the file is in Jupyter's own layout: nbformat writes it back unchanged
    assert json.loads(nbformat.writes(nbformat.reads(first, as_version=4))) == json.loads(first)
    assert first.startswith('{\n "cells": [\n  {\n   "cell_type": "markdown",')


def test_notebook_outputs_show_control_characters(tmp_path):
    # JupyterLab reads ANSI codes in stream text and text/plain: an ESC saved raw in an output would recolour or hide
    # text when the notebook is opened, so outputs hold it as the kernel sends it, the six characters \u001b
    r, out = build(tmp_path, '#%%\nprint "a\\u001b[8mb"\nwarn "c\\u0007"\n#%%\ns = "d\\u001b]0;T\\u0007e"\n$s\n')
    assert r.returncode == 0, r.stderr
    nb = nbformat.read(str(out), as_version=4)
    assert [(o.name, o.text) for o in nb.cells[0].outputs] == [("stdout", "a\\u001b[8mb\n"), ("stderr", "c\\u0007\n")]
    assert nb.cells[1].outputs[0].data["text/plain"] == "d\\u001b]0;T\\u0007e"


def test_notebook_command_keeps_the_last_display_update(tmp_path):
    r, out = build(tmp_path, "#%%\nstories = corpus profile=smoke\n"
                   "m = model new kind=attention vocab=$stories.vocab seed=11\n"
                   "train $m $stories steps=12 batch=8 eval_every=4\n")
    assert r.returncode == 0, r.stderr
    nb = nbformat.read(str(out), as_version=4)
    texts = "\n".join(o.get("text", "") + "".join(o.get("data", {}).get("text/plain", ""))
                      for o in nb.cells[0].outputs)
    # the live display was replaced by its last state, the training summary, which appears once
    assert texts.count("trained attention for 12 of 12 steps") == 1 and "step 1/12 " not in texts


@pytest.mark.parametrize("text,message", [
    ("print 1\n#%%\nprint 2\n", "lesson.wlab:1: a lesson starts with a cell marker"),
    ("#%% markdown\n# fine\nnot a comment\n", "lesson.wlab:3: a markdown line starts with '# '"),
    ("#%% code\nprint 1\n", "lesson.wlab:1: unknown cell marker"),
    ("\n\n", "no cells"),
    ("#%%\nprint 1\n#%%\nnosuchcommand 2\n", "the cell at"),
])
def test_notebook_command_errors(tmp_path, text, message):
    r, out = build(tmp_path, text)
    assert r.returncode == 1
    assert message in r.stderr
    assert not out.exists()


def test_failing_cell_names_its_line(tmp_path):
    r, out = build(tmp_path, "#%% markdown\n# x\n#%%\nprint 1\n\nmean 1 nope\n")
    assert r.returncode == 1 and not out.exists()
    assert "lesson.wlab:6" in r.stderr and "mean 1 nope" in r.stderr


def test_notebook_command_usage():
    r = subprocess.run([WORDLAB, "notebook"], capture_output=True, text=True)
    assert r.returncode == 2 and "usage: wordlab notebook" in r.stderr
    r = subprocess.run([WORDLAB, "notebook", "/nonexistent.wlab", "-o", "/tmp/x.ipynb"], capture_output=True, text=True)
    assert r.returncode == 1 and "/nonexistent.wlab" in r.stderr


def test_notebook_command_never_overwrites_the_lesson(tmp_path):
    text = "#%%\nprint 1\n"
    src = tmp_path / "lesson.wlab"
    src.write_text(text, encoding="utf-8")
    os.link(src, tmp_path / "same.ipynb")
    (tmp_path / "other.wlab").write_text("keep", encoding="utf-8")
    for out, message in [(src, "does not end in .ipynb"), (tmp_path / "other.wlab", "does not end in .ipynb"),
                         (tmp_path / "notes.txt", "does not end in .ipynb"), (tmp_path / ".ipynb", "does not end in .ipynb"),
                         (tmp_path / "same.ipynb", "is the lesson")]:
        r = subprocess.run([WORDLAB, "notebook", str(src), "-o", str(out)], capture_output=True, text=True, timeout=120)
        assert r.returncode == 1 and message in r.stderr and "nothing written" in r.stderr, (out, r.stderr)
    assert src.read_text(encoding="utf-8") == text and (tmp_path / "other.wlab").read_text(encoding="utf-8") == "keep"
    assert not (tmp_path / "notes.txt").exists() and not (tmp_path / ".ipynb").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lesson.wlab", "other.wlab", "same.ipynb"]


def test_notebook_command_skips_a_byte_order_mark(tmp_path):
    r, out = build(tmp_path, "\ufeff#%%\nprint 1\n")
    assert r.returncode == 0, r.stderr
    nb = nbformat.read(str(out), as_version=4)
    assert [(c.cell_type, c.source) for c in nb.cells] == [("code", "print 1")]


# ---- the commands the lessons lean on: artifact, losses, uniform, heatmap ----

def wl(code, **env):
    return subprocess.run([WORDLAB, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **env})


def test_artifact_looks_in_wordlab_artifacts_first(tmp_path):
    (tmp_path / "vocab.json").write_text("{}")
    r = wl("print [artifact vocab.json]\nprint [artifact]", WORDLAB_ARTIFACTS=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == [str(tmp_path / "vocab.json"), str(tmp_path)]
    r = wl("artifact nothing-here.npz", WORDLAB_ARTIFACTS=str(tmp_path))
    assert r.returncode == 1 and "FileNotFoundError: no artifact nothing-here.npz in " + str(tmp_path) in r.stderr
    r = wl("artifact ../vocab.json", WORDLAB_ARTIFACTS=str(tmp_path))
    assert r.returncode == 1 and "ArgumentError" in r.stderr


SMOKE = "stories = corpus profile=smoke\nm = model new kind=multihead heads=4 vocab=$stories.vocab seed=11\n"


def test_losses_match_evaluate_and_perplexity():
    # the per-token losses of every test story, weighted by their targets, are `evaluate`'s test loss
    r = wl("stories = corpus profile=smoke\nprint N $stories.test")
    n = int(next(line for line in r.stdout.splitlines() if line.startswith("N ")).split()[1])
    code = SMOKE + "train $m $stories steps=10 batch=16 eval_every=10\n"
    code += "".join(f"l = losses $m $stories story={k}\nprint L $l.loss $l.count\n" for k in range(1, n + 1))
    code += "e = evaluate $m $stories split=test\nprint E $e.loss $e.targets\n"
    code += "l = losses $m \"the dog was happy .\"\nprint P $l.perplexity [exp [mean $l.losses]] $l.count\n"
    r = wl(code)
    assert r.returncode == 0, r.stderr
    rows = [line.split() for line in r.stdout.splitlines() if line[:2] in ("L ", "E ", "P ")]
    total = sum(float(x[1]) * int(x[2]) for x in rows if x[0] == "L")
    count = sum(int(x[2]) for x in rows if x[0] == "L")
    e = next(x for x in rows if x[0] == "E")
    assert count == int(e[2]), "the test stories' targets are not evaluate's targets"
    assert abs(total / count - float(e[1])) < 1e-3
    p = next(x for x in rows if x[0] == "P")
    assert p[1] == p[2] and p[3] == "6"   # five tokens and <EOS>


@pytest.mark.parametrize("code,message", [
    (SMOKE + "heatmap $m", "TypeError"),
    (SMOKE + "d = details $m \"a dog\"\nheatmap $d.logits.0", "has one axis"),
    (SMOKE + "d = details $m \"a dog\"\nheatmap $d.Q head=5", "ArgumentError"),
    (SMOKE + "ids = encode \"a dog\" vocab=$stories\nd = details $m $ids\nheatmap $d.E last=4 labels=$ids.tokens",
     "labels= needs a list of 4 names"),
    (SMOKE + "other = corpus profile=classroom\nlosses $m $other", "the ids would not match"),
    (SMOKE + "losses $m $stories story=100000", "the test split has"),
    (SMOKE + "losses $m $stories split=nope", "split is train, validation or test"),
    ("m = model new kind=mlp vocab=50\nlosses $m \"the dog\"", "give one when loading it (model load PATH vocab=V"),
    ("uniform 0", "ArgumentError"),
    (SMOKE + "story $stories split=test story=100000", "the test split has 48 stories"),
    (SMOKE + "story $stories split=nope", "split is train, validation or test, not nope"),
    (SMOKE + "story $m", "TypeError"),
])
def test_lesson_command_errors(code, message):
    r = wl(code)
    assert r.returncode == 1 and message in r.stderr, r.stderr


def test_story_is_the_source_text():
    # the first training story is the corpus's .story, whole (a snippet of 19 words, the story command does not cut
    # it); stories of different splits differ
    r = subprocess.run([WORDLAB, "--json", "-c", SMOKE + "story $stories split=train\n$stories.story\n"
                        "story $stories split=test story=$stories.test\nstory $stories split=validation story=1"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    first, field, last_test, val1 = [json.loads(l) for l in r.stdout.splitlines() if l.strip()][-4:]
    assert first == field and len(first.split()) == 19 and last_test != val1 and last_test


def test_heatmap_shapes_and_uniform():
    r = wl(SMOKE + "ids = encode \"a little dog found a red hat\" vocab=$stories\nd = details $m $ids\n"
           "heatmap $d.weights head=3 last=8 labels=$ids.tokens\nheatmap $d.E last=2\nheatmap $d.logits_all last=1 cols=5\n"
           "print [uniform 4] [uniform $stories]\nperplexity [uniform 8] [uniform 8]")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "weights head 3: 0 .. 1" in out and "rows: query · columns: key (numbered as the rows)" in out
    assert "\n  3 little " in out
    # E [1,64,64] is slots x features: 64 columns (dimensions 0..63, folded to 80 characters), not the last 2 key slots
    assert "E: " in out and "rows: slot · columns: dimension\n(64 columns, in 3 blocks to fit 80 characters)" in out
    assert re.search(r"\n +0  1  2  3 ", out) and re.search(r" 62 63\n", out)
    maps = out[out.index("weights head 3: "):out.index("0.25 0.0006667")]
    assert all(len(line) <= 80 for line in maps.splitlines())
    assert "logits_all (the top 5 of " in out and "rows: slot · columns: next word (the last slot's top 5)" in out
    assert "0.25 0.0006667" in out and "perplexity: exp(2.0794) = 8.0" in out


def test_a_checkpoint_finds_its_vocabulary(tmp_path):
    r = wl('m = model load [artifact multihead_seed11.npz]\nmodel info $m\ngenerate $m "a little dog" tokens=3\n'
           'v = vocab [artifact vocab.json]\nd = details $m "a little dog" vocab=$v\nheads $d\n'
           'd = details $m "a little dog"\nheads $d')
    assert r.returncode == 0, r.stderr
    assert "vocabulary attached (the vocab.json beside it)" in r.stdout and "3 new tokens" in r.stdout
    assert r.stdout.count("Head  <BOS>  a") == 2
    # alone in a directory, without vocab.json: every error says how to give the vocabulary
    import shutil
    lone = tmp_path / "m.npz"
    shutil.copy(wl("print [artifact mlp_seed11.npz]").stdout.strip(), lone)
    for use in ('generate $m "a dog"', 'details $m "a dog"', 'print $m.vocab', 'vocab $m', 'losses $m "a dog"',
                'encode "a dog" vocab=$m'):
        r = wl(f"m = model load {lone}\n{use}")
        assert r.returncode == 1 and "model load PATH vocab=V" in r.stderr, (use, r.stderr)
    r = wl(f"m = model load {lone}\nmodel info $m")
    assert "no vocabulary attached (only its size): give one with model load PATH vocab=V" in r.stdout
    r = wl(f'm = model load {lone} vocab=[artifact vocab.json]\ngenerate $m "a dog" tokens=2\nmodel info $m')
    assert r.returncode == 0 and "vocabulary attached (given with vocab=)" in r.stdout, r.stderr
    r = wl(f'm = model load {lone}\ngenerate $m "a dog" vocab=[vocab [artifact vocab.json]] tokens=2')
    assert r.returncode == 0, r.stderr
    r = wl(f'stories = corpus profile=smoke\nm = model load {lone}\ngenerate $m "a dog" vocab=$stories')
    assert r.returncode == 1 and "the model has a vocabulary of" in r.stderr and "this vocab" in r.stderr, r.stderr


def svg_texts(svg, cls):
    return re.findall(rf'<text class="{cls}"[^>]*>([^<]*)</text>', svg)


def is_nice(step):
    m = step / 10 ** math.floor(math.log10(step) + 1e-9)
    return any(abs(m - k) < 1e-6 for k in (1, 2, 5, 10))


def test_plots_have_nice_ticks_whole_titles_and_every_legend_entry(tmp_path):
    r, out = build(tmp_path, "#%% markdown\n# # plots\n#%%\nseq_weights heads=2 run=2 positions=0\n#%%\n" + SMOKE +
                   "r = train $m $stories steps=40 batch=16 eval_every=30\n$r\n")
    assert r.returncode == 0, r.stderr
    nb = nbformat.read(out, as_version=4)
    nbformat.validate(nb)
    plots = [o.data for c in nb.cells if c.cell_type == "code" for o in c.outputs if "image/svg+xml" in o.get("data", {})]
    assert len(plots) == 3   # the weights, the training display's last state, the training result
    for data in plots:
        svg = data["image/svg+xml"]
        for cls in ("xtick", "ytick"):
            ticks = [float(t) for t in svg_texts(svg, cls)]
            assert len(ticks) >= 3, (cls, ticks)
            steps = {round(b - a, 9) for a, b in zip(ticks, ticks[1:])}
            assert len(steps) == 1 and is_nice(steps.pop()), (cls, ticks)
        assert all(float(t).is_integer() and "." not in t for t in svg_texts(svg, "xtick"))   # steps are whole
        assert all(len(t) <= 62 for t in svg_texts(svg, "title"))
    weights, _, training = plots
    for data in (weights, training):
        title = " ".join(svg_texts(data["image/svg+xml"], "title"))
        assert title == " ".join(data["application/vnd.vegalite.v5+json"]["title"]["text"])
    assert " ".join(svg_texts(weights["image/svg+xml"], "title")).endswith("2 heads, run 2, positions off")
    assert svg_texts(weights["image/svg+xml"], "ytick")[0] in ("0", "0.0", "0.00")   # from 0: noise stays small
    assert 'class="reference"' in weights["image/svg+xml"] and "uniform, 1/12" in weights["image/svg+xml"]
    # the training chart: one validation at step 30 is still drawn, so its legend entry points at something
    svg = training["image/svg+xml"]
    assert "validation" in svg_texts(svg, "legend") and svg.count("<circle") >= 2
