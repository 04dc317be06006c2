"""The calibration table: what one device measured for one runtime configuration, as a typed, versioned JSON file.

Owns: `TableKey` (device facts, runtime name and version, precision, threads, graph level, and the host
onnxruntime version that read the fused graphs, or for a LiteRT table the host LiteRT that read its files),
`CalibrationTable` (the measured calibration models with their
kernels and per-kernel profiled times, each model's time in the calibration, and the speed probe's samples:
`SpeedProbe`), save/load (schema_version; an unknown newer version is refused in one
line), the default place tables live (~/.cache/edgeprof/tables/<device>-<runtime>-<precision>-t<threads>.json),
and `check_key`: a table measured with another runtime version, precision, thread count or graph level is
refused in one line naming the difference.
Does not own: fitting (fit.py), measuring (calibrate.py).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import zlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .graph import Kernel

__all__ = ["SCHEMA_VERSION", "READING", "TableKey", "MeasuredKernel", "CalibrationModel", "CalibrationTable", "SpeedProbe",
           "check_key",
           "load_table", "save_table", "default_table_path", "tables_dir", "TableMismatch"]

# how this edgeprof reads a graph into kernels (graph.py, tflite.py: each kernel's key, FLOPs, bytes, calls), numbered:
# raised with every change to a key or a feature, so that a table read by another reading says so (service.predict
# warns; `edgeprof calibrate --reread FILE` reads it again: reread.py). 0: a table from before the readings were
# numbered (round 17). tests/unit/test_predict_reread.py keeps a fingerprint of the reading of the generated models:
# it fails when the reading changes and READING does not. 2 (round 20): shapes past onnxruntime's quantised contrib
# ops read, not guessed (QLinearConcat's inputs, a channels_last attribute, a Reshape's stored target), which moves
# int8 kernels' FLOPs; the generated fp32 models read as in 1. 3 (round 20, after its run): a Gather along an inner
# axis is "Gather/inner" with its blocks as spans, a Pow that calls pow() "Pow/general". 4 (round 22): a per-axis
# DequantizeLinear over rows shorter than 32 elements is "DequantizeLinear/rows" with its rows as spans (int8 graphs).
# 5 (round 22, after its run): an 8-bit MaxPool the "all" graph runs channels-last is "MaxPool/nhwc" (layout.py).
# 6 (round 26, after its run): a float Conv MLAS runs image by image carries its calls and one call's bytes (images.py)
# 7 (round 27): a reduction's axes of size 1 are not counted when it is keyed "last" or "strided" (variants.py)
READING = 7

# 2: the speed probe (CalibrationTable.probe) and each model's time in the calibration (CalibrationModel.at_s);
# a version-1 table has neither and loads as before
SCHEMA_VERSION = 2
_FORMAT = "edgeprof-calibration-table"
_DEVICE_FACTS = ("hostname", "arch", "cpu", "cores", "memory_mb", "os", "board_model")


class TableMismatch(ConfigError):
    """A table measured under another configuration than the one asked for."""


@dataclass(frozen=True)
class TableKey:
    """What a table is valid for. `device` holds the facts the agent reported (hostname, arch, cpu, cores, ...)."""

    device_name: str
    device: dict[str, Any]
    runtime: str
    runtime_version: str
    precision: str
    threads: int
    graph_level: str = "all"
    host_ort_version: str = ""  # the onnxruntime that read the fused graphs on the calibrating host
    host_litert_version: str = ""  # a LiteRT table: the LiteRT that read its files' operators and partitions

    def label(self) -> str:
        return (f"{self.device_name} ({self.device.get('cpu') or '?'}, {self.device.get('cores') or '?'} cores): "
                f"{self.runtime} {self.runtime_version} {self.precision} threads={self.threads}")


@dataclass(frozen=True)
class MeasuredKernel:
    kernel: Kernel
    us: float | None  # profiled time per run (the profiler's own overhead included); None: not in the profile

    def to_dict(self) -> dict[str, Any]:
        return {**self.kernel.to_dict(), "us": self.us}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> MeasuredKernel:
        return cls(kernel=Kernel.from_dict(d), us=None if d.get("us") is None else float(d["us"]))


@dataclass(frozen=True)
class CalibrationModel:
    """One model measured during calibration: its timed p50 (no profiler) and its per-kernel profile.
    role: "kernels" (generated) or "reference" (a whole bundled model)."""

    name: str
    role: str
    p50_ms: float
    profiled_run_ms: float | None
    unmatched_us: float  # profiled time of nodes not in the host's graph (NCHWc reorders, ...)
    kernels: tuple[MeasuredKernel, ...]
    run_id: str | None = None
    at_s: float | None = None  # when it was measured: seconds from the calibration's start (None: a version-1 table)
    session_p50s: tuple[float, ...] | None = None  # timed in several sessions: each one's p50 (p50_ms: the fastest)

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if k != "kernels" and (k != "session_p50s" or v is not None)}
        if self.session_p50s is not None:
            d["session_p50s"] = list(self.session_p50s)
        d["kernels"] = [k.to_dict() for k in self.kernels]
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CalibrationModel:
        return cls(name=str(d["name"]), role=str(d["role"]), p50_ms=float(d["p50_ms"]),
                   profiled_run_ms=None if d.get("profiled_run_ms") is None else float(d["profiled_run_ms"]),
                   unmatched_us=float(d.get("unmatched_us") or 0.0),
                   kernels=tuple(MeasuredKernel.from_dict(k) for k in d.get("kernels") or []),
                   run_id=d.get("run_id"), at_s=None if d.get("at_s") is None else float(d["at_s"]),
                   session_p50s=None if d.get("session_p50s") is None else tuple(
                       float(v) for v in d["session_p50s"]))


@dataclass(frozen=True)
class SpeedProbe:
    """The board's own speed through its calibration: one fixed model (`model`, a bundled name) timed without the
    profiler at the start, every few tens of seconds and at the end. samples: (seconds from the calibration's
    start, p50 ms). A board whose clocks move (a VM's neighbours, thermal throttling, a governor) runs the same
    model slower or faster; fit.py divides each calibration model's times by the probe's speed at its time."""

    model: str
    samples: tuple[tuple[float, float], ...]

    def p50s(self) -> list[float]:
        return [ms for _, ms in self.samples]

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "samples": [[t, ms] for t, ms in self.samples]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SpeedProbe:
        return cls(model=str(d["model"]), samples=tuple((float(t), float(ms)) for t, ms in d.get("samples") or []))


@dataclass(frozen=True)
class CalibrationTable:
    key: TableKey
    models: tuple[CalibrationModel, ...]
    created_at: str
    budget_s: float | None = None
    spent_s: float | None = None
    edgeprof_version: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    probe: SpeedProbe | None = None  # None: calibrated without a speed probe (or a version-1 table)
    reading: int = READING  # the reading its kernels were read by (a file without one: 0, read before round 17)
    sessions: int = 1  # fresh runtime sessions each model was timed in; its p50 is the fastest one's (calibrate.py)

    def to_dict(self) -> dict[str, Any]:
        return {"format": _FORMAT, "schema_version": SCHEMA_VERSION, "key": asdict(self.key),
                "created_at": self.created_at, "budget_s": self.budget_s, "spent_s": self.spent_s,
                "edgeprof_version": self.edgeprof_version, "notes": list(self.notes),
                "probe": self.probe.to_dict() if self.probe is not None else None, "reading": self.reading,
                "sessions": self.sessions,
                "models": [m.to_dict() for m in self.models]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], where: str = "table") -> CalibrationTable:
        if d.get("format") != _FORMAT:
            raise ConfigError(f"{where} is not an edgeprof calibration table",
                              hint="export one with edgeprof calibrate --device NAME --out FILE")
        version = d.get("schema_version")
        if not isinstance(version, int) or version > SCHEMA_VERSION or version < 1:
            raise ConfigError(f"{where} is a calibration table of schema version {version!r}; this edgeprof reads "
                              f"versions 1 to {SCHEMA_VERSION}", hint="upgrade edgeprof to read it")
        try:
            k = dict(d["key"])
            key = TableKey(device_name=str(k["device_name"]), device=dict(k.get("device") or {}),
                           runtime=str(k["runtime"]), runtime_version=str(k["runtime_version"]),
                           precision=str(k["precision"]), threads=int(k["threads"]),
                           graph_level=str(k.get("graph_level") or "all"),
                           host_ort_version=str(k.get("host_ort_version") or ""),
                           host_litert_version=str(k.get("host_litert_version") or ""))
            return cls(key=key, models=tuple(CalibrationModel.from_dict(m) for m in d.get("models") or []),
                       created_at=str(d.get("created_at") or ""), budget_s=d.get("budget_s"),
                       spent_s=d.get("spent_s"), edgeprof_version=str(d.get("edgeprof_version") or ""),
                       notes=tuple(d.get("notes") or ()),
                       probe=SpeedProbe.from_dict(d["probe"]) if d.get("probe") else None,
                       reading=int(d.get("reading") or 0), sessions=int(d.get("sessions") or 1))
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"{where}: calibration table field {e} is missing or malformed",
                              hint="export the table again with edgeprof calibrate") from None


def tables_dir() -> Path:
    return Path(os.environ.get("EDGEPROF_TABLES") or Path.home() / ".cache" / "edgeprof" / "tables")


_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def default_table_path(device: str, runtime: str, precision: str, threads: int) -> Path:
    name = _SAFE.sub("_", f"{device}-{runtime}-{precision}-t{threads}")
    return tables_dir() / f"{name}.json"


def save_table(table: CalibrationTable, path: str | Path) -> Path:
    """Write the table as JSON; a path ending in .gz is gzip-compressed (a 600-model table: ≈ 8 MB, ≈ 0.6 MB so)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    text = json.dumps(table.to_dict(), indent=1) + "\n"
    if p.suffix == ".gz":
        tmp.write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        tmp.write_text(text)
    os.replace(tmp, p)
    return p


def load_table(path: str | Path) -> CalibrationTable:
    """A table file as save_table writes it: JSON, or gzip-compressed JSON (read by its content, whatever its name)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
        data = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    except FileNotFoundError:
        raise ConfigError(f"calibration table {p} does not exist",
                          hint="edgeprof calibrate --device NAME writes one, or pass --table FILE") from None
    except (OSError, ValueError, EOFError, zlib.error) as e:  # a truncated .gz: EOFError
        raise ConfigError(f"calibration table {p} could not be read: {e}", hint="export it again") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p} is not an edgeprof calibration table", hint="export one with edgeprof calibrate")
    return CalibrationTable.from_dict(data, where=str(p))


def check_key(table: CalibrationTable, *, runtime: str | None = None, runtime_version: str | None = None,
              precision: str | None = None, threads: int | None = None, graph_level: str | None = None,
              where: str = "table") -> None:
    """Raise TableMismatch (one line) when the table was measured under another configuration than asked."""
    k = table.key
    asked = {"runtime": runtime, "runtime version": runtime_version, "precision": precision, "threads": threads,
             "graph level": graph_level}
    have = {"runtime": k.runtime, "runtime version": k.runtime_version, "precision": k.precision,
            "threads": k.threads, "graph level": k.graph_level}
    for what, want in asked.items():
        if want is not None and str(want) != str(have[what]):
            raise TableMismatch(f"{where} was measured with {what} {have[what]}, not {want}: a table is only valid "
                                f"for the configuration it was measured with",
                                hint=f"calibrate the board with that configuration (edgeprof calibrate --device "
                                     f"{k.device_name} ...)")
