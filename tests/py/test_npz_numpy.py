"""test_npz_numpy.py: NumPy reads the .npz files wordlab writes, and wordlab reads what numpy.savez(_compressed) writes.

Drives the io_npzcheck helper (tests/unit/io/npzcheck.c) found in WL_BUILD_DIR.
"""
import io
import json
import os
import subprocess
import zipfile
import zlib

import numpy as np
import pytest

NOTE = "h\u00e9llo \u2013 \u4e16\u754c \U0001f642"


@pytest.fixture(scope="module")
def npzcheck():
    build = os.environ.get("WL_BUILD_DIR")
    assert build, "WL_BUILD_DIR is not set (run through ctest)"
    exe = os.path.join(build, "io_npzcheck")
    assert os.access(exe, os.X_OK), f"{exe} is missing: build the io_npzcheck target"
    return exe


def run(exe, *args, ok=True):
    p = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, timeout=60)
    if ok:
        assert p.returncode == 0, p.stderr
    else:
        assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    return p


def dump(exe, path):
    return json.loads(run(exe, "read", path).stdout)["arrays"]


def expected_fixed():
    """The arrays io_npzcheck's `write` produces (see write_fixed in npzcheck.c)."""
    return {
        "state__w": np.arange(12, dtype=np.float32).reshape(3, 4) * np.float32(0.5) - np.float32(1.0),
        "idx": (np.arange(5, dtype=np.int32) - 2) * 1000003,
        "big": ((np.arange(8, dtype=np.int64) - 4) * (1 << 40) + np.arange(8)).reshape(2, 2, 2),
        "scalar": np.array(2.718281828459045),
        "mask": np.array([True, False, True]),
        "empty": np.zeros((0, 3), dtype=np.float32),
        "metadata_json": np.array(json.dumps({"kind": "attention", "note": NOTE}, ensure_ascii=False)),
    }


@pytest.mark.parametrize("mode,method", [("stored", zipfile.ZIP_STORED), ("deflate", zipfile.ZIP_DEFLATED)])
def test_numpy_reads_wordlab(npzcheck, tmp_path, mode, method):
    path = tmp_path / f"w_{mode}.npz"
    run(npzcheck, "write", path, mode)
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None
        assert [i.compress_type for i in zf.infolist()] == [method] * 7
    want = expected_fixed()
    with np.load(path) as z:
        assert z.files == list(want)
        for name, ref in want.items():
            got = z[name]
            assert got.dtype == ref.dtype, name
            assert got.shape == ref.shape, name
            assert np.array_equal(got, ref), name
        meta = json.loads(str(z["metadata_json"]))
    assert meta == {"kind": "attention", "note": NOTE}


def sample_arrays():
    rng = np.random.default_rng(7)
    return {
        "state__E": rng.standard_normal((40, 16)).astype(np.float32),
        "state__b": rng.standard_normal(16).astype(np.float32),
        "ids": rng.integers(-2**31, 2**31 - 1, size=(3, 5), dtype=np.int32),
        "steps": rng.integers(-2**62, 2**62, size=(2, 3, 4), dtype=np.int64),
        "f64": rng.standard_normal((2, 2, 2, 2)),
        "lr": np.float64(0.003),
        "flags": np.array([True, False, False, True]),
        "bytes": np.arange(250, dtype=np.uint8),
        "\u00e9tat_\u4e16": np.ones((2, 2), np.float32),
        "empty": np.zeros((0,), dtype=np.float32),
        "metadata_json": json.dumps({"kind": "multihead", "seed": 11, "note": NOTE}, ensure_ascii=False),
        "blank": "",
    }


DTYPE = {"float32": "<f4", "float64": "<f8", "int32": "<i4", "int64": "<i8", "uint8": "|u1", "bool": "|b1"}


def check_dump(arrays, ref):
    assert [a["name"] for a in arrays] == list(ref)
    for a in arrays:
        r = np.asarray(ref[a["name"]])
        assert a["shape"] == list(r.shape), a["name"]
        if r.dtype.kind == "U":
            assert a["dtype"] == "<U"
            assert a["string"] == str(r)
        else:
            assert a["dtype"] == DTYPE[r.dtype.name], a["name"]
        assert a["nbytes"] == r.nbytes
        assert a["crc32"] == zlib.crc32(r.tobytes())
        if "hex" in a:
            assert a["hex"] == r.tobytes().hex(), a["name"]


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed])
def test_wordlab_reads_numpy(npzcheck, tmp_path, save):
    ref = sample_arrays()
    path = tmp_path / "n.npz"
    save(path, **ref)
    check_dump(dump(npzcheck, path), ref)


def test_large_compressed_member(npzcheck, tmp_path):
    rng = np.random.default_rng(3)
    ref = {"state__W": rng.standard_normal((600, 700)).astype(np.float32), "zeros": np.zeros((512, 1024), np.float32)}
    path = tmp_path / "big.npz"
    np.savez_compressed(path, **ref)
    check_dump(dump(npzcheck, path), ref)


class Unseekable(io.RawIOBase):
    """A write-only stream without seek: zipfile then writes data descriptors (flag bit 3)."""

    def __init__(self):
        self.buf = bytearray()

    def writable(self):
        return True

    def write(self, b):
        self.buf += b
        return len(b)


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed])
def test_data_descriptors(npzcheck, tmp_path, save):
    ref = sample_arrays()
    out = Unseekable()
    save(out, **ref)
    path = tmp_path / "stream.npz"
    path.write_bytes(bytes(out.buf))
    with zipfile.ZipFile(path) as zf:
        assert all(i.flag_bits & 0x08 for i in zf.infolist()), "expected data descriptors"
    check_dump(dump(npzcheck, path), ref)


@pytest.mark.parametrize("mode", ["stored", "deflate"])
def test_copy_through_wordlab(npzcheck, tmp_path, mode):
    ref = sample_arrays()
    src, dst = tmp_path / "src.npz", tmp_path / "dst.npz"
    np.savez_compressed(src, **ref)
    run(npzcheck, "copy", src, dst, mode)
    with np.load(dst) as z:
        assert z.files == list(ref)
        for name, r in ref.items():
            r = np.asarray(r)
            assert z[name].dtype == r.dtype and z[name].shape == r.shape, name
            assert np.array_equal(z[name], r), name


def test_bad_numpy_files(npzcheck, tmp_path):
    good = tmp_path / "good.npz"
    np.savez_compressed(good, w=np.arange(100, dtype=np.float32), m=np.array(NOTE))
    data = good.read_bytes()

    def fails(name, blob, *fragments):
        path = tmp_path / name
        path.write_bytes(blob)
        err = run(npzcheck, "read", path, ok=False).stderr
        assert str(path) in err, err
        for f in fragments:
            assert f in err, (f, err)
        return err

    for cut in (0, 10, len(data) // 2, len(data) - 23, len(data) - 1):
        fails(f"cut{cut}.npz", data[:cut], "truncated")
    fails("text.npz", b"hello, not a zip" * 10, "not a ZIP archive")
    # A flipped byte inside the first member's compressed data.
    with zipfile.ZipFile(good) as zf:
        info = zf.infolist()[0]
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 40
    blob = bytearray(data)
    blob[start] ^= 0xFF
    fails("flip.npz", bytes(blob), "member 'w.npy'", "byte offset 0")

    np.savez(tmp_path / "fortran.npz", f=np.asfortranarray(np.ones((3, 4), np.float32)))
    fails("fortran.npz", (tmp_path / "fortran.npz").read_bytes(), "'f.npy'", "fortran_order True")
    np.savez(tmp_path / "be.npz", b=np.arange(4, dtype=">f4"))
    fails("be.npz", (tmp_path / "be.npz").read_bytes(), "'b.npy'", "unsupported dtype")
    np.savez(tmp_path / "obj.npz", o=np.array([1, "x"], dtype=object))
    fails("obj.npz", (tmp_path / "obj.npz").read_bytes(), "'o.npy'", "unsupported dtype")
    np.savez(tmp_path / "ustr.npz", u=np.array(["ab", "c"]))
    fails("ustr.npz", (tmp_path / "ustr.npz").read_bytes(), "'u.npy'", "0-d strings")

    with zipfile.ZipFile(tmp_path / "bz.npz", "w", zipfile.ZIP_BZIP2) as zf:
        zf.writestr("w.npy", data)
    fails("bz.npz", (tmp_path / "bz.npz").read_bytes(), "compression method 12 (bzip2)")
    with zipfile.ZipFile(tmp_path / "dup.npz", "w") as zf:
        with pytest.warns(UserWarning):
            zf.writestr("w.npy", b"x")
            zf.writestr("w.npy", b"y")
    fails("dup.npz", (tmp_path / "dup.npz").read_bytes(), "member 'w.npy'", "duplicate name")
