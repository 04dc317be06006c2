"""A result file from outside (`edgeprof results import FILE`, a recovery file): read with bounds and checked as
edgeprof would have made it.

Owns: reading an import file (regular, bounded, UTF-8 JSON) and validate_result.
Does not own: storing it (db.py).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..errors import StoreError
from ..files.output import visible
from ..records import Result
from .recovery import RUN_ID_RE
from .schema import MAX_ID_CHARS, STATUSES, column_length, runs

MAX_IMPORT_BYTES = 512 << 20  # a result JSON with its raw samples is far smaller


def read_import(path: str | Path) -> str:
    """The text of a result file to import: a regular file (checked before and after a non-blocking open, so a
    FIFO or /dev/zero is refused at once) of at most MAX_IMPORT_BYTES, UTF-8, JSON."""
    hint = "give the path of a result JSON file"
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise StoreError(f"cannot import {path}: not a regular file", hint=hint)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise StoreError(f"cannot import {path}: not a regular file", hint=hint)
            if st.st_size > MAX_IMPORT_BYTES:
                raise StoreError(f"cannot import {path}: {st.st_size} bytes, more than a result file can be "
                                 f"({MAX_IMPORT_BYTES >> 20} MiB)", hint=hint)
            raw = f.read(MAX_IMPORT_BYTES + 1)
    except OSError as e:
        raise StoreError(f"cannot read {path}: {e.strerror or e}", hint=hint) from None
    if len(raw) > MAX_IMPORT_BYTES:
        raise StoreError(f"cannot import {path}: more than {MAX_IMPORT_BYTES >> 20} MiB", hint=hint)
    try:
        text = raw.decode("utf-8")
        json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise StoreError(f"{path} is not JSON: {visible(str(e))[:160]}", hint=hint) from None
    return text


def validate_result(r: Result, where: str) -> None:
    """A Result from outside (an imported file) checked as edgeprof would have made it: a run id like a device
    name (RUN_ID_RE), a known status, names within their columns, a batch from 1, and no negative, NaN or
    infinite latency, sample, throughput or memory. One StoreError line naming `where` and the field."""
    def bad(field: str, why: str) -> StoreError:
        return StoreError(f"{where}: field {field}: {why}",
                          hint="import files written by edgeprof (recovered/<run_id>.json or deploy --json)")

    if not isinstance(r.run_id, str) or not RUN_ID_RE.match(r.run_id) or ".." in r.run_id:
        shown_id = visible(str(r.run_id))
        raise bad("run_id", f"{shown_id[:40]!r}{'…' if len(shown_id) > 40 else ''} ({len(str(r.run_id))} "
                  "characters) is not a run id: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter "
                  "or digit")
    if r.status not in STATUSES:
        raise bad("status", f"{visible(str(r.status))[:40]!r} is not one of {', '.join(STATUSES)}")
    for field, col in (("device", runs.c.device), ("model", runs.c.model), ("runtime", runs.c.runtime),
                       ("precision", runs.c.precision), ("created_at", runs.c.created_at)):
        value = getattr(r, field)
        if not isinstance(value, str) or not value or len(value) > column_length(col):
            raise bad(field, f"must be text of 1 to {column_length(col)} characters "
                      f"(got {len(value) if isinstance(value, str) else type(value).__name__})")
    sweep = r.sweep
    if sweep is not None and (not isinstance(sweep.sweep_id, str) or len(sweep.sweep_id) > MAX_ID_CHARS):
        raise bad("sweep.sweep_id", f"must be text of at most {MAX_ID_CHARS} characters")
    if isinstance(r.batch, bool) or not isinstance(r.batch, int) or not 1 <= r.batch <= 2**31 - 1:
        raise bad("batch", f"{r.batch!r} is not a batch size (1 or more)")
    if r.threads is not None and (isinstance(r.threads, bool) or not isinstance(r.threads, int)
                                  or not 0 <= r.threads <= 2**31 - 1):
        raise bad("threads", f"{r.threads!r} is not a thread count")

    def number(field: str, v: object) -> None:
        if v is None:
            return
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise bad(field, f"{v!r} is not a finite number from 0")

    lat = r.latency_ms
    if lat is not None:
        for name in ("p50", "p90", "p95", "p97", "p99", "p999", "min", "max", "mean", "std"):
            number(f"latency_ms.{name}", getattr(lat, name, None))
    number("throughput_ips", r.throughput_ips)
    if r.memory_mb is not None:
        for name in ("rss_before_load", "rss_after_load", "peak_rss"):
            number(f"memory_mb.{name}", getattr(r.memory_mb, name, None))
    a = np.asarray(r.samples_ms)  # Samples: loading made it numbers (a null or a text there is refused by then)
    wrong = np.flatnonzero(~np.isfinite(a) | (a < 0))
    if wrong.size:
        number(f"samples_ms[{int(wrong[0])}]", float(a[wrong[0]]))
    for section in dataclasses.fields(r):
        _numbers_typed(getattr(r, section.name), section.name, bad)


_NUMERIC = re.compile(r"(float|int)( \| (float|int))*( \| None)?")


def _numbers_typed(obj: object, where: str, bad: Callable[[str, str], StoreError], depth: int = 0) -> None:
    """Every field of a stored section declared as a number holds a finite number, and every one declared as a
    flag holds true or false (or null where the field may be empty): a list or text there would break `results
    show`, compare and the reports."""
    if depth > 4 or not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        path = f"{where}.{f.name}"
        if isinstance(f.type, str) and _NUMERIC.fullmatch(f.type):
            if v is None and f.type.endswith("None"):
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise bad(path, f"{visible(repr(v))[:40]} is not a finite number")
        elif isinstance(f.type, str) and f.type in ("bool", "bool | None"):
            if not (isinstance(v, bool) or (v is None and f.type.endswith("None"))):
                raise bad(path, f"{visible(repr(v))[:40]} is not true or false")
        elif dataclasses.is_dataclass(v):
            _numbers_typed(v, path, bad, depth + 1)
