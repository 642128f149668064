"""test_lessons.py: the .wlab lessons and the committed notebooks agree cell for cell, every lesson runs, and `wordlab notebook` builds what it should."""
import json
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


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_runs(lesson):
    r = subprocess.run([WORDLAB, "run", os.path.join("lessons", lesson)], cwd=SRC, capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip()


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
    assert {"text/plain", "text/html", "application/json"} <= set(res.data)
    assert res.data["application/json"]["perplexity"] == pytest.approx(4.0)
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


def test_notebook_command_keeps_the_last_display_update(tmp_path):
    r, out = build(tmp_path, "#%%\nstories = corpus profile=smoke\n"
                   "m = model new kind=attention vocab=$stories.vocab seed=11\n"
                   "train $m $stories steps=12 batch=8 eval_every=4\n")
    assert r.returncode == 0, r.stderr
    nb = nbformat.read(str(out), as_version=4)
    texts = "\n".join(o.get("text", "") + "".join(o.get("data", {}).get("text/plain", ""))
                      for o in nb.cells[0].outputs)
    assert "step 12/12" in texts


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
