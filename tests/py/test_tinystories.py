"""corpus source=tinystories against a local fake of the two Hugging Face APIs: the cache is byte-identical to what
the course's Python writes, the manifest, verification, resume after kill -9 or Ctrl-C, retries and every error;
CPython's random.sample and json.dumps against the C implementation."""
import hashlib
import json
import math
import os
import random
import re
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from tinystories_fake import REVISION, Fake, row_text

# The fake listens on 127.0.0.1: no proxy from the environment may stand in between (libcurl and urllib honour them).
os.environ["no_proxy"] = os.environ["NO_PROXY"] = "127.0.0.1,localhost"
WORDLAB = os.environ.get("WORDLAB", "build/wordlab")
TSCHECK = os.path.join(os.environ.get("WL_BUILD_DIR", "build"), "corpus_tscheck")
DATA = os.environ.get("WL_TEST_DATA", "tests/data")


@pytest.fixture
def fake():
    f = Fake()
    yield f
    f.close()


def corpus_cmd(fake, cache, profile="smoke", extra=""):
    return f'corpus profile={profile} source=tinystories cache="{cache}" api="{fake.url}" time_scale=0.001 {extra}'


def run(code, env=None, timeout=120):
    e = dict(os.environ, NO_COLOR="1")
    e.update(env or {})
    return subprocess.run([WORDLAB, "-c", code], capture_output=True, text=True, env=e, timeout=timeout)


def wait_for(cond, what, limit=60):
    """Waits for a state (polling); the limit only turns a hang into a failure."""
    end = time.monotonic() + limit
    while not cond():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.01)


# --- the course's own code, as a reference ------------------------------------------------------------------------

def course_offsets(stories, seed=1701, total_rows=2_119_719, page_size=100):
    pages = math.ceil(stories / page_size)
    return sorted(random.Random(seed).sample(list(range(0, total_rows - page_size + 1, page_size)), pages))


def course_fetch(api, stories):
    """What the course's fetch writes to stories.jsonl, fetching the same pages from the fake."""
    rows = []
    for offset in course_offsets(stories):
        query = urllib.parse.urlencode({"dataset": "roneneldan/TinyStories", "config": "default", "split": "train",
                                        "offset": offset, "length": 100})
        with urllib.request.urlopen(f"{api}/rows?{query}", timeout=60) as response:
            payload = json.load(response)
        assert not payload.get("partial")
        for row in payload["rows"]:
            assert not row.get("truncated_cells")
            rows.append({"row_idx": int(row["row_idx"]), "text": str(row["row"]["text"])})
    rows = rows[:stories]
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()


# --- CPython's random and json.dumps ------------------------------------------------------------------------------

def test_sample_matches_cpython_for_many_seeds_and_sizes():
    rng = random.Random(5)
    cases = []
    seeds = [0, 1, 2, 1701, 31415, 2**32 - 1, 2**32, 2**32 + 1, 2**63 + 12345, 2**64 - 1]
    seeds += [rng.randrange(2**64) for _ in range(20)]
    for seed in seeds:
        for n, k in [(1, 1), (5, 0), (5, 5), (21, 6), (45, 6), (46, 6), (85, 7), (100, 30), (21197, 60), (21197, 5),
                     (21197, 30), (10**6, 1000), (2**40, 20), (2**62, 10), (rng.randint(1, 5000), 0)]:
            cases.append((seed, n, min(k, n) if k else rng.randint(0, n)))
    got = subprocess.run([TSCHECK, "sample"], input="".join(f"{s} {n} {k}\n" for s, n, k in cases),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(got) == len(cases)
    for (seed, n, k), line in zip(cases, got):
        assert line == " ".join(map(str, random.Random(seed).sample(range(n), k))), (seed, n, k)


def test_getrandbits_matches_cpython():
    cases = [(seed, k) for seed in (0, 1701, 2**32, 2**64 - 1) for k in (1, 7, 31, 32, 33, 48, 63, 64)]
    got = subprocess.run([TSCHECK, "bits"], input="".join(f"{s} {k} 700\n" for s, k in cases),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    for (seed, k), line in zip(cases, got):
        r = random.Random(seed)
        assert line == " ".join(str(r.getrandbits(k)) for _ in range(700)), (seed, k)


@pytest.mark.parametrize("stories", [1, 100, 101, 480, 3000, 6000])
def test_page_offsets_are_the_courses(stories):
    got = subprocess.run([TSCHECK, "offsets", str(stories)], capture_output=True, text=True, check=True).stdout
    assert got.split() == [str(o) for o in course_offsets(stories)]


def random_strings(rng, n):
    alphabet = [chr(c) for c in range(1, 0x80)] + list("éßÆ日本語ひらがな한국어ФЖ∑≈’“”\u2028\u2029\u00a0\ufeff\ufffd")
    alphabet += ["😀", "\U0010ffff", "\U0001f3fd", "\ud7ff", "\ue000"]
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for _ in range(n)]


def test_json_lines_are_pythons_json_dumps_for_golden_and_random_texts():
    with open(os.path.join(DATA, "corpus.jsonl"), encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f if line.strip()]
    texts = [t for t in texts if "\0" not in t]   # a NUL cannot be carried (the fetch rejects it)
    texts += random_strings(random.Random(9), 3000)
    texts += ["", "\"", "\\", "\\\\\"", "\x00x"[1:], "".join(chr(c) for c in range(1, 32)), "\x7f", "a/b", "\u0085"]
    rows = [(i * 7919, t) for i, t in enumerate(texts)]
    stdin = "".join(json.dumps({"row_idx": r, "text": t}) + "\n" for r, t in rows)   # ASCII in, as escapes
    got = subprocess.run([TSCHECK, "dumps"], input=stdin.encode(), capture_output=True, check=True).stdout
    want = "".join(json.dumps({"row_idx": r, "text": t}, ensure_ascii=False) + "\n" for r, t in rows).encode()
    assert len(texts) > 3000
    assert got == want


# --- fetching -----------------------------------------------------------------------------------------------------

def files(cache, profile="smoke"):
    d = cache / profile
    return d / "stories.jsonl", d / "source_manifest.json", d / "pages"


def test_smoke_fetch_is_byte_identical_to_the_courses_code(fake, tmp_path):
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 0, r.stderr
    log = fake.requests()
    raw, manifest, pages = files(tmp_path)
    assert raw.read_bytes() == course_fetch(fake.url, 480)
    assert len(raw.read_bytes().splitlines()) == 480
    assert not pages.exists()
    assert log[0][0] == "/api/datasets/roneneldan/TinyStories"
    assert all(ua.startswith("wordlab/") for _, _, ua in log)
    # wordlab's requests are the course's: the hub first, then the sorted pages, each asked for once
    rows = [q for p, q, _ in log if p == "/rows"]
    assert rows == [urllib.parse.urlencode({"dataset": "roneneldan/TinyStories", "config": "default", "split": "train",
                                            "offset": o, "length": 100}) for o in course_offsets(480)]
    assert "fetching 5 pages" in r.stdout and "480 stories in 5 pages" in r.stdout
    assert "train" in r.stdout and "documents" in r.stdout   # the corpus audit follows
    assert "dgx" not in r.stdout.split("saved to")[1].split("\n")[0]


def test_manifest_fields_format_and_hash(fake, tmp_path):
    assert run(corpus_cmd(fake, tmp_path)).returncode == 0
    raw, manifest, _ = files(tmp_path)
    text = manifest.read_text()
    m = json.loads(text)
    assert text == json.dumps(m, indent=2) + "\n"   # as the course writes it
    assert list(m) == ["dataset", "dataset_revision", "license", "source_split", "selection", "profile",
                       "requested_stories", "downloaded_stories", "offset_seed", "page_offsets", "raw_sha256",
                       "retrieved_utc", "api"]
    assert m["dataset"] == "roneneldan/TinyStories" and m["dataset_revision"] == REVISION
    assert m["license"] == "CDLA-Sharing-1.0" and m["source_split"] == "train"
    assert m["selection"] == "deterministic non-overlapping 100-row pages, then truncate"
    assert (m["profile"], m["requested_stories"], m["downloaded_stories"], m["offset_seed"]) == ("smoke", 480, 480, 1701)
    assert m["page_offsets"] == course_offsets(480)
    assert m["raw_sha256"] == hashlib.sha256(raw.read_bytes()).hexdigest()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", m["retrieved_utc"])
    assert m["api"] == fake.url + "/rows"


def test_a_verified_cache_is_used_without_any_request(fake, tmp_path):
    assert run(corpus_cmd(fake, tmp_path)).returncode == 0
    n = len(fake.requests())
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 0, r.stderr
    assert "from the cache" in r.stdout and "verified" in r.stdout
    assert len(fake.requests()) == n


def test_cache_checksum_mismatch_is_an_error(fake, tmp_path):
    assert run(corpus_cmd(fake, tmp_path)).returncode == 0
    raw, manifest, _ = files(tmp_path)
    data = bytearray(raw.read_bytes())
    data[100] ^= 1
    raw.write_bytes(bytes(data))
    n = len(fake.requests())
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 1
    assert "checksum mismatch" in r.stderr and hashlib.sha256(bytes(data)).hexdigest() in r.stderr
    assert len(fake.requests()) == n


def test_a_cache_of_another_revision_is_an_error(fake, tmp_path):
    assert run(corpus_cmd(fake, tmp_path)).returncode == 0
    _, manifest, _ = files(tmp_path)
    m = json.loads(manifest.read_text())
    m["dataset_revision"] = "1" * 40
    manifest.write_text(json.dumps(m, indent=2) + "\n")
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 1 and "revision " + "1" * 40 in r.stderr and REVISION in r.stderr


def test_revision_mismatch_fails_closed(fake, tmp_path):
    fake.revision = "0123456789abcdef0123456789abcdef01234567"
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 1
    assert "changed upstream" in r.stderr and fake.revision in r.stderr and REVISION in r.stderr
    assert fake.requests("/rows") == []
    assert not files(tmp_path)[0].exists()


@pytest.mark.parametrize("fault,message", [
    ("partial", "partial page at offset"),
    ("truncated", "truncated row"),
    (("rows", 99), "has 99 rows, not 100"),
])
def test_a_spoiled_page_is_an_error_and_earlier_pages_are_kept(fake, tmp_path, fault, message):
    third = course_offsets(480)[2]
    fake.queue(third, fault)
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 1
    assert message in r.stderr and str(third) in r.stderr
    raw, _, pages = files(tmp_path)
    assert not raw.exists() and len(list(pages.glob("*.jsonl"))) == 2
    assert fake.page_offsets().count(third) == 1   # not retried


def test_429_honours_retry_after(fake, tmp_path):
    second = course_offsets(480)[1]
    fake.queue(second, ("status", 429, [("Retry-After", "7")]))
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 0, r.stderr
    assert "attempt 1 of 8 failed (HTTP 429" in r.stdout and "next attempt in 7.0 s" in r.stdout
    assert fake.page_offsets().count(second) == 2
    assert files(tmp_path)[0].read_bytes() == course_fetch(fake.url, 480)


def test_retry_after_is_capped_and_said(fake, tmp_path):
    second = course_offsets(480)[1]
    fake.queue(second, ("status", 429, [("Retry-After", "100000000")]))
    r = run(corpus_cmd(fake, tmp_path))   # obeyed, the wait would be 100,000 s even at time_scale=0.001
    assert r.returncode == 0, r.stderr
    assert "the server asked to wait 100000000 s; next attempt in 60.0 s (the cap)" in r.stdout, r.stdout
    assert files(tmp_path)[0].read_bytes() == course_fetch(fake.url, 480)


def test_a_dripping_server_ends_at_the_request_timeout_and_the_fetch_deadline(fake, tmp_path):
    second = course_offsets(480)[1]
    fake.queue(second, *["drip"] * 8)   # 2 bytes every half second: never a stall, never an end
    start = time.monotonic()
    r = run(corpus_cmd(fake, tmp_path, extra="timeout=1 deadline=4"), timeout=60)
    took = time.monotonic() - start
    assert r.returncode == 1, r.stdout
    assert "timed out: the request took longer than 1 s" in r.stdout + r.stderr
    assert "the fetch reached its deadline of 4 s (deadline=) before the page of rows at offset" in r.stderr, r.stderr
    assert "1 of 5 pages are kept" in r.stderr and "resumes" in r.stderr
    assert took < 30, took   # 4 s of deadline, and the time to start
    assert 2 <= fake.page_offsets().count(second) <= 4   # one-second attempts until the deadline
    with fake.lock:
        fake.faults.clear()   # the server answers again: the next fetch resumes
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 0 and "1 of them kept" in r.stdout, r.stderr
    assert files(tmp_path)[0].read_bytes() == course_fetch(fake.url, 480)


@pytest.mark.parametrize("option,message", [
    ("timeout=0", "timeout= (seconds per request) must be from 0.1 to 86400"),
    ("deadline=1e9", "deadline= (seconds for the whole fetch) must be from 0.1 to 604800"),
    ("timeout=x", "option timeout= of `corpus` must be a number"),
])
def test_deadline_option_errors(tmp_path, option, message):
    r = run(f'corpus source=tinystories cache="{tmp_path}" {option}')
    assert r.returncode == 1 and message in r.stderr, r.stderr


def test_5xx_then_success_backs_off(fake, tmp_path):
    fake.queue("hub", ("status", 503))
    fake.queue(course_offsets(480)[0], ("status", 500), ("status", 502))
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 0, r.stderr
    waits = re.findall(r"attempt (\d) of 8 failed \(HTTP (\d+).*next attempt in ([\d.]+) s", r.stdout)
    assert waits == [("1", "503", "1.5"), ("1", "500", "1.5"), ("2", "502", "3.0")]
    assert files(tmp_path)[0].read_bytes() == course_fetch(fake.url, 480)


def test_gives_up_after_eight_attempts(fake, tmp_path):
    first = course_offsets(480)[0]
    fake.queue(first, *[("status", 503)] * 8)
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 1
    assert "8 attempts failed, the last with: HTTP 503" in r.stderr
    assert fake.page_offsets() == [first] * 8
    assert re.findall(r"next attempt in ([\d.]+) s", r.stdout) == ["1.5", "3.0", "6.0", "12.0", "24.0", "30.0", "30.0"]


def test_malformed_json_is_retried_then_an_error(fake, tmp_path):
    first = course_offsets(480)[0]
    fake.queue(first, "malformed")
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 0, r.stderr
    assert "not valid JSON" in r.stdout
    raw = files(tmp_path)[0]
    assert raw.read_bytes() == course_fetch(fake.url, 480)

    raw.unlink()
    files(tmp_path)[1].unlink()
    fake.queue("hub", *["malformed"] * 8)
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 1
    assert "the answer is not valid JSON: at byte" in r.stderr and "the text ends inside the string" in r.stderr
    assert "revision from the Hugging Face Hub" in r.stderr


def test_a_compressed_answer_that_decodes_past_the_limit_is_refused(fake, tmp_path):
    """A server (a mirror given with api=, or one that answers for the Hub) sends 100 KB of gzip that would decode to
    a 20 MiB JSON array: the fetch stops reading at 16 MiB (a Hub answer is a few KB, a page of rows about 100 KB)
    and says so, instead of decoding and parsing it whole (a JSON parse takes about 30 times its text)."""
    fake.queue("hub", ("bomb", 20))
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 1 and "the answer is over 16 MiB" in r.stderr, r.stderr
    assert len(fake.requests()) == 1


def test_an_http_error_is_not_retried(fake, tmp_path):
    fake.queue("hub", ("status", 404))
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 1 and "HTTP 404" in r.stderr
    assert len(fake.requests()) == 1


def start_blocked_fetch(fake, tmp_path, env=None):
    """Starts a smoke fetch whose third page request hangs; returns once two pages are kept and it waits."""
    third = course_offsets(480)[2]
    fake.queue(third, "block")
    p = subprocess.Popen([WORDLAB, "-c", corpus_cmd(fake, tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=dict(os.environ, NO_COLOR="1", **(env or {})))
    pages = files(tmp_path)[2]
    wait_for(lambda: fake.blocked.is_set() and len(list(pages.glob("*.jsonl"))) == 2 or p.poll() is not None,
             "two pages fetched and the third requested")
    assert p.poll() is None, p.communicate()
    return p, third


def test_resume_after_kill_9(fake, tmp_path):
    p, third = start_blocked_fetch(fake, tmp_path)
    p.kill()
    p.wait()
    fake.release()
    before = len(fake.page_offsets())
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 0, r.stderr
    assert "480 stories in 5 pages (2 of them kept from an earlier fetch)" in r.stdout
    assert fake.page_offsets()[before:] == course_offsets(480)[2:]   # only the missing pages
    assert files(tmp_path)[0].read_bytes() == course_fetch(fake.url, 480)


def kill_after_two_pages(fake, tmp_path):
    """A fetch killed with two pages kept; the fake answers normally again. Returns the kept pages' paths."""
    p, third = start_blocked_fetch(fake, tmp_path)
    p.kill()
    p.wait()
    fake.release()
    pages = files(tmp_path)[2]
    return [pages / f"{o:010d}.jsonl" for o in course_offsets(480)[:2]]


def page_lines(page):
    return page.read_bytes().split(b"\n")[:-1]   # a text may hold U+2028, which str.splitlines takes for a break


def plant_a_document(page):
    """Replaces the text of the page's fifth row by a long 'document', as an altered cache would hold it."""
    lines = page_lines(page)
    row = json.loads(lines[4])
    lines[4] = json.dumps({"row_idx": row["row_idx"], "text": "planted " * 33416}, ensure_ascii=False).encode()
    page.write_bytes(b"\n".join(lines) + b"\n")


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("spoil,message", [
    ("altered", "its SHA-256 is {sha}, not the {was} recorded when it was fetched; fetching it again"),
    ("planted", "no SHA-256 was recorded for it when it was fetched; fetching it again"),
    ("rehashed", "line 5 is not row {row} as the rows API gives it; fetching it again"),
    ("short", "it holds 99 rows, not 100; fetching it again"),
])
def test_a_kept_page_that_fails_its_checks_is_fetched_again(fake, tmp_path, spoil, message):
    first, second = kill_after_two_pages(fake, tmp_path)
    sums = first.parent / "sha256sums"
    was = sha256(second)
    assert f"{was}  {second.name}\n" in sums.read_text()   # recorded when it was fetched
    row = json.loads(page_lines(second)[4])["row_idx"]
    if spoil == "short":
        second.write_bytes(b"\n".join(page_lines(second)[:99]) + b"\n")
    elif spoil == "rehashed":   # another row_idx, and the hash made to match: the rows are still checked
        lines = page_lines(second)
        lines[4] = lines[4].replace(f'"row_idx": {row},'.encode(), f'"row_idx": {row + 1},'.encode())
        second.write_bytes(b"\n".join(lines) + b"\n")
    else:
        plant_a_document(second)
    if spoil in ("short", "rehashed"):
        sums.write_text(sums.read_text().replace(was, sha256(second)))
    if spoil == "planted":
        sums.write_text(sums.read_text().replace(f"{was}  {second.name}\n", ""))
    spoiled = sha256(second)
    before = len(fake.page_offsets())
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 0, r.stderr
    assert f"the kept page {second}: " + message.format(sha=spoiled, was=was, row=row) in r.stdout, r.stdout
    assert "(1 of them kept from an earlier fetch)" in r.stdout
    assert fake.page_offsets()[before:] == course_offsets(480)[1:]   # the spoiled page and the missing ones
    assert files(tmp_path)[0].read_bytes() == course_fetch(fake.url, 480)


# --- no link inside the cache is ever followed ----------------------------------------------------------------------

@pytest.fixture
def victim(tmp_path):
    v = tmp_path / "victim.txt"
    v.write_text("precious\n")
    return v


def test_a_link_planted_at_a_page_is_never_followed(fake, tmp_path, victim):
    cache = tmp_path / "cache"
    pages = cache / "smoke" / "pages"
    pages.mkdir(parents=True)
    link = pages / f"{course_offsets(480)[0]:010d}.jsonl"
    link.symlink_to(victim)
    r = run(corpus_cmd(fake, cache))
    assert r.returncode == 1
    assert f"{link}: is a symbolic link, not a regular file" in r.stderr, r.stderr
    assert victim.read_text() == "precious\n" and link.is_symlink()
    assert fake.page_offsets() == []


def test_a_link_planted_at_the_data_file_is_not_written_through(fake, tmp_path, victim):
    cache = tmp_path / "cache"
    (cache / "smoke").mkdir(parents=True)
    link = cache / "smoke" / "stories.jsonl"
    link.symlink_to(victim)
    r = run(corpus_cmd(fake, cache))
    assert r.returncode == 1
    assert f"{link}: is a symbolic link; wordlab replaces only regular files here, and follows no link" in r.stderr, r.stderr
    assert victim.read_text() == "precious\n" and link.is_symlink()
    assert len(list((cache / "smoke" / "pages").glob("*.jsonl"))) == 5   # the pages are kept for the next fetch


def test_a_cached_file_behind_links_is_not_read(fake, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    assert run(corpus_cmd(fake, elsewhere)).returncode == 0
    cache = tmp_path / "cache"
    (cache / "smoke").mkdir(parents=True)
    for name in ("stories.jsonl", "source_manifest.json"):
        (cache / "smoke" / name).symlink_to(elsewhere / "smoke" / name)
    n = len(fake.requests())
    r = run(corpus_cmd(fake, cache))
    assert r.returncode == 1 and "stories.jsonl: is a symbolic link, not a regular file" in r.stderr, r.stderr
    assert len(fake.requests()) == n


def test_a_profile_directory_that_is_a_link_is_refused(fake, tmp_path):
    cache, other = tmp_path / "cache", tmp_path / "other"
    cache.mkdir()
    other.mkdir()
    (cache / "smoke").symlink_to(other)
    r = run(corpus_cmd(fake, cache))
    assert r.returncode == 1
    assert f"{cache}/smoke is a symbolic link; wordlab follows no link inside its download cache" in r.stderr, r.stderr
    assert list(other.iterdir()) == []


def test_interrupt_during_a_request_keeps_the_pages(fake, tmp_path):
    p, third = start_blocked_fetch(fake, tmp_path)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 1
    assert "Interrupted" in err and "2 of 5 pages fetched" in err and "resumes" in err
    fake.release()
    assert len(list(files(tmp_path)[2].glob("*.jsonl"))) == 2
    r = run(corpus_cmd(fake, tmp_path))
    assert r.returncode == 0 and files(tmp_path)[0].read_bytes() == course_fetch(fake.url, 480)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_no_server_is_a_clear_error_after_the_retries(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    r = run(f'corpus profile=smoke source=tinystories cache="{tmp_path}" api="{url}" time_scale=0.001')
    assert r.returncode == 1
    assert "cannot connect (no network, or the server is down)" in r.stderr and "8 attempts failed" in r.stderr


def test_tls_failure_is_a_clear_error(fake, tmp_path):
    url = fake.url.replace("http://", "https://")
    r = run(f'corpus profile=smoke source=tinystories cache="{tmp_path}" api="{url}" time_scale=0.001')
    assert r.returncode == 1 and "TLS failure" in r.stderr
    assert len(fake.requests()) == 0   # a TLS hello is no HTTP request, and it is not retried


def test_the_default_cache_is_the_users_cache_directory(fake, tmp_path):
    code = f'corpus profile=smoke source=tinystories api="{fake.url}" time_scale=0.001'
    assert run(code, env={"XDG_CACHE_HOME": str(tmp_path / "xdg")}).returncode == 0
    assert (tmp_path / "xdg/wordlab/tinystories/smoke/stories.jsonl").exists()
    assert run(code, env={"XDG_CACHE_HOME": "", "HOME": str(tmp_path / "home")}).returncode == 0
    assert (tmp_path / "home/.cache/wordlab/tinystories/smoke/stories.jsonl").exists()


def test_a_dgx_subset_that_is_not_the_courses_says_so(fake, tmp_path):
    r = run(corpus_cmd(fake, tmp_path, "dgx"))
    assert r.returncode == 0, r.stderr
    assert "6000 stories in 60 pages" in r.stdout
    assert "not the course's dgx subset" in r.stdout and "ecaf3b99879170311c1fcde645251b97" in r.stdout
    assert fake.page_offsets() == course_offsets(6000)


@pytest.mark.parametrize("code,message", [
    ("corpus source=web", 'unknown source "web"'),
    ("corpus cache=/tmp/x", "cache= goes with source=tinystories"),
    ("corpus source=tinystories file=x.jsonl", "file= does not go with source=tinystories"),
    ("corpus source=tinystories stories=10", "stories= does not go with source=tinystories"),
    ("corpus source=tinystories api=ftp://x", "api= must be an http:// or https:// base URL"),
    ("corpus source=tinystories time_scale=2", "time_scale must be between 0 and 1"),
])
def test_option_errors(code, message):
    r = run(code)
    assert r.returncode == 1 and message in r.stderr


def test_the_notebook_shows_a_live_page_display(kernel, fake, tmp_path):
    import kernel_util as ku
    km, kc = kernel
    msg_id = kc.execute(corpus_cmd(fake, tmp_path))
    msgs = ku.collect(kc, msg_id, timeout=60)
    live = [m for m in msgs if m["msg_type"] in ("display_data", "update_display_data")
            and "wordlab-fetch" in m["content"]["data"].get("text/html", "")]
    # one display, then updates in place (the kernel may coalesce updates that follow each other closely)
    assert live[0]["msg_type"] == "display_data" and "page 1/5" in live[0]["content"]["data"]["text/plain"]
    assert len(live) >= 2 and all(m["msg_type"] == "update_display_data" for m in live[1:])
    assert len({m["content"]["transient"]["display_id"] for m in live}) == 1
    assert "<progress value=\"5\" max=\"5\">" in live[-1]["content"]["data"]["text/html"]
    assert "page 5/5" in live[-1]["content"]["data"]["text/plain"]
    assert files(tmp_path)[0].read_bytes() == course_fetch(fake.url, 480)
