"""The non-interactive front ends: wordlab -c, wordlab run FILE (FILE:LINE on the first error), --json,
commands from a pipe, plain text without escape codes off a terminal, NO_COLOR."""
import json
import os
import pty
import re
import subprocess

import training_text as tt

WORDLAB = os.environ.get("WORDLAB", "build/wordlab")


def run(*args, stdin=None, env=None):
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    e.update(env or {})
    return subprocess.run([WORDLAB, *args], input=stdin, capture_output=True, text=True, env=e, timeout=300)


def test_c_runs_the_perplexity_example():
    p = run("-c", "perplexity 0.5 0.25 0.125")
    assert p.returncode == 0, p.stderr
    assert "0.6931" in p.stdout and "1.3863" in p.stdout and "2.0794" in p.stdout
    assert "mean cross-entropy: 1.3863 nats per token" in p.stdout
    assert "perplexity: exp(1.3863) = 4.0" in p.stdout
    assert "\x1b" not in p.stdout + p.stderr           # not a terminal: plain text


def test_c_error_exit_code_and_caret():
    p = run("-c", "print ok\nmean 1 two")
    assert p.returncode == 1
    assert p.stdout == "ok\n"
    lines = p.stderr.splitlines()
    assert lines[0] == "-c:2:8: TypeError: the second argument of `mean` must be a number, not a string; usage: mean X [X ...]"
    assert lines[1] == "    mean 1 two"
    assert lines[2] == "           ^"
    assert "\x1b" not in p.stderr


def test_run_stops_at_the_first_error_with_file_and_line(tmp_path):
    script = tmp_path / "lesson.wlab"
    script.write_text("# a lesson\nprint one\n\nx = mean 1 2\nprint $x\nprint $y\nprint never\n")
    p = run("run", str(script))
    assert p.returncode == 1
    assert p.stdout == "one\n1.5\n"
    assert p.stderr.startswith(f"{script}:6:7: NameError: no variable $y")
    ok = tmp_path / "ok.wlab"
    ok.write_text("print fine\n")
    p = run("run", str(ok))
    assert p.returncode == 0 and p.stdout == "fine\n"
    p = run("run", str(tmp_path / "missing.wlab"))
    assert p.returncode == 1 and "missing.wlab" in p.stderr
    p = run("run")
    assert p.returncode == 2


def test_parse_error_runs_nothing(tmp_path):
    script = tmp_path / "bad.wlab"
    script.write_text('print first\ntokenize "open\n')
    p = run("run", str(script))
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.startswith(f"{script}:2:10: ParseError: unterminated string")


def test_json_one_document_per_value():
    p = run("--json", "-c", 'nll 0.5 0.25\nx = mean 1 2\nprint "to stderr"\nperplexity 0.5 0.25 0.125\ntokenize "a b"')
    assert p.returncode == 0, p.stderr
    docs = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(docs) == 3
    assert docs[0] == [0.6931471805599453, 1.3862943611198906]
    assert docs[1]["type"] == "perplexity" and abs(docs[1]["perplexity"] - 4) < 1e-10
    assert docs[2] == ["a", "b"]
    assert "to stderr" in p.stderr
    p = run("-c", "mean 1 2", "--json")
    assert json.loads(p.stdout) == 1.5


def test_json_error_document():
    p = run("--json", "-c", "mean 1\nfoo")
    assert p.returncode == 1
    lines = p.stdout.splitlines()
    assert json.loads(lines[0]) == 1
    err = json.loads(lines[1])["error"]
    assert err["ename"] == "UnknownCommand" and err["line"] == 2 and err["col"] == 1


def test_json_run(tmp_path):
    script = tmp_path / "s.wlab"
    script.write_text("stories = corpus profile=smoke\nencode \"a dog\" vocab=$stories context=8\n")
    p = run("--json", "run", str(script))
    assert p.returncode == 0, p.stderr
    docs = [json.loads(line) for line in p.stdout.splitlines()]
    assert docs[0]["type"] == "corpus" and docs[0]["audit"]
    assert docs[1]["type"] == "ids" and docs[1]["shape"] == [1, 8] and docs[1]["ids"][:5] == [0, 0, 0, 0, 0]
    assert docs[1]["ids"][5] == 1


def test_commands_from_a_pipe():
    p = run(stdin="mean 2 4\nprint piped\n")
    assert p.returncode == 0 and p.stdout == "3.0\npiped\n"
    p = run(stdin="nosuch\n")
    assert p.returncode == 1 and p.stderr.startswith("<stdin>:1:1: UnknownCommand")


def tty_run(args, env):
    """Runs wordlab with its output on a pseudo-terminal; returns what it wrote."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(WORDLAB, [WORDLAB, *args], env)
    out = b""
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        out += data
    os.waitpid(pid, 0)
    os.close(fd)
    return out.decode()


def test_colour_only_on_a_terminal_without_no_color():
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["TERM"] = "xterm"
    assert "\x1b[" in tty_run(["-c", "nosuch"], env)
    assert "\x1b[" not in tty_run(["-c", "nosuch"], dict(env, NO_COLOR="1"))
    assert "\x1b[" not in tty_run(["-c", "nosuch"], dict(env, TERM="dumb"))


def test_live_progress_only_on_a_terminal():
    # a log (stdout not a terminal) gets a training run's summary and trace, not a progress line left from its first
    # state; a terminal shows the progress live, then the summary in its place
    code = ("stories = corpus profile=smoke stories=60 audit=0\nm = model new kind=attention vocab=$stories.vocab seed=11\n"
            "train $m $stories steps=40 batch=8 eval_every=10\nprint after\n")
    p = run("-c", code)
    assert p.returncode == 0, p.stderr
    assert not re.search(r"step \d+/40 ", p.stdout + p.stderr), p.stdout
    assert p.stdout.index("trained attention for 40 of 40 steps") < p.stdout.index("after\n")
    tt.summary(p.stdout)
    env = dict(os.environ, TERM="xterm", NO_COLOR="1")
    out = tty_run(["-c", code], env)
    assert 0 <= out.index("step 1/40 ") < out.index("trained attention for 40 of 40 steps") < out.index("after")


def test_help_lists_every_command_and_usage():
    p = run("-c", "help")
    assert p.returncode == 0
    for name in ["help", "print", "time", "tokenize", "encode", "decode", "vocab", "corpus", "model", "details",
                 "heads", "attention", "train", "evaluate", "generate", "compare", "nll", "mean", "exp", "perplexity"]:
        assert f"\n  {name}" in p.stdout, name
    p = run("--help")
    assert "run FILE.wlab" in p.stdout and "-c 'COMMANDS'" in p.stdout and "--json" in p.stdout
