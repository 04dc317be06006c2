"""The one reader of user data files: `.npy`, `.npz`, and directories of `.npy` (--input-data, --accuracy,
--calibration and the sweep settings that name them).

Owns: opening a user's array file safely and reading it only when what it claims fits — a regular file (never a
FIFO, device or socket; opened non-blocking so one swapped in cannot hang), no pickles, the .npy header's
shape × itemsize checked against a size limit and against the bytes really there (for .npz members: the zip
entry's size, and a compression ratio that betrays a zip bomb) before anything is allocated; plain numeric dtypes
only (bool, int, uint, float), at least one sample; and casts that keep every value (`cast_exact`), finite data
where NaN/inf makes no sense (`require_finite`), labels as int64 (`as_labels`). Every refusal is one
DataFileError line naming the file and the array.
Does not own: what the arrays mean (export/inputs.py plans inputs, accuracy.py scores, export/quantize.py
calibrates), the cache copies pushed to a device (export/inputs.cached_npz).
"""

from __future__ import annotations

import math
import os
import stat
import struct
import zipfile
import zlib
from pathlib import Path
from typing import IO, BinaryIO

import numpy as np
import numpy.lib.format as npformat

from ..errors import ConfigError

__all__ = ["MAX_ARRAY_BYTES", "MAX_FILE_BYTES", "DataFileError", "NotAnArchive", "as_labels", "cast_exact", "open_regular",
           "read_npy", "read_npy_dir", "read_npz", "require_calibration_dir", "require_finite"]

MAX_ARRAY_BYTES = 1 << 30  # one array in memory: 1 GiB
MAX_FILE_BYTES = 4 << 30  # all arrays of one file (or directory) together
MAX_RATIO = 200  # uncompressed / compressed size of one .npz member above which it is refused (a zip bomb)
RATIO_FLOOR = 16 << 20  # ... when the member unpacks to more than this (small, very regular arrays are fine)
MAX_HEADER = 10_000  # numpy's own default bound on an .npy header
MAX_MEMBERS = 10_000
ALLOWED_KINDS = "biuf"  # bool, signed and unsigned integers, floats
KIND_WORDS = {"O": "Python objects", "S": "byte strings", "U": "unicode strings", "c": "complex numbers",
              "V": "a structured/void record", "M": "datetimes", "m": "timedeltas"}
SAVE_HINT = "save plain numeric arrays with numpy.save / numpy.savez (no pickles, strings or complex numbers)"


class DataFileError(ConfigError):
    """A user data file (.npy / .npz) that cannot be read as it is: one line naming the file and the array."""


class NotAnArchive(DataFileError):
    """The file given as an .npz is not a zip archive at all (perhaps a single .npy)."""


def _fail(where: str, what: str, hint: str = SAVE_HINT) -> DataFileError:
    return DataFileError(f"{where}: {what}", hint=hint)


def open_regular(path: str | os.PathLike[str], where: str) -> BinaryIO:
    """`path` opened for reading if it is a regular file. The type is checked before opening (stat) and again on
    the open descriptor (a FIFO swapped in between cannot block: O_NONBLOCK)."""
    p = os.fspath(path)
    try:
        st = os.stat(p)
    except OSError as e:
        raise _fail(where, f"cannot read it ({e.strerror or e})", "give an existing .npy/.npz file") from None
    if not stat.S_ISREG(st.st_mode):
        raise _fail(where, f"not a regular file ({_kind(st.st_mode)})", "give an .npy/.npz file on disk")
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise _fail(where, f"cannot open it ({e.strerror or e})", "check the path and its permissions") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _fail(where, f"not a regular file ({_kind(st.st_mode)})", "give an .npy/.npz file on disk")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _kind(mode: int) -> str:
    for test, word in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return word
    return "not a plain file"


def _header(f: IO[bytes], where: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    """The .npy header (shape, fortran order, dtype) with the dtype and shape checked; the stream is left at the
    first data byte."""
    try:
        major, _minor = npformat.read_magic(f)
        if major == 1:
            shape, fortran, dtype = npformat.read_array_header_1_0(f, max_header_size=MAX_HEADER)
        elif major in (2, 3):
            shape, fortran, dtype = npformat.read_array_header_2_0(f, max_header_size=MAX_HEADER)
        else:
            raise ValueError(f"unknown .npy format version {major}")
    except (ValueError, EOFError, OSError, SyntaxError, TypeError, struct.error, OverflowError, MemoryError,
            RecursionError, zipfile.BadZipFile, zlib.error) as e:
        raise _fail(where, f"not a numpy .npy array ({_short(e)})") from None
    dtype = np.dtype(dtype)
    if dtype.hasobject or dtype.kind not in ALLOWED_KINDS or dtype.itemsize == 0:
        what = KIND_WORDS.get(dtype.kind, "not plain numbers")
        raise _fail(where, f"dtype {dtype.str} holds {'Python objects' if dtype.hasobject else what}; "
                    "edgeprof reads bool, integer and float arrays only")
    if any(d < 0 for d in shape):
        raise _fail(where, f"the header's shape {shape} has a negative dimension")
    return tuple(int(d) for d in shape), bool(fortran), dtype


def _short(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def _check_size(where: str, shape: tuple[int, ...], dtype: np.dtype, available: int, limit: int) -> int:
    count = math.prod(shape)
    if count == 0:
        raise _fail(where, f"holds no values (shape {_dims(shape)})", "give at least one sample")
    nbytes = count * dtype.itemsize
    if nbytes > min(limit, MAX_ARRAY_BYTES):
        raise _fail(where, f"the header claims {_dims(shape)} {dtype.name} = {_size(nbytes)}, above the limit of "
                    f"{_size(min(limit, MAX_ARRAY_BYTES))}", "split the data into smaller files")
    if nbytes > available:
        raise _fail(where, f"the header claims {_dims(shape)} {dtype.name} = {_size(nbytes)} but only "
                    f"{_size(max(available, 0))} follow (a truncated or forged file)")
    return nbytes


def _dims(shape: tuple[int, ...]) -> str:
    return "x".join(str(d) for d in shape) if shape else "(scalar)"


def _size(n: int) -> str:
    for unit, k in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k:
            return f"{n / k:.1f} {unit}"
    return f"{n} bytes"


def _read_body(f: IO[bytes], where: str, shape: tuple[int, ...], fortran: bool, dtype: np.dtype,
               nbytes: int) -> np.ndarray:
    arr = np.empty(math.prod(shape), dtype=dtype)
    view = arr.data.cast("B")
    got = 0
    while got < nbytes:
        n = f.readinto(view[got:])  # type: ignore[attr-defined]
        if not n:
            raise _fail(where, f"truncated: {got} of {nbytes} data bytes")
        got += n
    return arr.reshape(shape[::-1]).transpose() if fortran else arr.reshape(shape)


def read_npy(path: str | os.PathLike[str], where: str | None = None, *, limit: int = MAX_FILE_BYTES) -> np.ndarray:
    """One .npy array, checked (see the module docstring). `where` names it in errors (default: the path)."""
    where = where or str(path)
    with open_regular(path, where) as f:
        size = os.fstat(f.fileno()).st_size
        shape, fortran, dtype = _header(f, where)
        nbytes = _check_size(where, shape, dtype, size - f.tell(), limit)
        try:
            return _read_body(f, where, shape, fortran, dtype, nbytes)
        except OSError as e:
            raise _fail(where, f"cannot read it ({_short(e)})") from None


def read_npz(path: str | os.PathLike[str], where: str | None = None, *,
             limit: int = MAX_FILE_BYTES) -> dict[str, np.ndarray]:
    """Every array of an .npz archive by name (the member name without `.npy`), each checked as `read_npy` checks,
    their total against `limit`; a member that unpacks far beyond its compressed size is refused unread."""
    where = where or str(path)
    with open_regular(path, where) as f:
        try:
            zf = zipfile.ZipFile(f)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, struct.error, OverflowError,
                NotImplementedError) as e:  # NotImplementedError: a zip feature zipfile lacks ("version 6.4")
            hint = ("a single .npy array is not an .npz archive: save arrays by name with numpy.savez"
                    if str(path).endswith(".npy") else SAVE_HINT)
            raise NotAnArchive(f"{where}: not an .npz archive ({_short(e)})", hint=hint) from None
        with zf:
            members = zf.infolist()
            if len(members) > MAX_MEMBERS:
                raise _fail(where, f"{len(members)} members; at most {MAX_MEMBERS} arrays are read")
            out: dict[str, np.ndarray] = {}
            total = 0
            for m in members:
                if not m.filename:  # a damaged central directory (zipfile's is_dir() indexes the name)
                    raise _fail(where, "holds a member with no name: the archive is damaged")
                if m.is_dir():
                    continue
                name = m.filename[:-4] if m.filename.endswith(".npy") else m.filename
                at = f"{where}: array {name!r}"
                if not m.filename.endswith(".npy"):
                    raise _fail(at, "is not an .npy member (an .npz holds NAME.npy files only)")
                if name in out:
                    raise _fail(at, "appears twice in the archive")
                if m.flag_bits & 0x1:
                    raise _fail(at, "is encrypted")
                if m.compress_type != zipfile.ZIP_STORED and m.file_size > RATIO_FLOOR \
                        and m.file_size > MAX_RATIO * max(m.compress_size, 1):
                    raise _fail(at, f"unpacks {m.compress_size} bytes into {_size(m.file_size)} (more than "
                                f"{MAX_RATIO}x): refused as a zip bomb", "save it with numpy.savez (uncompressed)")
                try:
                    with zf.open(m) as member:
                        shape, fortran, dtype = _header(member, at)
                        nbytes = _check_size(at, shape, dtype, m.file_size - member.tell(), limit - total)
                        out[name] = _read_body(member, at, shape, fortran, dtype, nbytes)
                except (zipfile.BadZipFile, OSError, ValueError, EOFError, struct.error, zlib.error,
                        NotImplementedError, RuntimeError, OverflowError) as e:
                    if isinstance(e, DataFileError):
                        raise
                    raise _fail(at, f"cannot be read ({_short(e)})") from None
                total += nbytes
            return out


def read_npy_dir(path: str | os.PathLike[str], where: str | None = None, *,
                 limit: int = MAX_FILE_BYTES) -> dict[str, np.ndarray]:
    """Every NAME.npy of a directory (sorted, by NAME), read like `read_npy`, their total against `limit`."""
    where = where or str(path)
    root = Path(path)
    try:
        files = sorted(p for p in root.iterdir() if p.suffix == ".npy")
    except OSError as e:
        raise _fail(where, f"cannot list it ({e.strerror or e})", "give a readable directory") from None
    out: dict[str, np.ndarray] = {}
    total = 0
    for p in files:
        arr = read_npy(p, f"{where}: {p.name}", limit=limit - total)
        total += arr.nbytes
        out[p.stem] = arr
    return out


# -- values ----------------------------------------------------------------------------------------------------


def cast_exact(arr: np.ndarray, dtype: str | np.dtype, where: str) -> np.ndarray:
    """`arr` as `dtype` when the cast keeps every value: integers in range (no wrap-around, no negative into
    unsigned), integers exactly representable in a float target, floats that stay finite (float64 → float32 may
    round, never overflow to inf), bool only from bool; floats never into integers. Else one DataFileError."""
    want = np.dtype(dtype)
    have = arr.dtype
    if have == want:
        return arr
    k, h = want.kind, have.kind
    if h not in ALLOWED_KINDS or k not in ALLOWED_KINDS or (k == "b" and h != "b") or (k in "iu" and h == "f"):
        raise _fail(where, f"is {have.name}; the input is {want.name}, which cannot hold its values",
                    f"save it as {want.name} (numpy: arr.astype('{want.name}'))")
    if k in "iu" and h in "iu":
        info = np.iinfo(want)
        lo, hi = int(arr.min()), int(arr.max())
        if lo < info.min or hi > info.max:
            bad = lo if lo < info.min else hi
            raise _fail(where, f"value {bad} does not fit {want.name} ({info.min}..{info.max})",
                        f"save it as {want.name} with values in range")
        return arr.astype(want)
    if k == "f":
        with np.errstate(all="ignore"):
            out = arr.astype(want)
        if h == "f":
            grew = np.isinf(out) & np.isfinite(arr)
            if grew.any():
                raise _fail(where, f"value {float(arr[grew].flat[0])!r} overflows {want.name} (it would become inf)",
                            f"scale the data into {want.name}'s range (±{np.finfo(want).max:.3g})")
        elif h in "iu":
            back = out.astype(have) if np.isfinite(out).all() else None
            if back is None or not np.array_equal(back, arr):
                raise _fail(where, f"holds integers that {want.name} cannot represent exactly",
                            f"save it as {want.name}")
        return out
    return arr.astype(want)


def require_finite(arr: np.ndarray, where: str, what: str = "values", max_abs: float | None = None) -> np.ndarray:
    """`arr` unchanged if every value is finite (NaN and ±inf cannot be scored) and, with `max_abs`, no larger
    in magnitude (1e308 squared is inf), else one line."""
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            raise _fail(where, f"holds {int(bad.sum())} non-finite {what} (first: {float(arr[bad].flat[0])!r})",
                        "give finite numbers")
        big = np.abs(arr).max() if arr.size else 0.0
        if max_abs is not None and big > max_abs:
            raise _fail(where, f"value {float(big):.3g} is beyond ±{max_abs:.3g}; errors against it overflow",
                        "give values a model can output")
    return arr


def as_labels(arr: np.ndarray, where: str) -> np.ndarray:
    """Class-index labels as int64: integers from 0 up to int64's max (uint64 above it would wrap), else one
    line."""
    if arr.dtype.kind not in "iu":
        raise _fail(where, f"is {arr.dtype.name}: labels are integer class indices",
                    "save labels as an int array of shape (N,)")
    if arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < 0:
            raise _fail(where, f"label {lo} is negative; labels are class indices from 0")
        if hi > np.iinfo(np.int64).max:
            raise _fail(where, f"label {hi} does not fit int64", "labels are class indices from 0")
    return arr.astype(np.int64)


def require_calibration_dir(given: str | None) -> Path | None:
    """`--calibration DIR` checked as soon as it is given, whatever the precision: an existing directory (the
    files in it are read by export/quantize.py). None stays None."""
    if given is None:
        return None
    root = Path(given).expanduser()
    if not root.exists():
        raise ConfigError(f"--calibration {given}: no such directory",
                          hint="give a directory of .npy files (one per sample) or .npz files (keys = input names)")
    if not root.is_dir():
        raise ConfigError(f"--calibration {given}: not a directory",
                          hint="give a directory of .npy files (one per sample) or .npz files (keys = input names)")
    return root
