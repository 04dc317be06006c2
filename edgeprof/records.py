"""Typed records that flow through edgeprof, and their versioned JSON form.

Owns: TensorSpec, Artifact, RunSpec, Result and the JSON schema version of a Result.
Does not own: how records are produced (export, runner) or stored (store).

Result JSON format history (keep this list next to the constant):
  1 — first format: latency_ms, throughput_ips, memory_mb, power, thermal, fidelity, environment, warnings,
      samples_ms, plus artifact, settings and transfer.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from .errors import StoreError

RESULT_SCHEMA_VERSION = 1

# dtypes a model input may have (numpy names); the agent maps them to its runtime.
DTYPES = ("float32", "float16", "int64", "int32", "int8", "uint8", "bool")


@dataclass(frozen=True)
class TensorSpec:
    """One model input or output.

    shape: ints for fixed dims, strings (symbolic names such as "batch") or None for dynamic dims.
    low/high: value range used to generate seeded random inputs (integers: [low, high) ).
    """

    name: str
    shape: tuple[int | str | None, ...]
    dtype: str = "float32"
    low: float = 0.0
    high: float = 1.0

    @property
    def dynamic_dims(self) -> list[int]:
        return [i for i, d in enumerate(self.shape) if not isinstance(d, int) or d < 0]

    def concrete(self, batch: int, overrides: dict[str, tuple[int, ...]] | None = None) -> tuple[int, ...]:
        """Concrete shape: an override wins; else dim 0 dynamic → batch; other dynamic dims need an override."""
        if overrides and self.name in overrides:
            return tuple(overrides[self.name])
        out: list[int] = []
        for i, d in enumerate(self.shape):
            if isinstance(d, int) and d >= 0:
                out.append(d)
            elif i == 0:
                out.append(batch)
            else:
                from .errors import ModelError

                raise ModelError(
                    f"input {self.name!r} has a dynamic dimension {i} ({d!r}) in shape {self.shape_str()}",
                    hint=f"give it with --input {self.name}=" + "x".join(
                        str(x) if isinstance(x, int) and x >= 0 else "N" for x in self.shape),
                )
        return tuple(out)

    def shape_str(self) -> str:
        return "[" + ", ".join("?" if d is None else str(d) for d in self.shape) + "]"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "shape": list(self.shape), "dtype": self.dtype, "low": self.low,
                "high": self.high}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TensorSpec:
        return cls(name=d["name"], shape=tuple(d["shape"]), dtype=d.get("dtype", "float32"),
                   low=float(d.get("low", 0.0)), high=float(d.get("high", 1.0)))


@dataclass(frozen=True)
class Artifact:
    """A model file ready to be pushed to a device (ONNX, TFLite, ...), named by its content."""

    path: str
    format: str  # "onnx" | "tflite"
    sha256: str
    size_bytes: int
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[str, ...]
    model_name: str
    source: str  # "bundled:<name>" | "file:<path>" | "builder:<path>:<fn>"
    precision: str = "fp32"
    export_options: dict[str, Any] = field(default_factory=dict)
    export_check: dict[str, Any] | None = None  # e.g. {"max_abs_error": 1e-6, "reference": "torch"}
    cache_hit: bool = False
    flops: int | None = None  # per inference at batch 1, counted on the graph
    params: int | None = None

    @property
    def extension(self) -> str:
        return {"onnx": "onnx", "tflite": "tflite"}.get(self.format, self.format)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["inputs"] = [t.to_dict() for t in self.inputs]
        d["outputs"] = list(self.outputs)
        return d


@dataclass
class RunSpec:
    """What to measure: one model, one runtime configuration, on one device."""

    device: str
    model: str
    runtime: str = "onnxruntime"
    precision: str = "fp32"
    batch: int = 1
    threads: int | None = None
    min_duration_s: float = 10.0
    min_queries: int = 100
    max_queries: int | None = 200_000  # bounds raw samples for very short queries (null runtime, tiny ops)
    warmup_s: float = 5.0
    input_shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    runtime_options: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    # telemetry (issue 4): idle power baseline before the model loads (0 = off), wait until the board is below
    # cooldown_c (None = don't wait, at most cooldown_timeout_s), power sampling rate (None = devices.yaml/default)
    idle_s: float = 3.0
    cooldown_c: float | None = None
    cooldown_timeout_s: float = 600.0
    power_rate_hz: float | None = None


def new_run_id() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


RESULT_KEYS = (
    "schema_version", "run_id", "status", "created_at", "device", "model", "runtime", "precision", "batch",
    "threads", "latency_ms", "throughput_ips", "memory_mb", "power", "thermal", "fidelity", "environment",
    "warnings", "samples_ms",
)


@dataclass
class Result:
    """One measured run. `to_json()` has the top-level keys in RESULT_KEYS plus artifact/settings/transfer."""

    run_id: str
    status: str  # "ok" | "failed" | "skipped"
    created_at: str
    device: str
    model: str
    runtime: str
    precision: str
    batch: int
    threads: int | None
    latency_ms: dict[str, Any] | None
    throughput_ips: float | None
    memory_mb: dict[str, Any] | None
    power: dict[str, Any] | None
    thermal: dict[str, Any] | None
    fidelity: dict[str, Any] | None
    environment: dict[str, Any]
    warnings: list[dict[str, str]]
    samples_ms: list[float]
    artifact: dict[str, Any] | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    transfer: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None  # for failed / skipped
    extra: dict[str, Any] = field(default_factory=dict)  # sections added by later features (ops, ...)
    schema_version: int = RESULT_SCHEMA_VERSION

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        ordered: dict[str, Any] = {k: d[k] for k in RESULT_KEYS}
        for k in ("artifact", "settings", "transfer", "reason", "extra"):
            ordered[k] = d[k]
        return ordered

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Result:
        version = d.get("schema_version")
        if not isinstance(version, int):
            raise StoreError("result has no integer schema_version; it was not written by edgeprof")
        if version > RESULT_SCHEMA_VERSION:
            raise StoreError(
                f"result {d.get('run_id', '?')} has schema version {version}, newer than this edgeprof "
                f"understands ({RESULT_SCHEMA_VERSION})",
                hint="upgrade edgeprof (pip install -U edgeprof) to read it",
            )
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})

    def warn(self, code: str, message: str) -> None:
        self.warnings.append({"code": code, "message": message})


@dataclass
class Device:
    """One board in the lab (from devices.yaml), or the built-in `local` device (this machine)."""

    name: str
    kind: str = "ssh"  # "local" | "ssh"
    host: str | None = None
    port: int | None = None
    user: str | None = None
    identity_file: str | None = None
    proxy_jump: str | None = None
    python: str = "python3"
    workdir: str = "~/.cache/edgeprof"
    env: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    power: dict[str, Any] | None = None
    sysfs_root: str = "/"
    connect_timeout: float = 10.0
    known_hosts: str | None = None  # extra lab known_hosts file
    source: str | None = None  # "devices.yaml:14" where it was defined
    controller: str | None = None  # lab queue: the controller host whose worker drives it (queue lab.<controller>)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def local_device(python: str | None = None) -> Device:
    """The built-in device `local`: this machine, agent run as a subprocess with this interpreter."""
    import sys

    return Device(name="local", kind="local", python=python or sys.executable, workdir="~/.cache/edgeprof")
