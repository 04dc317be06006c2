"""What to measure and what is pushed: TensorSpec, Artifact, RunSpec.

Owns: the model's input/output specs, the prepared artifact record, the run specification (the identity of a
configuration plus its RunSettings). Does not own: the run settings' table (vocab.RunSettings), how an artifact is
made (export/) or how a spec is validated (run/validate.py).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import StoreError
from ..vocab import RUN_DEFAULTS, SINGLE_STREAM, RunSettings

if TYPE_CHECKING:
    from .options import ExportOptions

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
                from ..errors import ModelError

                raise ModelError(
                    f"input {self.name!r} has a dynamic dimension {i} ({d!r}) in shape {self.shape_str()}",
                    hint=f"give it with --input {self.name}=" + "x".join(map(str, self.example_dims(batch)))
                    + " (sizes of free dims are examples: use your model's)",
                )
        return tuple(out)

    def example_dims(self, batch: int, known: Mapping[str, int] | None = None, dim0_is_batch: bool = True
                     ) -> list[int]:
        """A shape a user can paste after --input NAME=: fixed dims as they are, a dynamic dim 0 the batch (when
        `dim0_is_batch`), a symbol in `known` its size, any other free dim an example size: 224 for the height and
        width of an image-like rank-4 input (NCHW or NHWC with 1, 3 or 4 channels), else 128."""
        known = known or {}
        channels = (1, 3, 4)
        spatial: tuple[int, ...] = ()
        if len(self.shape) == 4:
            spatial = (2, 3) if self.shape[1] in channels else (1, 2) if self.shape[3] in channels else ()
        out: list[int] = []
        for i, d in enumerate(self.shape):
            if isinstance(d, int) and d >= 0:
                out.append(d)
            elif i == 0 and dim0_is_batch:
                out.append(batch)
            elif isinstance(d, str) and d in known:
                out.append(int(known[d]))
            else:
                out.append(224 if i in spatial else 128)
        return out

    def shape_str(self) -> str:
        return "[" + ", ".join("?" if d is None else str(d) for d in self.shape) + "]"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "shape": list(self.shape), "dtype": self.dtype, "low": self.low,
                "high": self.high}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TensorSpec:
        names = {f.name for f in dataclasses.fields(cls)}
        t = cls(**{k: v for k, v in d.items() if k in names})  # a field left out takes the record's default
        return dataclasses.replace(t, shape=tuple(t.shape), low=float(t.low), high=float(t.high))


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
    export_options: ExportOptions | None = None  # schema 12: typed by kind (records/options.py); None: none recorded
    export_check: dict[str, Any] | None = None  # e.g. {"max_abs_error": 1e-6, "reference": "torch"}
    cache_hit: bool = False
    flops: int | None = None  # per inference at batch 1, counted on the graph
    params: int | None = None

    @property
    def extension(self) -> str:
        return {"onnx": "onnx", "tflite": "tflite"}.get(self.format, self.format)

    @property
    def content(self) -> str:
        """What a configuration's identity says the model is: a user's file by its content (the fp32 file a
        conversion started from, `sha256:...`), a bundled model by its source."""
        sha = (self.export_options.fp32_sha256 if self.export_options is not None else None) or self.sha256
        return f"sha256:{sha}" if self.source.startswith("file:") and sha else self.source

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["inputs"] = [t.to_dict() for t in self.inputs]
        d["outputs"] = list(self.outputs)
        d["export_options"] = self.export_options.to_dict() if self.export_options is not None else None
        d["export_check"] = copy.deepcopy(self.export_check)  # plain data, as the exporter wrote it
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Artifact:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise StoreError(f"result section 'artifact' has unknown field(s) {', '.join(map(repr, unknown))}",
                             hint="it was written by another edgeprof version; upgrade edgeprof to read it")
        data = dict(d)
        data["inputs"] = tuple(TensorSpec.from_dict(t) for t in d.get("inputs") or [])
        data["outputs"] = tuple(d.get("outputs") or [])
        from .options import export_options_from_dict, upgrade_export_options

        opts = d.get("export_options")  # an export cache entry written before schema 12 has them untyped
        data["export_options"] = export_options_from_dict(
            upgrade_export_options(opts, d.get("format")) if isinstance(opts, Mapping) else opts)
        return cls(**data)


@dataclass(frozen=True, kw_only=True)
class RunSpec(RunSettings):
    """What to measure: one model, one runtime configuration, on one device, with its run settings (a RunSettings:
    every setting of vocab's table is a field of the spec, with the table's default).

    The identity of the configuration is written here: the model, runtime, precision, batch, threads, concrete
    input shapes and the load scenario with its rate (server / fixed-rate, queries/s). The server's arrivals are
    drawn with `seed`."""

    device: str
    model: str
    runtime: str = "onnxruntime"
    precision: str = "fp32"
    # defaults: the one home is edgeprof_agent.vocab.RUN_DEFAULTS (shared with the agent's RunRequest)
    batch: int = int(RUN_DEFAULTS["batch"])
    threads: int | None = None
    input_shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    scenario: str = SINGLE_STREAM
    rate: float | None = None

    @property
    def settings(self) -> RunSettings:
        """The spec's run settings alone."""
        return RunSettings(**self.values())
