"""training_text.py: reads what `train` shows: its live progress line and the summary the live display ends as."""
import re

ROW = re.compile(r"^\s*(\d+)\s+([\d,]+)\s+([0-9.]+)\s+([0-9.]+)\s*(← kept)?\s*$", re.M)


def progress_step(text):
    """The step of a progress line "step N/M ..." (None when text is not one)."""
    m = re.match(r"step (\d+)/\d+ ", text)
    return int(m[1]) if m else None


def summary(text):
    """(rows, kept) of a training summary: rows [(step, validation loss)] of its trace, kept the step marked kept.
    Asserts that the summary says which step it kept and that this is the row of the lowest validation loss."""
    rows, kept = [], None
    for m in ROW.finditer(text):
        rows.append((int(m[1]), float(m[4])))
        if m[5]:
            assert kept is None, text
            kept = int(m[1])
    assert rows and kept is not None, text
    assert f"kept the weights of step {kept} (selection loss" in text, text
    assert min(rows, key=lambda r: (r[1], r[0]))[1] == dict(rows)[kept], text
    return rows, kept
