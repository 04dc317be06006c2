"""Bundled models: PyTorch builders with seeded random weights, nothing downloaded.

Owns: the catalogue of bundled models (name, task, description, input/output specs) and `names()` / `get()`.
Does not own: export to ONNX/TFLite, caching, FLOP counting (all in `edgeprof.export`).

Importing this package does not import torch: the catalogue is plain data, and each model's torch code lives
in a submodule (`mobilenet_v2.py`, `resnet18.py`, ...) that `BundledModel.build()` imports on first use.

Microbenchmarks take their shape from a name suffix (DeepBench style):

- `gemm:MxNxK` (default `gemm:1760x16x1760`): input `input` float32 [batch, N, K] times a constant weight
  [K, M] → output [batch, N, M]. One inference at batch 1 is exactly one DeepBench GEMM (2·M·N·K FLOPs);
  dim 0 stacks independent GEMMs.
- `conv:HxWxCxKxR` (default `conv:56x56x64x64x3`): input `input` float32 [batch, C, H, W], one R×R
  convolution to K channels, stride 1, padding R//2 (R odd, so the output keeps H×W), with bias.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgeprof.errors import ModelError
from edgeprof.records import TensorSpec

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["BundledModel", "names", "get", "TASKS"]

TASKS = ("classification", "keyword-spotting", "encoder", "microbenchmark")

_HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class BundledModel:
    """One bundled model. `name` is the full name, suffix included (e.g. `gemm:1760x16x1760`)."""

    name: str
    description: str
    task: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[str, ...]
    num_classes: int | None
    builder: str  # "submodule:function" in edgeprof_models; called as function(seed, **options)
    options: dict[str, int] = field(default_factory=dict, hash=False)

    @property
    def base_name(self) -> str:
        return self.name.split(":", 1)[0]

    def build(self, seed: int = 0) -> torch.nn.Module:
        """The torch module in eval mode; the same seed always gives the same weights."""
        module, _, function = self.builder.partition(":")
        mod = importlib.import_module(f"{__name__}.{module}")
        model: torch.nn.Module = getattr(mod, function)(seed, **self.options)
        return model.eval()

    def source_files(self) -> tuple[Path, ...]:
        """Files whose text defines this model (the export cache key hashes them)."""
        module = self.builder.partition(":")[0]
        return (_HERE / "__init__.py", _HERE / "_common.py", _HERE / f"{module}.py")


_B = "batch"
_IMAGE = (TensorSpec("input", (_B, 3, 224, 224), "float32", -1.0, 1.0),)

_FIXED: dict[str, BundledModel] = {
    m.name: m
    for m in (
        BundledModel(
            name="mobilenet_v2",
            description="MobileNetV2 (width 1.0, inverted residuals), 224×224 RGB, 1000 classes",
            task="classification", inputs=_IMAGE, outputs=("logits",), num_classes=1000,
            builder="mobilenet_v2:build",
        ),
        BundledModel(
            name="resnet18",
            description="ResNet-18 (basic blocks 2-2-2-2), 224×224 RGB, 1000 classes",
            task="classification", inputs=_IMAGE, outputs=("logits",), num_classes=1000,
            builder="resnet18:build",
        ),
        BundledModel(
            name="bert_tiny",
            description="BERT-tiny style encoder: 2 layers, hidden 128, 2 heads, FFN 512, sequence 128",
            task="encoder",
            inputs=(
                TensorSpec("input_ids", (_B, 128), "int64", 0, 30522),
                TensorSpec("attention_mask", (_B, 128), "int64", 1, 2),
            ),
            outputs=("last_hidden_state", "pooled_output"), num_classes=None, builder="bert_tiny:build",
        ),
        BundledModel(
            name="ds_cnn",
            description="DS-CNN keyword spotting (MLPerf Tiny), 49×10 MFCC, 12 classes",
            task="keyword-spotting",
            inputs=(TensorSpec("input", (_B, 1, 49, 10), "float32", -1.0, 1.0),),
            outputs=("logits",), num_classes=12, builder="ds_cnn:build",
        ),
    )
}

# base name → (accepted format, field names, defaults)
_PARAMETRIC: dict[str, tuple[str, tuple[str, ...], tuple[int, ...]]] = {
    "gemm": ("gemm:MxNxK", ("M", "N", "K"), (1760, 16, 1760)),
    "conv": ("conv:HxWxCxKxR", ("H", "W", "C", "K", "R"), (56, 56, 64, 64, 3)),
}

_MAX_DIM = 1 << 16


def names() -> list[str]:
    """Base names of all bundled models, sorted (parametric ones without their suffix)."""
    return sorted([*_FIXED, *_PARAMETRIC])


def get(name: str) -> BundledModel:
    """The bundled model called `name` (`gemm` and `conv` accept a shape suffix); ModelError if unknown."""
    base, sep, suffix = name.partition(":")
    if base in _PARAMETRIC:
        return _parametric(base, suffix if sep else None)
    if base in _FIXED and not sep:
        return _FIXED[base]
    if base in _FIXED:
        raise ModelError(f"model {base!r} takes no shape suffix (got {name!r})", hint=f"use {base}")
    close = difflib.get_close_matches(base, names(), n=1)
    hint = f"did you mean {close[0]}? (edgeprof models lists them)" if close else "edgeprof models lists them"
    raise ModelError(f"unknown model {name!r}", hint=hint)


def _parse_dims(base: str, suffix: str | None) -> dict[str, int]:
    fmt, fields, defaults = _PARAMETRIC[base]
    if suffix is None:
        return dict(zip(fields, defaults, strict=True))
    default = "x".join(map(str, defaults))
    parts = suffix.lower().split("x")
    bad = ModelError(
        f"bad shape {suffix!r} for model {base!r}: expected {fmt} with positive integers",
        hint=f"e.g. {base}:{default}",
    )
    if len(parts) != len(fields) or not all(p.isdigit() for p in parts):
        raise bad
    dims = dict(zip(fields, (int(p) for p in parts), strict=True))
    if not all(0 < v <= _MAX_DIM for v in dims.values()):
        raise ModelError(f"bad shape {suffix!r} for model {base!r}: each size must be 1..{_MAX_DIM}",
                         hint=f"e.g. {base}:{default}")
    return dims


def _parametric(base: str, suffix: str | None) -> BundledModel:
    d = _parse_dims(base, suffix)
    full = f"{base}:" + "x".join(str(v) for v in d.values())
    if base == "gemm":
        m, n, k = d["M"], d["N"], d["K"]
        return BundledModel(
            name=full,
            description=f"one MatMul (DeepBench GEMM M={m} N={n} K={k}): [N,K] × constant [K,M]",
            task="microbenchmark",
            inputs=(TensorSpec("input", (_B, n, k), "float32", -1.0, 1.0),),
            outputs=("output",), num_classes=None, builder="microbench:build_gemm", options=d,
        )
    h, w, c, k, r = d["H"], d["W"], d["C"], d["K"], d["R"]
    if r % 2 == 0:
        raise ModelError(f"bad shape {suffix!r} for model 'conv': kernel size R={r} must be odd",
                         hint="e.g. conv:56x56x64x64x3")
    return BundledModel(
        name=full,
        description=f"one {r}×{r} Conv, {h}×{w}×{c} → {k} channels, stride 1, pad {r // 2}",
        task="microbenchmark",
        inputs=(TensorSpec("input", (_B, c, h, w), "float32", -1.0, 1.0),),
        outputs=("output",), num_classes=None, builder="microbench:build_conv", options=d,
    )


def describe(model: BundledModel) -> dict[str, Any]:
    """Plain-data view of a bundled model (no torch needed)."""
    return {
        "name": model.name, "task": model.task, "description": model.description,
        "inputs": [t.to_dict() for t in model.inputs], "outputs": list(model.outputs),
        "num_classes": model.num_classes,
    }
