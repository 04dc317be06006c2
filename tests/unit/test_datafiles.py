"""The one data-file reader (edgeprof.files.datafiles): hostile files are one DataFileError naming the file and the
array, never a traceback, a hang, an allocation of what a header claims, or a silent change of a value."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import numpy as np
import numpy.lib.format as npformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from edgeprof.export.inputs import cached_npz
from edgeprof.export.inputs import read_npz as inputs_read_npz
from edgeprof.files import datafiles
from edgeprof.files.datafiles import DataFileError, as_labels, cast_exact, read_npy, read_npz, require_finite

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def header_only(path: Path, shape: tuple[int, ...], descr: str = "<f4", size: int | None = None) -> Path:
    with open(path, "wb") as f:
        npformat.write_array_header_1_0(f, {"descr": descr, "fortran_order": False, "shape": shape})
        if size is not None:
            f.truncate(size)
    return path


def test_plain_arrays_read_back_unchanged(tmp_path: Path) -> None:
    a = np.arange(12, dtype=">i4").reshape(3, 4)
    f = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "f.npy", f)
    assert np.array_equal(read_npy(tmp_path / "a.npy"), a) and np.array_equal(read_npy(tmp_path / "f.npy"), f)
    np.savez(tmp_path / "z.npz", x=a, y=f)
    np.savez_compressed(tmp_path / "c.npz", x=a, y=f)
    for name in ("z.npz", "c.npz"):
        got = read_npz(tmp_path / name)
        assert set(got) == {"x", "y"} and np.array_equal(got["x"], a) and np.array_equal(got["y"], f)
    assert inputs_read_npz is not None and cached_npz is not None  # still importable where accuracy.py finds them


@pytest.mark.timeout(20)
@pytest.mark.parametrize("kind", ["fifo", "dir", "dev"])
def test_non_regular_files_are_refused_before_opening(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "x.npz"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dir":
        path.mkdir()
    else:
        path = Path("/dev/zero")
    for read in (read_npy, read_npz):
        with pytest.raises(DataFileError, match="not a regular file"):
            read(path)


@pytest.mark.parametrize("shape,descr,size,message", [
    ((10**12, 4), "<f4", 2 * 10**9, "above the limit"),  # a sparse 2 GB file claiming 16 TB
    ((1000, 1000), "<f8", 200, "only"),  # 8 MB claimed, 200 bytes there
    ((0, 3), "<f4", None, "holds no values"),
    ((3,), "<U4", None, "unicode strings"),
    ((3,), "<c8", None, "complex numbers"),
    ((3,), "|O", None, "Python objects"),
    ((3,), "|S2", None, "byte strings"),
    ((3,), "<M8[s]", None, "datetimes"),
])
def test_a_header_that_does_not_fit_is_refused_before_allocating(tmp_path: Path, shape: tuple[int, ...], descr: str,
                                                                 size: int | None, message: str) -> None:
    path = header_only(tmp_path / "h.npy", shape, descr, size)
    with pytest.raises(DataFileError, match=message) as info:
        read_npy(path, "--input-data d: h.npy")
    assert info.value.message.startswith("--input-data d: h.npy: ") and "\n" not in str(info.value)


def test_a_structured_dtype_and_a_pickle_are_refused(tmp_path: Path) -> None:
    np.save(tmp_path / "s.npy", np.zeros(2, dtype=[("a", "<i4"), ("b", "<f4")]))
    with pytest.raises(DataFileError, match="structured"):
        read_npy(tmp_path / "s.npy")
    np.save(tmp_path / "o.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(DataFileError, match="Python objects"):
        read_npy(tmp_path / "o.npy")


def test_a_zip_bomb_and_a_lying_member_are_refused_unread(tmp_path: Path) -> None:
    np.savez_compressed(tmp_path / "bomb.npz", x=np.zeros(40 << 20, dtype=np.uint8))
    with pytest.raises(DataFileError, match="zip bomb") as info:
        read_npz(tmp_path / "bomb.npz", "--accuracy bomb.npz")
    assert "array 'x'" in info.value.message
    buf = io.BytesIO()
    npformat.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": (10**6,)})
    with zipfile.ZipFile(tmp_path / "lie.npz", "w") as z:
        z.writestr("x.npy", buf.getvalue() + b"\0" * 64)
    with pytest.raises(DataFileError, match="only"):
        read_npz(tmp_path / "lie.npz")
    with zipfile.ZipFile(tmp_path / "other.npz", "w") as z:
        z.writestr("notes.txt", b"hello")
    with pytest.raises(DataFileError, match="not an .npy member"):
        read_npz(tmp_path / "other.npz")


@pytest.mark.parametrize("arr,dtype,message", [
    (np.array([1e300, 1.0]), "float32", "overflows float32"),
    (np.array([2**63 + 5], dtype=np.uint64), "int64", "does not fit int64"),
    (np.array([-1], dtype=np.int64), "uint8", "does not fit uint8"),
    (np.array([300], dtype=np.int64), "int8", "does not fit int8"),
    (np.array([1.5]), "int32", "cannot hold"),
    (np.array([np.nan]), "int64", "cannot hold"),
    (np.array([2], dtype=np.int64), "bool", "cannot hold"),
    (np.array([2**24 + 1], dtype=np.int64), "float32", "cannot represent exactly"),
])
def test_casts_that_change_a_value_are_refused(arr: np.ndarray, dtype: str, message: str) -> None:
    with pytest.raises(DataFileError, match=message):
        cast_exact(arr, dtype, "f.npz: array 'x'")


def test_labels_and_finite_values() -> None:
    with pytest.raises(DataFileError, match="does not fit int64"):
        as_labels(np.array([2**64 - 1], dtype=np.uint64), "a: labels")
    with pytest.raises(DataFileError, match="negative"):
        as_labels(np.array([-3]), "a: labels")
    assert as_labels(np.array([3], dtype=np.uint8), "a").dtype == np.int64
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(DataFileError, match="non-finite"):
            require_finite(np.array([1.0, bad]), "a: expected")
    with pytest.raises(DataFileError, match="beyond"):
        require_finite(np.array([1e308]), "a: expected", max_abs=1e30)


# -- properties ------------------------------------------------------------------------------------------------

NUMERIC = st.one_of(hnp.boolean_dtypes(), hnp.integer_dtypes(), hnp.unsigned_integer_dtypes(),
                    hnp.floating_dtypes())
ARRAYS = hnp.arrays(NUMERIC, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))


@SETTINGS
@given(arr=ARRAYS, compressed=st.booleans())
def test_any_numeric_array_reads_back_bit_for_bit_or_is_refused_as_empty(tmp_path: Path, arr: np.ndarray,
                                                                         compressed: bool) -> None:
    np.save(tmp_path / "a.npy", arr)
    (np.savez_compressed if compressed else np.savez)(tmp_path / "a.npz", x=arr)
    if arr.size == 0:
        with pytest.raises(DataFileError, match="holds no values"):
            read_npy(tmp_path / "a.npy")
        return
    got = read_npy(tmp_path / "a.npy")
    assert got.dtype == arr.dtype and got.shape == arr.shape and got.tobytes() == arr.tobytes()
    z = read_npz(tmp_path / "a.npz")["x"]
    assert z.dtype == arr.dtype and z.tobytes() == arr.tobytes()


@SETTINGS
@given(data=st.binary(max_size=400), prefix=st.sampled_from([b"", b"\x93NUMPY\x01\x00", b"\x93NUMPY\x02\x00",
                                                              b"PK\x03\x04"]))
def test_arbitrary_bytes_are_an_array_or_one_data_file_error(tmp_path: Path, data: bytes, prefix: bytes) -> None:
    for name, read in (("b.npy", read_npy), ("b.npz", read_npz)):
        path = tmp_path / name
        path.write_bytes(prefix + data)
        try:
            read(path)
        except DataFileError as e:
            assert "\n" not in str(e) and str(path) in e.message


@SETTINGS
@given(data=st.data())
def test_corrupting_a_valid_npz_is_never_a_traceback(tmp_path: Path, data: st.DataObject) -> None:
    arr = data.draw(ARRAYS.filter(lambda a: a.size > 0))
    buf = io.BytesIO()
    (np.savez_compressed if data.draw(st.booleans()) else np.savez)(buf, x=arr, y=arr)
    raw = bytearray(buf.getvalue())
    for _ in range(data.draw(st.integers(1, 8))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    (tmp_path / "c.npz").write_bytes(bytes(raw[:cut]) if data.draw(st.booleans()) else bytes(raw))
    try:
        got = read_npz(tmp_path / "c.npz")
    except DataFileError:
        return
    for v in got.values():  # what was read is what a header declared, and it is plain numbers
        assert v.dtype.kind in "biuf" and v.size > 0


@SETTINGS
@given(arr=hnp.arrays(NUMERIC, hnp.array_shapes(max_dims=2, max_side=4)), want=NUMERIC)
def test_cast_exact_changes_no_value(arr: np.ndarray, want: np.dtype) -> None:
    try:
        out = cast_exact(arr, want, "x")
    except DataFileError:
        return
    assert out.dtype == want
    if want.kind == "f" and arr.dtype.kind == "f":  # rounding allowed, overflow and NaN changes not
        assert np.array_equal(np.isfinite(out), np.isfinite(arr)) and np.array_equal(np.isnan(out), np.isnan(arr))
    else:
        assert np.array_equal(out.astype(np.float64 if want.kind == "f" else object), arr.astype(
            np.float64 if want.kind == "f" else object))


def test_the_size_limit_is_one_constant() -> None:
    assert datafiles.MAX_ARRAY_BYTES <= datafiles.MAX_FILE_BYTES


def test_an_npz_asking_for_a_zip_version_zipfile_lacks_is_one_data_file_error(tmp_path: Path) -> None:
    """A central directory entry that says it was made by zip 6.4 (found by the corruption test above): zipfile
    raises NotImplementedError opening it; the reader says the file is not an archive it can read."""
    buf = io.BytesIO()
    np.savez(buf, x=np.arange(4, dtype=np.float32))
    raw = bytearray(buf.getvalue())
    cd = raw.index(b"PK\x01\x02")
    raw[cd + 4:cd + 6] = (64).to_bytes(2, "little")  # version made by: 6.4
    raw[cd + 6:cd + 8] = (64).to_bytes(2, "little")  # version needed to extract: 6.4
    path = tmp_path / "v64.npz"
    path.write_bytes(bytes(raw))
    with pytest.raises(DataFileError, match=r"v64\.npz: not an \.npz archive"):
        read_npz(path)


def test_an_npz_member_with_no_name_is_one_data_file_error(tmp_path: Path) -> None:
    """A central directory entry whose name is empty (found by the corruption test above, round 23): zipfile's
    ZipInfo.is_dir() indexes the name's last character and raised IndexError; the reader says the archive is
    damaged, in one line."""
    path = tmp_path / "noname.npz"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo(""), b"\x93NUMPY")
    with pytest.raises(DataFileError, match=r"noname\.npz: .*member with no name") as e:
        read_npz(path)
    assert "\n" not in str(e.value)
