"""The REPL in a real pseudo-terminal: tab completion, continuation prompt, history (in the session and
from ~/.wordlab_history), Ctrl-C at the prompt and during training, Ctrl-D, exit or quit to quit; control characters
from data shown on a terminal and kept byte for byte in a pipe."""
import os
import pty
import re
import select
import signal
import struct
import fcntl
import json
import subprocess
import termios
import time

import pytest

import training_text as tt

WORDLAB = os.environ.get("WORDLAB", "build/wordlab")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r")
PROMPT = r"wordlab> "


class Repl:
    def __init__(self, home, extra_env=None):
        env = dict(os.environ, HOME=str(home), TERM="xterm", NO_COLOR="1")
        env.update(extra_env or {})
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(WORDLAB, [WORDLAB], env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
        self.buf = ""

    def send(self, s):
        os.write(self.fd, s.encode())

    def read_for(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            r, _, _ = select.select([self.fd], [], [], max(0.0, end - time.monotonic()))
            if not r:
                break
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                break
            if not data:
                break
            self.buf += data.decode("utf-8", "replace")

    def expect(self, pattern, timeout=20):
        """Waits until the output since the last expect matches pattern; returns that output (escape codes removed)."""
        end = time.monotonic() + timeout
        while True:
            clean = ANSI.sub("", self.buf)
            m = re.search(pattern, clean)
            if m:
                self.buf = clean[m.end():]
                return clean[: m.end()]
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {pattern!r}; output so far:\n{clean}")
            self.read_for(0.1)

    def expect_raw(self, pattern, timeout=20):
        """Like expect, but on the output as the terminal received it (escape codes kept)."""
        end = time.time() + timeout
        while True:
            m = re.search(pattern, self.buf)
            if m:
                out, self.buf = self.buf[: m.end()], self.buf[m.end():]
                return out
            if time.time() > end:
                raise AssertionError(f"timed out waiting for {pattern!r}; output so far:\n{self.buf!r}")
            self.read_for(0.1)

    def run(self, line, timeout=20):
        """Types line and Enter; returns the output up to the next prompt (escape codes removed)."""
        self.send(line + "\r")
        return self.expect(PROMPT, timeout)

    def close(self):
        try:
            self.send("\x04")
            _, status = os.waitpid(self.pid, 0)
            return os.waitstatus_to_exitcode(status)
        finally:
            os.close(self.fd)


def started(home, extra_env=None):
    """A REPL at its first prompt."""
    r = Repl(home, extra_env)
    r.expect(PROMPT)
    return r


@pytest.fixture
def home(tmp_path):
    return tmp_path


def test_completion_continuation_and_exit(home):
    r = started(home)
    r.send("perp\t")
    r.expect(r"perplexity ")              # Tab completed the command name
    out = r.run("0.5 0.25 0.125")
    assert "0.6931" in out and "2.0794" in out and "mean cross-entropy: 1.3863" in out and "= 4.0" in out
    r.run("stories = corpus profile=smoke")
    r.send("print $sto\t")
    r.expect(r"\$stories")                # variables complete too
    r.send(".tr\t")
    r.expect(r"train")                    # and their fields
    assert re.search(r"\b\d{3}\b", r.run(""))
    r.send("print [mean 1\r")
    r.expect(r"\.\.\.> ")                 # an open bracket continues on the next line
    assert "2.0" in r.run("3]")
    out = r.run("tokenise x")
    assert "UnknownCommand" in out and "did you mean tokenize?" in out and "^" in out
    assert r.close() == 0


def test_history_in_session_and_across_sessions(home):
    r = started(home)
    r.send("print first-entry\r")
    r.expect(r"first-entry\s*\n.*wordlab> ")
    assert "15.0" in r.run("mean 10 20")
    r.send("\x1b[A\x1b[A\r")              # two up arrows: the print again
    assert "first-entry" in r.expect(PROMPT)
    assert r.close() == 0
    hist = (home / ".wordlab_history").read_text()
    assert "print first-entry" in hist and "mean 10 20" in hist

    r = started(home)                     # a new session reads the history file
    r.send("\x1b[A")
    r.expect(r"print first-entry")
    assert "first-entry" in r.run("")
    assert r.close() == 0


def test_ctrl_c_at_prompt_drops_the_line(home):
    r = started(home)
    r.send('print "never')
    r.send("\r")
    r.expect(r"\.\.\.> ")
    r.send("\x03")                        # Ctrl-C: the unfinished cell is dropped
    r.expect(PROMPT)
    out = r.run("print fresh")
    assert "fresh" in out and "never" not in out
    assert r.close() == 0


def test_ctrl_c_stops_training_and_keeps_the_repl(home):
    r = started(home)
    r.run("stories = corpus profile=smoke")
    r.run("m = model new kind=multihead heads=4 vocab=$stories.vocab seed=11")
    r.send("train $m $stories steps=100000 batch=64 eval_every=50\r")
    r.expect(r"step 1/100000", timeout=60)
    r.expect(r"step 50/100000", timeout=120)   # a validation happened: there is a best step to keep
    r.send("\x03")
    out = r.expect(PROMPT, timeout=60)   # a hundred thousand steps: only the Ctrl-C ends them this soon
    # the progress line ends as the summary, then the interrupt is reported, once
    assert out.count("Interrupted") == 1 and out.index("trained multihead for") < out.index("Interrupted")
    progress = [m.start() for m in re.finditer(r"step \d+/100000", out)]   # none when the Ctrl-C came before a redraw
    assert all(p < out.index("trained multihead for") for p in progress), out
    done = int(re.search(r"trained multihead for (\d+) of 100000 steps .*, interrupted\n", out)[1])
    rows, kept = tt.summary(out)
    assert rows[0][0] == 1 and 50 in dict(rows) and rows[-1][0] == done >= 50
    step = int(re.search(r"(\d+)\s*\n", r.run("print $m.selected_step")).group(1))
    assert step == kept
    assert r.close() == 0


def test_ctrl_c_stops_generating_a_million_stories(home):
    r = started(home)
    r.send("corpus stories=1000000\r")
    r.expect(r"corpus stories=1000000\n")   # the line is taken: the command runs
    t0 = time.time()
    while True:   # Ctrl-C until the prompt is back (one that lands before the command starts is at the prompt)
        r.send("\x03")
        try:
            out = r.expect(PROMPT, timeout=0.5)
            break
        except AssertionError:
            assert time.time() - t0 < 10, "Ctrl-C did not stop the story generator within 10 s"
    assert "Interrupted: storygen: interrupted after " in out, out
    assert "7" in r.run("print 7")
    assert r.close() == 0


def test_ctrl_d_exits(home):
    r = started(home)
    assert r.close() == 0


@pytest.mark.parametrize("word", ["exit", "quit", "  quit "])
def test_exit_and_quit_leave_like_ctrl_d(home, word):
    r = started(home)
    assert "\nok\n" in r.run("print ok  # exit")   # the word elsewhere on a line is no command to leave
    out = r.run("exit now")
    assert "UnknownCommand: no command `exit`: there is nothing to leave here" in out
    r.send(word + "\r")
    end = time.monotonic() + 20
    while (done := os.waitpid(r.pid, os.WNOHANG))[0] == 0:
        assert time.monotonic() < end, "the REPL did not leave on " + repr(word)
        r.read_for(0.1)
    os.close(r.fd)
    assert os.waitstatus_to_exitcode(done[1]) == 0


def test_input_reads_a_line_from_the_terminal(home):
    r = started(home)
    r.send('name = input "who? "\r')
    r.expect(r"who\? ")
    r.run("Ada")
    assert "hello, Ada" in r.run('print "hello, $name"')
    assert r.close() == 0


@pytest.mark.parametrize("request_", ["?train", "train?", "  ?perplexity  "])
def test_question_mark_shows_help(home, request_):
    r = started(home)
    out = r.run(request_)
    name = request_.strip().strip("?")
    assert f"{name} MODEL" in out or f"{name} P" in out, out
    assert "example:" in out and "UnknownCommand" not in out and "Error" not in out
    assert r.close() == 0


def test_clear_clears_the_terminal(home):
    r = started(home)
    r.run("print before")
    r.send("clear\r")
    out = r.expect_raw(PROMPT)
    assert "\x1b[2J" in out and "\x1b[H" in out
    r.send("clear wait=1\r")
    assert "\x1b[2J" not in r.expect_raw(PROMPT)   # waits for the next output
    r.send("print after\r")
    out = r.expect_raw(PROMPT)
    assert out.index("\x1b[2J") < out.rindex("after\r\n")   # the echo of the line, then the clear, then the output
    assert r.close() == 0


def test_help_attention_says_all_heads_by_default(home):
    r = started(home)
    out = r.run("help attention")
    assert re.search(r"without head=\s+every head", out), out
    assert r.close() == 0


def test_losses_shade_with_colour_when_the_terminal_has_it(home):
    for env, coloured in (({"NO_COLOR": ""}, True), ({}, False)):
        r = started(home, env)
        for line in ("stories = corpus profile=smoke", "m = model new kind=attention vocab=$stories.vocab seed=11"):
            r.run(line, timeout=120)
        r.send('losses $m "the dog \\u001b[8m was happy ."\r')   # ESC [ 8 m (conceal) in a token: shown, not obeyed
        out = r.expect_raw(r"perplexity [0-9.]+")
        assert ("\x1b[48;2;" in out) == coloured, repr(out)
        assert "\x1b[8m" not in out and "\\u001b" in out, repr(out)
        assert re.search(r"dog(\x1b\[0m)?\(\d+\.\d\d\)", out), repr(out)   # the loss follows either way
        r.expect(PROMPT)
        assert r.close() == 0
    r = started(home)
    assert "terminal that shows colour" in r.run("help losses")
    assert r.close() == 0


# Escape sequences a corpus file, a string or a shared script may hold: set the clipboard (OSC 52), clear the screen,
# set the window title, and the C1 CSI U+009B. On a terminal none of them may reach it raw.
ESC_STORY = "once upon a time \x1b]52;c;ZWNobyBwd25lZA==\x07 the dog \x1b[2J\x1b]0;OWNED\x07 ran home . "
RAW = ("\x1b]", "\x07", "\x1b[2J", "\x9b")


def pty_run(args, timeout=60):
    """Runs wordlab with args with stdout and stderr on one pseudo-terminal (colour on); returns its exit status and
    everything it wrote, once it has exited."""
    env = dict(os.environ, TERM="xterm", NO_COLOR="")
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(WORDLAB, [WORDLAB, *args], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
    out, end = b"", time.monotonic() + timeout
    try:
        while True:
            assert time.monotonic() < end, f"wordlab {args} did not finish; output so far:\n{out!r}"
            r, _, _ = select.select([fd], [], [], 0.5)
            if not r:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:   # EIO: the program has exited and the terminal is closed
                break
            if not data:
                break
            out += data
    finally:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8")


def escape_files(tmp_path):
    """A corpus file whose stories hold ESC_STORY, a script that shows them and more, and a script whose line with
    ESC ] 0 ; T BEL is a parse error."""
    corpus = tmp_path / "esc.jsonl"
    corpus.write_text("".join(json.dumps({"text": f"story {i} " + ESC_STORY * 3}) + "\n" for i in range(60)))
    script = tmp_path / "show.wlab"
    script.write_text(f"c = corpus file={corpus} stories=60 audit=0\n"
                      "story $c split=train story=1\n"
                      'print "a\\u001b[2Jb"\n'
                      'warn "w\\u001b]0;T\\u0007"\n'
                      's = "v\\u009bz"\n'
                      "$s\n")
    bad = tmp_path / "bad.wlab"
    bad.write_bytes(b"foo\x1b]0;T\x07bar 1\n")
    return script, bad


def test_control_characters_from_data_are_shown_on_a_terminal(tmp_path):
    script, bad = escape_files(tmp_path)
    rc, out = pty_run(["run", str(script)])
    assert rc == 0, out
    for raw in RAW:
        assert raw not in out, (raw, out)
    assert "\\u001b]52;c;ZWNobyBwd25lZA==\\u0007 the dog \\u001b[2J\\u001b]0;OWNED\\u0007 ran home" in out   # story
    assert "a\\u001b[2Jb" in out and "w\\u001b]0;T\\u0007" in out   # print (stdout) and warn (stderr)
    assert "v\\u009bz" in out                                        # a value shown: C1 too

    rc, out = pty_run(["run", str(bad)])
    assert rc == 1
    for raw in RAW:
        assert raw not in out, (raw, out)
    assert "\x1b[1;31m" in out and "\x1b[0m" in out, out   # the error's own colour stays
    lines = ANSI.sub("", out).split("\n")
    src = next(i for i, line in enumerate(lines) if "foo" in line)
    assert lines[src] == "    foo\\u001b]0;T\\u0007bar 1", lines
    assert lines[src + 1].index("^") == lines[src].index("]"), lines   # the caret under the column as shown

    rc, out = pty_run(["-c", 'x = "d\\u001b[2Je"\nprint $x'])
    assert rc == 0 and "d\\u001b[2Je" in out and "\x1b[2J" not in out, out


def test_control_characters_from_data_pass_a_pipe_byte_for_byte(tmp_path):
    script, bad = escape_files(tmp_path)
    p = subprocess.run([WORDLAB, "run", str(script)], capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert ESC_STORY.strip().encode() in p.stdout
    assert b"a\x1b[2Jb\n" in p.stdout and "v\x9bz\n".encode() in p.stdout
    assert b"w\x1b]0;T\x07\n" in p.stderr
    # an error's echo of its line is a message, not data: controls in it are shown in a pipe too
    p = subprocess.run([WORDLAB, "run", str(bad)], capture_output=True, timeout=60)
    assert p.returncode == 1 and b"    foo\\u001b]0;T\\u0007bar 1\n" in p.stderr, p.stderr


def test_an_input_prompt_and_print_show_control_characters(home):
    r = started(home)
    r.send('name = input "\\u001b]0;T\\u0007who? "\r')
    out = r.expect_raw(r"who\? ")
    assert "\\u001b]0;T\\u0007who? " in out and "\x1b]0;T" not in out, repr(out)
    r.run("Ada")
    r.send('print "hello\\u001b[2J, $name"\r')
    out = r.expect_raw(PROMPT)
    assert "hello\\u001b[2J, Ada" in out and "\x1b[2J" not in out, repr(out)
    assert r.close() == 0
