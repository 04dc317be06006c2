"""Make an ONNX Artifact from a ModelSource: export torch models (cached), or read a user's .onnx file.

Owns:
- torch → ONNX export with a dynamic batch dimension, using the dynamo exporter
  (`torch.onnx.export(..., dynamo=True)`; the TorchScript exporter is deprecated and warns that it will be
  removed). The example inputs have batch 2 and dim 0 is declared `Dim("batch")`: an example batch of 1
  would silently fix the batch at 1. The exported graph is checked to really have a symbolic dim 0.
- the ONNX a device loads: the export is written at the opset asked (edgeprof's default, --opset, or what the
  device's onnxruntime loads: capability.onnx_target) and, when the device's runtime loads an older IR version
  than the exporter writes, with `ir_version` lowered to it (refused when the graph uses a type or feature that IR
  lacks); the file's default-domain opset is checked to be the one asked. The dynamo exporter writes opset 18 and
  converts any other opset with onnx's version converter, which cannot take common graphs below 18 (ReduceMean's
  axes input): below opset 18 the TorchScript exporter, which writes those opsets natively, is used (the key and
  the Artifact's export_options name the exporter that ran);
- the numerical check of each export against torch (onnxruntime CPU, same seeded inputs, batch 2;
  reference.torch_check);
- the ONNX cache key: the sha256 of the model's defining source text, its name and options, the seed, the export
  options (exporter, opset, IR cap), the torch and onnxscript versions and the version of this package's export
  code (artifact_cache.code_version: the modules' text). The entry (`cache_dir/<key>/model.onnx` + `meta.json`),
  its atomic write and
  the capture whose log, `cache_dir/<key>.log`, keeps torch's warnings, logs and C-level output are
  artifact_cache.build_cached's, called once per export. A cache hit needs neither torch nor onnxruntime.
- FLOPs (batch 1, `flops.py`) and parameter counts for the Artifact;
- reading the IR version and default-domain opset of an ONNX file (`onnx_versions`);
- a user's .onnx file: its inputs, FLOPs and parameters; with external data, the self-contained artifact of the
  model and its data files (external_data.py).

Does not own: resolving names and paths and building the torch module (resolve.py), input generation
(inputs.py), the cache directory and entries (artifact_cache.py), TFLite, quantization, pushing artifacts to
devices, which ONNX a device loads (capability.py). `default_cache_dir` is re-exported from artifact_cache.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..records import Artifact, OnnxExportOptions, TensorSpec
from ..vocab import MAX_OPSET, MIN_OPSET  # the --opset setting's bounds: one home
from .artifact_cache import LAYOUT as CACHE_LAYOUT
from .artifact_cache import (
    build_cached,
    cached,
    code_version,
    default_cache_dir,
    dist_version,
    sha256_file,
    text_hash,
)
from .capture import library_failure, to_terminal
from .external_data import data_files, inline_export, save_export, with_inlined_data
from .flops import count_flops
from .hashes import sha256_of
from .inputs import make_inputs, static_batch
from .resolve import ModelSource, torch_module

if TYPE_CHECKING:  # pragma: no cover
    import onnx
    import torch

__all__ = ["prepare_onnx", "cached_artifact", "default_cache_dir", "cache_key", "onnx_versions", "EXPORTERS",
           "EXAMPLE_BATCH", "DEFAULT_OPSET", "MIN_OPSET", "MAX_OPSET"]

Progress = Callable[[str], None]

EXPORTERS = ("dynamo", "torchscript")
EXAMPLE_BATCH = 2  # batch of the export example and of the torch check
DEFAULT_OPSET = 18  # what a bundled or builder model is exported at unless the device or --opset asks for less
DYNAMO_MIN_OPSET = 18  # the dynamo exporter's own opset; below it the TorchScript exporter writes the opset natively
# ONNX tensor element types and the IR version that introduced them (onnx/onnx docs/IR.md: float8 in IR 9,
# 4-bit integers in IR 10, float4 in IR 11); function overloads arrived with IR 10
_TYPE_IR = ((23, 11), (21, 10), (17, 9))
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_STRIP_METADATA = ("pkg.torch.onnx.stack_trace",)  # holds absolute paths: same model, different bytes


def prepare_onnx(source: ModelSource, *, cache_dir: Path, seed: int = 0, opset: int = DEFAULT_OPSET,
                 progress: Progress | None = None, exporter: str = "dynamo", max_ir: int | None = None) -> Artifact:
    """An ONNX Artifact for `source`: exported (or taken from the cache) for torch models, read for .onnx.
    `opset`, `max_ir`: the default-domain opset to export at and the newest IR version the file may have (None:
    the exporter's own), as capability.onnx_target fits them to the device; a user's file is read as it is."""
    say = to_terminal(progress)
    if source.kind == "onnx":
        return _user_onnx(source, say, cache_dir)
    if source.kind == "tflite":
        raise ModelError(f"{source.spec} is a TFLite model; it cannot be converted to ONNX",
                         hint="run it with --runtime tflite")
    if source.kind not in ("bundled", "builder"):  # pragma: no cover - ModelSource kinds are fixed
        raise ValueError(f"unknown model source kind {source.kind!r}")
    if exporter not in EXPORTERS:
        raise ModelError(f"unknown exporter {exporter!r}", hint=f"use one of {', '.join(EXPORTERS)}")
    if opset < MIN_OPSET:
        raise ModelError(f"ONNX opset {opset} is too old for the torch exporter", hint=f"use {MIN_OPSET} or newer")
    if opset > MAX_OPSET:
        raise ModelError(f"ONNX opset {opset} is newer than edgeprof exports ({MAX_OPSET})",
                         hint=f"use an opset from {MIN_OPSET} to {MAX_OPSET}")

    options = _options(exporter, opset, max_ir)
    exporter = options["exporter"]
    artifact = build_cached(
        cache_dir, cache_key(source, seed, options), "onnx",
        lambda out: _export(source, out, seed=seed, opset=opset, exporter=exporter, options=options, say=say,
                            max_ir=max_ir),
        what=f"exporting {source.name} to ONNX ({exporter}, opset {opset}{_ir_text(max_ir)})")
    if artifact.cache_hit:
        say(f"{source.name}: cached ONNX {artifact.path}")
    return inline_export(artifact, cache_dir=cache_dir, say=say)


def cached_artifact(source: ModelSource, *, cache_dir: Path, seed: int = 0, opset: int = DEFAULT_OPSET,
                    exporter: str = "dynamo", max_ir: int | None = None) -> Artifact | None:
    """The Artifact `prepare_onnx` would return from the cache, or None (never exports, never imports torch)."""
    if source.kind not in ("bundled", "builder"):
        return None
    return cached(cache_dir, cache_key(source, seed, _options(exporter, opset, max_ir)), "onnx")


# --------------------------------------------------------------------------------------------- cache


def _options(exporter: str, opset: int, max_ir: int | None = None) -> dict[str, Any]:
    """The export options that decide the file (part of the cache key): the exporter that really runs (the
    TorchScript one below the dynamo exporter's opset), the opset and the IR version cap."""
    if exporter == "dynamo" and opset < DYNAMO_MIN_OPSET:
        exporter = "torchscript"
    return {"exporter": exporter, "opset": opset, "max_ir": max_ir, "dynamic_batch": True,
            "example_batch": EXAMPLE_BATCH}


def _ir_text(max_ir: int | None) -> str:
    return "" if max_ir is None else f", IR <= {max_ir}"


def cache_key(source: ModelSource, seed: int, options: Mapping[str, Any]) -> str:
    """sha256 of everything that decides the exported file (see the module docstring)."""
    material: dict[str, Any] = {
        "layout": CACHE_LAYOUT,
        "kind": source.kind,
        "name": source.name,
        "seed": seed,
        "options": dict(options),
        "torch": dist_version("torch"),
        "onnxscript": dist_version("onnxscript"),
        "export_code": {p: code_version(p) for p in ("onnx_export.py", "resolve.py", "artifact_cache.py", "inputs.py", "flops.py")},
    }
    if source.bundled is not None:
        material["model_options"] = dict(source.bundled.options)
        material["sources"] = {p.name: text_hash(p) for p in source.bundled.source_files()}
    else:
        material["function"] = source.function
        material["sources"] = {"builder": hashlib.sha256((source.source_text or "").encode()).hexdigest()}
    blob = json.dumps(material, sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()


# -------------------------------------------------------------------------------------------- export


def _concrete(specs: Sequence[TensorSpec], batch: int) -> dict[str, tuple[int, ...]]:
    return {s.name: s.concrete(batch) for s in specs}


def _export_torch(module: torch.nn.Module, examples: Mapping[str, torch.Tensor], output_names: Sequence[str] | None,
                  path: Path, *, opset: int, exporter: str) -> onnx.ModelProto:
    """Run the torch exporter once; the graph is returned, not yet saved (tests monkeypatch this)."""
    import onnx
    import torch

    names = list(examples)
    # the caller's capture (prepare_onnx) keeps the exporter's warnings, logs and graph dumps
    if exporter == "dynamo":
        batch = torch.export.Dim("batch")
        program = torch.onnx.export(
            module, (), None, kwargs=dict(examples), input_names=names,
            output_names=list(output_names) if output_names else None, opset_version=opset, dynamo=True,
            dynamic_shapes={n: {0: batch} for n in names}, external_data=False, verbose=False,
        )
        if program is None:  # pragma: no cover - dynamo=True always returns the program
            raise RuntimeError("torch.onnx.export(dynamo=True) returned no program")
        return program.model_proto
    tmp = path.with_suffix(".torchscript.onnx")
    torch.onnx.export(
        module, (), str(tmp), kwargs=dict(examples), input_names=names,
        output_names=list(output_names) if output_names else None, opset_version=opset, dynamo=False,
        dynamic_axes={n: {0: "batch"} for n in [*names, *(output_names or [])]},
    )
    proto = onnx.load(str(tmp))
    tmp.unlink()
    return proto


def _strip_metadata(model: onnx.ModelProto) -> None:
    graphs = [model.graph]
    while graphs:
        g = graphs.pop()
        for node in g.node:
            keep = [p for p in node.metadata_props if p.key not in _STRIP_METADATA]
            if len(keep) != len(node.metadata_props):
                del node.metadata_props[:]
                node.metadata_props.extend(keep)
            graphs.extend(a.g for a in node.attribute if a.HasField("g"))


def default_opset(model: onnx.ModelProto) -> int | None:
    """The model's default-domain ("" or "ai.onnx") opset, or None when it imports none."""
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return int(o.version)
    return None


def onnx_versions(path: Path) -> tuple[int, int | None]:
    """(IR version, default-domain opset) of an ONNX file, read without its external data."""
    import onnx

    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as e:  # protobuf DecodeError, OSError
        reason = " ".join(str(e).split()) or type(e).__name__
        raise ModelError(f"{path} is not a valid ONNX model: {reason[:300]}",
                         hint="export it again or check the path") from e
    return int(model.ir_version), default_opset(model)


def _needed_ir(model: onnx.ModelProto) -> tuple[int, str]:
    """The lowest IR version the graph's element types and functions allow, with what needs it."""
    import onnx

    need, why = 3, ""

    def elem(t: int, where: str) -> None:
        nonlocal need, why
        for first, ir in _TYPE_IR:
            if t >= first and ir > need:
                need, why = ir, f"{onnx.TensorProto.DataType.Name(t)} ({where})"
                return

    def types(tp: onnx.TypeProto, where: str) -> None:
        kind = tp.WhichOneof("value")
        if kind in ("tensor_type", "sparse_tensor_type"):
            elem(getattr(tp, kind).elem_type, where)
        elif kind in ("sequence_type", "optional_type"):
            types(getattr(tp, kind).elem_type, where)
        elif kind == "map_type":
            types(tp.map_type.value_type, where)

    graphs = [model.graph]
    while graphs:
        g = graphs.pop()
        for vi in [*g.input, *g.output, *g.value_info]:
            types(vi.type, vi.name)
        for init in g.initializer:
            elem(init.data_type, init.name)
        for node in g.node:
            for a in node.attribute:
                if a.name == "to" and a.type == onnx.AttributeProto.INT:
                    elem(a.i, f"{node.op_type} {node.name}")
                if a.HasField("t"):
                    elem(a.t.data_type, f"{node.op_type} {node.name}")
                graphs.extend([a.g] if a.HasField("g") else [])
                graphs.extend(a.graphs)
            if node.overload and need < 10:
                need, why = 10, f"function overload on {node.op_type}"
    for f in model.functions:
        if f.overload and need < 10:
            need, why = 10, f"function overload {f.name}"
    return need, why


def _lower_ir(model: onnx.ModelProto, max_ir: int, name: str) -> None:
    """Stamp the model with IR `max_ir` when the graph uses nothing newer (refused in one line otherwise)."""
    need, why = _needed_ir(model)
    if need > max_ir:
        raise ModelError(f"exported {name} needs ONNX IR {need} for {why}; the device's onnxruntime loads IR "
                         f"{max_ir} at most", hint="upgrade onnxruntime on the device, or run another precision")
    model.ir_version = max_ir


def _export(source: ModelSource, path: Path, *, seed: int, opset: int, exporter: str, options: dict[str, Any],
            say: Progress, max_ir: int | None = None) -> Artifact:
    import onnx
    import torch

    module, specs, output_names = torch_module(source, seed)
    examples_np = make_inputs(specs, _concrete(specs, EXAMPLE_BATCH), seed)
    examples = {k: torch.from_numpy(v) for k, v in examples_np.items()}
    say(f"{source.name}: exporting to ONNX ({exporter} exporter, opset {opset}{_ir_text(max_ir)})")
    started = time.perf_counter()
    try:
        proto = _export_torch(module, examples, output_names, path, opset=opset, exporter=exporter)
    except ModelError:
        raise
    except Exception as e:
        lines = [ln for ln in _ANSI.sub("", str(e)).splitlines() if ln.strip()]
        first = lines[0] if lines else ""
        if "## Exception summary" in lines[:-1]:  # the dynamo exporter puts the real cause there
            first = lines[lines.index("## Exception summary") + 1]
        hint = ("usual causes: Python control flow on tensor values, a hard-coded batch size"
                if source.kind == "builder" else "this is a bug in edgeprof's bundled model: please report it")
        raise library_failure(ModelError(f"exporting {source.name} to ONNX failed: {type(e).__name__}: {first}",
                                         hint=hint, detail="\n".join(lines[-30:]))) from e
    seconds = time.perf_counter() - started
    _strip_metadata(proto)
    wrote = default_opset(proto)
    if wrote != opset:  # the dynamo exporter falls back to its own opset when the version converter fails
        raise ModelError(f"exporting {source.name} to ONNX opset {opset}: the {exporter} exporter wrote opset "
                         f"{wrote} instead", hint=f"use an opset from {MIN_OPSET} to {MAX_OPSET} that the exporter "
                         f"reaches (it writes {DYNAMO_MIN_OPSET} natively), or export the model yourself")
    if max_ir is not None and proto.ir_version > max_ir:
        _lower_ir(proto, max_ir, source.name)
    external = save_export(proto, path)  # past protobuf's 2 GiB: model.onnx + model.onnx.data
    onnx.checker.check_model(str(path))

    graph_inputs = _graph_inputs(proto)
    by_name = {s.name: s for s in specs}
    if set(by_name) != {s.name for s in graph_inputs}:
        raise ModelError(f"exported {source.name} has inputs {[s.name for s in graph_inputs]}, "
                         f"expected {list(by_name)}", hint="the model must use every declared input")
    for s in graph_inputs:  # the dynamo exporter can silently specialise the batch: never trust it
        if not s.shape or isinstance(s.shape[0], int):
            raise ModelError(f"exported {source.name} has a fixed batch: input {s.name!r} is {s.shape_str()}",
                             hint="avoid hard-coded batch sizes in forward() (use x.shape[0] or -1)")
    inputs = tuple(by_name[s.name] for s in graph_inputs)  # graph order, declared ranges
    outputs = tuple(o.name for o in proto.graph.output)

    say(f"{source.name}: checking ONNX against torch at batch {EXAMPLE_BATCH}")
    check = _check(module, path, inputs, seed)
    if not check["ok"]:
        say(f"{source.name}: warning: ONNX differs from torch by {check['max_abs_error']:.3g}")
    say(f"{source.name}: counting FLOPs")
    flops = count_flops(path, _concrete(inputs, 1))
    return Artifact(
        path=str(path), format="onnx", sha256=sha256_file(path), size_bytes=path.stat().st_size, inputs=inputs,
        outputs=outputs, model_name=source.name, source=source.source,
        export_options=OnnxExportOptions(
            **options, exporter_call=f"torch.onnx.export(dynamo={exporter == 'dynamo'})",
            seed=seed, torch=dist_version("torch"), onnx=dist_version("onnx"),
            onnxscript=dist_version("onnxscript"), export_seconds=round(seconds, 2),
            ir_version=int(proto.ir_version), external_data_file=external or None,
        ),
        export_check=check, cache_hit=False, flops=flops,
        params=sum(p.numel() for p in module.parameters()),
    )


def _check(module: torch.nn.Module, path: Path, specs: Sequence[TensorSpec], seed: int) -> dict[str, Any]:
    """Run torch and onnxruntime (CPU) on the same seeded batch and compare every output (reference.torch_check)."""
    from ..hostrun.reference import onnx_outputs, torch_check, torch_outputs

    feed = make_inputs(specs, _concrete(specs, EXAMPLE_BATCH), seed)
    ref = torch_outputs(module, feed)
    return torch_check(onnx_outputs(path, feed), ref, what="ONNX", extra={"batch": EXAMPLE_BATCH, "inputs_seed": seed})


# ------------------------------------------------------------------------------------------ user .onnx


def _np_dtype(elem_type: int) -> str:
    import onnx

    try:
        return str(onnx.helper.tensor_dtype_to_np_dtype(elem_type))
    except (KeyError, ValueError, TypeError):
        return onnx.TensorProto.DataType.Name(elem_type).lower()


def _graph_inputs(model: onnx.ModelProto) -> tuple[TensorSpec, ...]:
    """Graph inputs that are not initializers; dynamic dims as their symbolic name, or None if unnamed (or "?")."""
    initializers = {i.name for i in model.graph.initializer}
    specs = []
    for vi in model.graph.input:
        if vi.name in initializers:
            continue
        if not vi.type.HasField("tensor_type"):
            raise ModelError(f"input {vi.name!r} is not a tensor ({vi.type.WhichOneof('value')})",
                             hint="edgeprof feeds tensors only")
        tt = vi.type.tensor_type
        dims: list[int | str | None] = []
        for d in tt.shape.dim:
            if d.HasField("dim_value") and d.dim_value >= 0:
                dims.append(int(d.dim_value))
            else:  # "?" is no name: Paddle2ONNX writes it for every dynamic dim of every input
                dims.append(d.dim_param if d.dim_param not in ("", "?") else None)
        dtype = _np_dtype(tt.elem_type)
        low, high = (0.0, 2.0) if dtype == "bool" else (0.0, 1.0)
        specs.append(TensorSpec(vi.name, tuple(dims), dtype, low, high))
    return tuple(specs)


def _one_line(e: BaseException) -> str:
    reason = " ".join(str(e).split()) or type(e).__name__
    return reason[:300] + "..." if len(reason) > 300 else reason


def _host_ort_loads(path: Path, what: str) -> str | None:
    """"onnxruntime <version>" when this host's onnxruntime loads the file (graph optimisations off, CPU; in a child
    process, hostrun/loadcheck.py, so a crash or a hang is a one-line LoadCrash), else None (it refuses it too)."""
    from ..hostrun.loadcheck import check_files

    if check_files([path], what=what, graph_opt="disable")[0] is not None:
        return None
    return f"onnxruntime {dist_version('onnxruntime')}"


def _user_onnx(source: ModelSource, say: Progress, cache_dir: Path) -> Artifact:
    import onnx

    if source.path is None:
        raise ValueError(f"model source {source.spec!r} has no path")
    path = source.path
    say(f"{source.name}: reading {path}")
    check: dict[str, Any] | None = None
    try:
        model = onnx.load(str(path), load_external_data=False)
        external = data_files(model, path)  # a missing data file is refused here, naming it
        try:
            onnx.checker.check_model(str(path))
        except onnx.checker.ValidationError as e:
            # onnx.checker is stricter than the runtime in places: a subgraph reading an outer value that its
            # graph lists after the If (an optimum export of DeBERTa) is refused by it and loaded by onnxruntime,
            # which sorts the graph itself. Such a file is run as given, the checker's words kept with it.
            loads = _host_ort_loads(path, f"{source.spec} (onnx.checker refuses it)")
            if loads is None:
                raise
            check = {"onnx_checker": _one_line(e), "loaded_by": loads}
            say(f"{source.name}: onnx.checker refuses it ({_one_line(e)[:120]}); {loads} loads it, so it is run "
                f"as given")
    except ModelError:
        raise
    except Exception as e:  # protobuf DecodeError, checker ValidationError, OSError...
        raise ModelError(f"{source.spec} is not a valid ONNX model: {_one_line(e)}",
                         hint="export it again or check the path") from e
    inputs = _graph_inputs(model)
    if not inputs:
        raise ModelError(f"{source.spec} has no inputs", hint="edgeprof needs at least one input to feed")
    flops: int | None
    try:
        flops = count_flops(model, _concrete(inputs, 1))  # shape inference needs no external weights
    except ModelError:  # a dynamic dim other than the batch: no batch-1 shape without the user's --input
        flops = None
    static = static_batch(inputs)
    if flops is not None and static is not None:  # the graph computes N inferences: FLOPs are per inference
        flops //= static[0]
    params = sum(math.prod(init.dims) for init in model.graph.initializer)
    artifact = Artifact(
        path=str(path), format="onnx", sha256="" if external else sha256_of(path), size_bytes=path.stat().st_size,
        inputs=inputs, outputs=tuple(o.name for o in model.graph.output), model_name=source.name,
        source=source.source, export_options=OnnxExportOptions(), export_check=check, cache_hit=False, flops=flops,
        params=params,
    )
    if external:  # the model and its data files become one self-contained artifact in the cache
        artifact = with_inlined_data(artifact, path, external, cache_dir=cache_dir, say=say)
    return artifact
