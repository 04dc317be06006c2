"""Samples: a Result's raw numbers (latencies, issue and due times, in ms) held as one float64 array, and their
compact stored form (schema 9).

Owns: the Samples sequence (8 bytes a value; a Python list of floats holds about 32: a 30-minute sustained run of
a fast model keeps tens of millions of samples), its JSON in (a list of numbers, or the packed object) and out,
and the packed form: {"encoding": "int64-shuffle8-zlib", "per_ms": P, "n": N, "b64": ...}, each value an integer
count of 1/P ms (samples_ms: P = 1 000 000, whole nanoseconds as the agent measured them; issue and due times:
P = 10 000, the 0.1 µs they are rounded to) as little-endian int64, bytes regrouped by position, zlib, base64 —
the agent's wire form (edgeprof_agent.record.PackedInt64). A value is packed only when count / P gives it back
bit for bit; anything else (a phone's summary numbers, a hand-written file) is stored as a JSON list.
Does not own: which Result fields hold Samples (result.py, sections.Scenario), the wire form's codec
(edgeprof_agent.record).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

import numpy as np

from edgeprof_agent.messages import PACKED_INT64, MessageError

from ..errors import StoreError

ENCODING = "int64-shuffle8-zlib"
NS_PER_MS = 1_000_000  # samples_ms: whole nanoseconds
TENTH_US_PER_MS = 10_000  # scenario.scheduled_ms / issued_ms: rounded to 0.1 µs
_CHUNK = 1 << 16


class Samples(Sequence[float]):
    """Numbers in order, as a read-only float64 array (`array`): indexing gives a float, a slice gives Samples
    (a view, no copy), np.asarray(samples) the array itself. Equal to a list or Samples of the same values."""

    __slots__ = ("_a",)
    _a: np.ndarray

    def __init__(self, values: Any = ()) -> None:
        a = values._a if isinstance(values, Samples) else np.ascontiguousarray(values, dtype=np.float64)
        if a.ndim != 1:
            a = a.reshape(-1)
        if a.flags.writeable:
            a = a.view()
            a.flags.writeable = False
        self._a = a

    @property
    def array(self) -> np.ndarray:
        return self._a

    def __len__(self) -> int:
        return int(self._a.shape[0])

    @overload
    def __getitem__(self, i: int) -> float: ...

    @overload
    def __getitem__(self, i: slice) -> Samples: ...

    def __getitem__(self, i: int | slice) -> float | Samples:
        if isinstance(i, slice):
            return Samples(self._a[i])
        return float(self._a[i])

    def __iter__(self) -> Iterator[float]:  # plain floats, a chunk at a time (no list of every value at once)
        return itertools.chain.from_iterable(self._a[i:i + _CHUNK].tolist() for i in range(0, len(self), _CHUNK))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._a if dtype is None or np.dtype(dtype) == self._a.dtype else self._a.astype(dtype)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Samples):
            return bool(np.array_equal(self._a, other._a))
        if isinstance(other, list | tuple):
            return len(other) == len(self) and self.tolist() == list(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        head = ", ".join(repr(v) for v in self._a[:4].tolist())
        return f"Samples(n={len(self)}: [{head}{', ...' if len(self) > 4 else ''}])"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Samples, (np.array(self._a),))

    def __deepcopy__(self, memo: dict[int, Any]) -> Samples:
        return self  # read-only

    def tolist(self) -> list[float]:
        return self._a.tolist()

    def json_numbers(self) -> str:
        """The values as a JSON list of numbers, written a block at a time (json's own float text; a NaN or
        infinity as null): no list of every value, and one line, whatever the indent of the text around it."""
        parts = []
        for i in range(0, len(self), _CHUNK):
            block = self._a[i:i + _CHUNK]
            text = json.dumps(block.tolist(), allow_nan=True)[1:-1]
            if not np.all(np.isfinite(block)):
                text = ", ".join("null" if v in ("NaN", "Infinity", "-Infinity") else v for v in text.split(", "))
            parts.append(text)
        return "[" + ", ".join(parts) + "]"

    def packed(self, per_ms: int) -> dict[str, Any] | list[float]:
        """The stored form: the packed object when every value is a whole count of 1/per_ms ms that gives it
        back exactly, else the JSON list."""
        if not len(self):
            return []
        counts = np.empty(len(self), dtype=np.int64)
        for i in range(0, len(self), _CHUNK * 16):  # a block at a time: no full-size temporaries beside `counts`
            part = self._a[i:i + _CHUNK * 16]
            c = np.rint(part * per_ms)
            if not (np.all(np.abs(c) < 2 ** 53) and np.array_equal(c / per_ms, part)):
                return self.tolist()  # not whole counts (or not finite): the numbers as they are
            counts[i:i + len(c)] = c
        wire = PACKED_INT64.encode(counts)
        return {"encoding": ENCODING, "per_ms": per_ms, "n": wire["n"], "b64": wire["b64"]}

    @classmethod
    def from_json(cls, value: Any, where: str) -> Samples:
        """Samples from a stored value: a list of numbers (every schema), or the packed object (schema 9).
        StoreError naming `where` for anything else."""
        if value is None:
            return cls()
        if isinstance(value, list):
            try:
                return cls(np.asarray(value, dtype=np.float64))
            except (TypeError, ValueError):
                raise StoreError(f"result field {where} is not a list of numbers",
                                 hint="the result JSON is damaged; rerun the measurement") from None
        if isinstance(value, Mapping) and set(value) == {"encoding", "per_ms", "n", "b64"}:
            per_ms = value["per_ms"]
            if value["encoding"] != ENCODING or per_ms not in (NS_PER_MS, TENTH_US_PER_MS):
                raise StoreError(f"result field {where} is packed as {value['encoding']!r} per {per_ms!r} of a ms, "
                                 f"which this edgeprof does not read",
                                 hint="it was written by another edgeprof version; upgrade edgeprof to read it")
            try:
                counts = PACKED_INT64.decode({"dtype": "<i8", "codec": PACKED_INT64.CODEC, "n": value["n"],
                                              "b64": value["b64"]}, where)
            except MessageError as e:
                raise StoreError(f"result field {e}", hint="the result JSON is damaged; rerun the measurement"
                                 ) from None
            return cls(np.frombuffer(counts, dtype=np.int64) / per_ms)
        raise StoreError(f"result field {where} is neither a list of numbers nor a packed object "
                         "{encoding, per_ms, n, b64}", hint="the result JSON is damaged; rerun the measurement")


def _int64(values: Sequence[int]) -> np.ndarray:
    """The agent's int64 array (no copy), or a list of integers, as an int64 array."""
    if hasattr(values, "typecode"):  # array("q") (edgeprof_agent.record.Int64s)
        return np.frombuffer(values, dtype=np.int64)  # type: ignore[call-overload]
    return np.asarray(values, dtype=np.int64)


def ms_from_ns(values: Sequence[int]) -> Samples:
    """Integer nanoseconds as ms: each ns / 1e6, as float(ns) / 1e6 gives it."""
    return Samples(_int64(values) / 1e6)


def ms_from_ns_tenth_us(values: Sequence[int]) -> Samples:
    """Integer nanoseconds as ms rounded to 0.1 µs (issue and due times)."""
    return Samples(np.rint(_int64(values) / 100.0) / TENTH_US_PER_MS)
