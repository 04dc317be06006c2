"""Turn what the user typed after `--model` into a ModelSource.

Owns: recognising the four kinds of model reference and the one-line errors for bad ones:

- a bundled name: `mobilenet_v2`, `gemm:1760x16x1760` (see `edgeprof models`);
- a path ending `.onnx` (must exist; read as is, never re-exported);
- a path ending `.tflite` (must exist; passed through for the TFLite runtime);
- `path/file.py:function`, a user's builder. The file is imported once here, so that a missing function or a
  file that raises on import is reported before anything else happens.

User builder contract (also in docs/models.md)::

    def build(seed: int):
        ...
        return module, {"input": torch.zeros(1, 16)}     # (module, {name: example tensor})
        # or: module.edgeprof_inputs = {...}; return module

`module` is a `torch.nn.Module`; each example tensor gives an input's dtype and shape. Dim 0 is the batch and
becomes dynamic in the export; the example's own batch size does not matter. The dict keys are the names of
`forward`'s parameters (inputs are passed as keywords) and become the ONNX input names. Seeded random inputs
are drawn from [min, max) of each example tensor (floats; [0, 1) when the example is constant) or
[min, max + 1) (integers). The weights should be a function of `seed` (`torch.manual_seed(seed)` first).
The file is imported inside export/capture.py's capture (what it and torch print goes to the cache's
host.log). The file's directory is on `sys.path` while it is imported and built, so it may import its neighbours; the
export cache key covers this file's text only.

Also owns building a torch model's module from its source (`torch_module`: the bundled model's, or the
builder called and checked against its contract), for the exporters and the fidelity reference.

Does not own: exporting or caching (onnx_export.py, tflite_export.py), the bundled catalogue (`edgeprof_models`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import edgeprof_models
from edgeprof_models import BundledModel

from ..errors import ModelError
from ..records import DTYPES, TensorSpec

if TYPE_CHECKING:  # pragma: no cover
    import torch

__all__ = ["ModelSource", "resolve_model", "user_import_path", "default_runtime", "torch_module"]

KINDS = ("bundled", "onnx", "tflite", "builder")
_BUILDER = re.compile(r"^(?P<path>.+\.py):(?P<fn>[^:/\\]*)$")


@dataclass(frozen=True)
class ModelSource:
    """A resolved model reference. `source` is the string stored on the Artifact."""

    kind: str  # one of KINDS
    spec: str  # what the user typed
    name: str  # model name for results: bundled name, file stem, or "<stem>.<function>"
    path: Path | None = None  # absolute, for files and builders
    function: str | None = None
    bundled: BundledModel | None = None
    source_text: str | None = None  # the builder file's text, as imported (part of the cache key)
    builder: Callable[..., Any] | None = field(default=None, compare=False, repr=False)

    @property
    def source(self) -> str:
        if self.kind == "bundled":
            return f"bundled:{self.name}"
        if self.kind == "builder":
            return f"builder:{self.path}:{self.function}"
        return f"file:{self.path}"


def default_runtime(spec: str) -> str:
    """The runtime a model runs on when --runtime is left out: tflite for a .tflite file, else onnxruntime."""
    return "tflite" if spec.strip().lower().endswith(".tflite") else "onnxruntime"


def resolve_model(spec: str) -> ModelSource:
    """Recognise `spec` (bundled name, .onnx, .tflite, file.py:function); ModelError says what is wrong."""
    spec = spec.strip()
    if not spec:
        raise ModelError("no model given", hint="name a bundled model (edgeprof models lists them) or a file")
    m = _BUILDER.match(spec)
    if m:
        return _builder(spec, m.group("path"), m.group("fn"))
    lower = spec.lower()
    if lower.endswith(".py"):
        raise ModelError(f"{spec} is a Python file but names no builder function",
                         hint=f"use {spec}:build (a function taking seed; see docs/models.md)")
    for ext in ("onnx", "tflite"):
        if lower.endswith("." + ext):
            path = _existing_file(spec)
            return ModelSource(kind=ext, spec=spec, name=path.stem, path=path)
    if "/" in spec or "\\" in spec or Path(spec).exists():
        raise ModelError(f"unsupported model file {spec}",
                         hint="give a .onnx or .tflite file, path/file.py:function, or a bundled model name")
    model = edgeprof_models.get(spec)
    return ModelSource(kind="bundled", spec=spec, name=model.name, bundled=model)


def _existing_file(spec: str) -> Path:
    path = Path(spec).expanduser()
    if not path.exists():
        raise ModelError(f"model file {spec} not found",
                         hint="check the path (relative paths start at the current directory)")
    if not path.is_file():
        raise ModelError(f"model path {spec} is not a file", hint="give the model file itself")
    return path.resolve()


@contextlib.contextmanager
def user_import_path(directory: Path) -> Iterator[None]:
    """Put a builder file's directory first on sys.path for the duration (imports of its neighbours)."""
    entry = str(directory)
    sys.path.insert(0, entry)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(entry)


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _builder(spec: str, file: str, fn: str) -> ModelSource:
    if not fn:
        raise ModelError(f"{spec} names no builder function after ':'", hint=f"use {file}:build")
    if not fn.isidentifier():
        raise ModelError(f"{fn!r} in {spec} is not a Python function name", hint=f"use {file}:build")
    path = _existing_file(file)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ModelError(f"cannot read builder file {file}: {_one_line(e)}", hint="check the file") from e
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:16]
    module_name = f"edgeprof_user_builder_{digest}"
    import_spec = importlib.util.spec_from_file_location(module_name, path)
    if import_spec is None or import_spec.loader is None:  # pragma: no cover - .py files always load
        raise ModelError(f"cannot import builder file {file}", hint="check the file")
    module = importlib.util.module_from_spec(import_spec)
    sys.modules[module_name] = module
    from ..errors import disk_error_in
    from .artifact_cache import about_cache, cache_write_error, default_cache_dir
    from .capture import capture

    log = default_cache_dir() / "host.log"
    try:  # a builder file imports torch (which prints when imported): the output goes to the cache's host.log
        with capture(log, f"importing builder file {path}"), user_import_path(path.parent):
            import_spec.loader.exec_module(module)
    except BaseException as e:  # the user's code: anything it raises is reported, KeyboardInterrupt is not
        sys.modules.pop(module_name, None)
        if isinstance(e, KeyboardInterrupt):
            raise
        disk = disk_error_in(e)
        if disk is not None and about_cache(disk, log.parent):  # the log's write, not the user's file
            raise cache_write_error(log.parent, disk, f"importing builder file {file}") from e
        import traceback

        raise ModelError(f"builder file {file} raised on import: {_one_line(e)}",
                         hint="fix the file; edgeprof imports it to find the builder",
                         detail="".join(traceback.format_exception(e))) from e
    builder = getattr(module, fn, None)
    if not callable(builder):
        functions = sorted(k for k, v in vars(module).items()
                           if callable(v) and not k.startswith("_") and getattr(v, "__module__", None) == module_name)
        what = "has no function" if builder is None else "has a non-callable"
        raise ModelError(f"builder file {file} {what} {fn!r}",
                         hint=(f"functions defined there: {', '.join(functions)}" if functions
                               else f"define def {fn}(seed): ... (see docs/models.md)"))
    return ModelSource(kind="builder", spec=spec, name=f"{path.stem}.{fn}", path=path, function=fn,
                       source_text=text, builder=builder)


# ------------------------------------------------------------------------------------ the torch module


def _torch() -> Any:
    try:
        import torch
    except ImportError as e:
        raise ModelError("exporting a torch model needs torch", hint="pip install 'edgeprof[torch]'") from e
    return torch


def torch_module(source: ModelSource, seed: int
                 ) -> tuple[torch.nn.Module, tuple[TensorSpec, ...], tuple[str, ...] | None]:
    """A bundled model's or builder's torch module (eval mode), its input specs (dim 0 = "batch") and the output
    names (None: the exporter's choice); a builder is checked against its contract (docs/models.md)."""
    torch = _torch()
    if source.bundled is not None:
        return source.bundled.build(seed), source.bundled.inputs, source.bundled.outputs
    if source.builder is None or source.path is None:
        raise ValueError(f"model source {source.spec!r} has neither a bundled model nor a builder")
    where = f"{source.path.name}:{source.function}"
    try:
        with user_import_path(source.path.parent):
            built = source.builder(seed)
    except Exception as e:
        raise ModelError(f"builder {where} raised {type(e).__name__}: {' '.join(str(e).split())}",
                         hint="fix the builder; it is called as build(seed)") from e
    if isinstance(built, tuple) and len(built) == 2:
        module, examples = built
    else:
        module, examples = built, getattr(built, "edgeprof_inputs", None)
    contract = "return (module, {name: example tensor}) or a module with .edgeprof_inputs (docs/models.md)"
    if not isinstance(module, torch.nn.Module):
        raise ModelError(f"builder {where} returned {type(module).__name__}, not a torch.nn.Module", hint=contract)
    if not isinstance(examples, dict) or not examples or not all(
            isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in examples.items()):
        raise ModelError(f"builder {where} gave no example inputs as a dict of name → tensor", hint=contract)
    try:
        inspect.signature(module.forward).bind(**examples)
    except TypeError as e:
        params = ", ".join(inspect.signature(module.forward).parameters)
        raise ModelError(f"builder {where}: forward({params}) cannot take inputs named {', '.join(examples)}: {e}",
                         hint="name the example inputs after forward()'s parameters") from e
    except ValueError:  # no signature (some compiled modules): let the exporter judge
        pass
    return module.eval(), tuple(_spec_from_example(where, k, v) for k, v in examples.items()), None


def _spec_from_example(where: str, name: str, t: torch.Tensor) -> TensorSpec:
    import torch

    if t.dim() == 0:
        raise ModelError(f"builder {where}: example input {name!r} is a scalar; dim 0 must be the batch",
                         hint="give it a batch dimension, e.g. x.unsqueeze(0)")
    dtype = str(t.dtype).removeprefix("torch.")
    if dtype not in DTYPES:
        raise ModelError(f"builder {where}: example input {name!r} has dtype {dtype}",
                         hint=f"use one of {', '.join(DTYPES)}")
    shape: tuple[int | str | None, ...] = ("batch", *(int(d) for d in t.shape[1:]))
    if t.dtype == torch.bool:
        return TensorSpec(name, shape, dtype, 0, 2)
    if t.numel() == 0:
        return TensorSpec(name, shape, dtype)
    lo, hi = float(t.min()), float(t.max())
    if not t.is_floating_point():
        return TensorSpec(name, shape, dtype, int(lo), int(hi) + 1)
    return TensorSpec(name, shape, dtype, lo, hi) if hi > lo else TensorSpec(name, shape, dtype, 0.0, 1.0)
