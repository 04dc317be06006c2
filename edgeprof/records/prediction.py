"""A stored prediction: what `edgeprof predict` (or a sweep that predicts first) said about one configuration.

Owns: `StoredPrediction` — the configuration it is for (the model's identity as a measured run of it would have:
vocab.ConfigIdentity with device, content, runtime, precision, batch, threads and the shapes fed, single-stream),
the runtime version of the table, the table it came from (`table_id`: the first 16 hex digits of the sha256 of the
table's canonical JSON, and the path it was read from), the predicted p50 with its interval and level, the
coverage, the ops not covered and the warnings, when it was made, and the sweep that made it (if one did); its JSON
form (`format` and `version` below, a newer version refused with advice); `check_against`: a measured p50 beside it
(the error and whether it fell inside the interval).
Does not own: making a prediction (predict/), storing it (store/), showing it (cli/, report/).

Stored prediction format history (keep next to the constant):
  1 — the fields of StoredPrediction below.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import StoreError

PREDICTION_VERSION = 1
PREDICTION_FORMAT = "edgeprof-prediction"


@dataclass(frozen=True)
class Checked:
    """A measured p50 beside a prediction: error = predicted / measured - 1."""

    measured_ms: float
    error: float
    inside: bool

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class StoredPrediction:
    config_key: str  # vocab.ConfigIdentity.key() of the configuration predicted (what a measured run's key is)
    created_at: str
    device: str
    model: str  # the model as the user named it
    source: str | None  # the artifact's source ("bundled:mobilenet_v2", "file:/abs/m.onnx")
    content: str | None  # "sha256:<hex>" of a user's file, else the source (ConfigIdentity.content)
    runtime: str
    runtime_version: str  # the table's: the runtime version the device measured with
    precision: str
    batch: int
    threads: int
    shapes: tuple[tuple[str, tuple[int, ...]], ...]
    table_id: str
    table_path: str
    p50_ms: float
    low_ms: float
    high_ms: float
    level: float
    covered_ops: float
    covered_flops: float | None
    uncovered: tuple[dict[str, Any], ...] = ()
    warnings: tuple[str, ...] = ()
    sweep_id: str | None = None
    prediction_id: int | None = None  # the store's row id (None before it is stored)
    extra: dict[str, Any] = field(default_factory=dict)  # throughput_ips, kernels, method

    def check_against(self, measured_ms: float) -> Checked:
        return Checked(measured_ms=measured_ms, error=self.p50_ms / measured_ms - 1,
                       inside=self.low_ms <= measured_ms <= self.high_ms)

    def shapes_label(self) -> str:
        return ", ".join(f"{n}={'x'.join(str(d) for d in s) or 'scalar'}" for n, s in self.shapes)

    def interval_label(self) -> str:
        return f"[{self.low_ms:.3f}, {self.high_ms:.3f}] ms ({100 * self.level:.0f} %)"

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["shapes"] = [[n, list(s)] for n, s in self.shapes]
        d["uncovered"] = [dict(u) for u in self.uncovered]
        d["warnings"] = list(self.warnings)
        return {"format": PREDICTION_FORMAT, "version": PREDICTION_VERSION, **d}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], where: str = "stored prediction") -> StoredPrediction:
        version = d.get("version")
        if d.get("format") != PREDICTION_FORMAT or not isinstance(version, int) or version < 1:
            raise StoreError(f"{where} is not an edgeprof prediction record")
        if version > PREDICTION_VERSION:
            raise StoreError(f"{where} is a prediction record of version {version}; this edgeprof reads up to "
                             f"{PREDICTION_VERSION}", hint="upgrade edgeprof to read it")
        names = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in d.items() if k in names}
        try:
            kw["shapes"] = tuple((str(n), tuple(int(x) for x in s)) for n, s in d.get("shapes") or [])
            kw["uncovered"] = tuple(dict(u) for u in d.get("uncovered") or [])
            kw["warnings"] = tuple(str(w) for w in d.get("warnings") or [])
            kw["extra"] = dict(d.get("extra") or {})
            return cls(**kw)
        except (TypeError, ValueError) as e:
            raise StoreError(f"{where} cannot be read ({e})") from None
