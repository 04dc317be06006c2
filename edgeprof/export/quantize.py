"""ONNX precisions: fp16 and int8 versions of an fp32 ONNX Artifact, cached; calibration inputs.

Owns:
- fp16: `onnxconverter_common.float16.convert_float_to_float16(keep_io_types=True)`: weights and compute in
  fp16, graph inputs and outputs stay as they were (Casts at the edges), so the same seeded inputs feed it.
  onnxruntime's CPU provider has few fp16 kernels: it inserts Casts and computes most ops in fp32 (the runner
  warns when fp16 runs on the CPU provider only).
  Casts the converter leaves producing float32 (also in If/Loop bodies) are retargeted; when onnxruntime still
  refuses the file, the ops its error names join `op_block_list` for one more try; then a one-line refusal that
  blames the conversion. Every converted file is loaded once on the host before it can be pushed, in a child
  process at the run's --graph-opt level (loadcheck.py: a crash or hang there is a one-line refusal).
- int8: static QDQ, per-channel weights (`quant_pre_process`, then `quantize_static(quant_format=QDQ,
  per_channel=True)`, int8 activations and weights, MinMax calibration). Dynamic int8 was 3–7× slower on our CNN.
  A file below opset 13 is upgraded first with onnx's version converter (in the temp dir), or refused in one line.
  The opset imports of domains no node uses (quant_pre_process stamps every domain onnxruntime knows, e.g.
  `ai.onnx.ml` 5, which onnxruntime 1.10 and 1.16 refuse) are dropped from the result.
  Before quantize_static the graph gets the repairs onnxruntime.quantization's bugs need (onnx_repair.py: shared
  biases copied, [1, N] Gemm biases flattened; Softmax nodes it cannot calibrate and readers of inf/NaN constants
  left in float via nodes_to_exclude), each recorded in the export options; `int8_notes` turns the nodes left
  in float into the result's `precision_partial` warning.
  Every intermediate file lives in a temporary directory that is removed: the cwd and the model's folder stay as
  they were.
- "as given": `onnx_given_precision` tells an already-quantised (QDQ / QLinear / integer ops) or fp16 file, which
  runs as it is and is labelled `int8 (as given)` (`as_given`), never quantised again.
- calibration inputs: what the run's input plan feeds (export/inputs.InputPlan): an `--input-value` constant is
  that constant, an `--input-data` array that array, a generated input is drawn seeded from its range (the
  `--input-range` one, else the model's declared one; `CALIBRATION_SAMPLES` samples, seeds seed+1000+i, never the
  measurement seed). A directory of `.npy` files (the one input the plan does not fix: one sample per file) or
  `.npz` files (keys = input names, one sample per file) wins for the inputs it holds; an input its files lack
  is taken from the plan's constant or data, else refused. A sample may leave out the batch dimension; it is added.
- the cache (artifact_cache.build_cached, which runs each conversion inside a capture: onnxruntime's and
  onnxconverter-common's warnings and logs go to `cache_dir/<key>.log`): entries keyed by the fp32 file's sha256,
  the precision, the calibration (content hash of the directory, and what the plan fed each input: constant,
  data file sha256, range), the versions of onnxruntime/onnxconverter-common and the text of this file and of
  onnx_repair.py.
Does not own: the fp32 export (onnx_export.py), TFLite (tflite_export.py), fidelity (fidelity.py), the graph
repairs themselves (onnx_repair.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, ModelError
from ..files import datafiles
from ..hostrun.loadcheck import ONNXRUNTIME, LoadCrash, check_converted, check_files, op_refused
from ..records import Artifact, OnnxExportOptions, TensorSpec
from ..records.options import extended
from . import external_data
from .artifact_cache import build_cached, code_version, dist_version, key_of
from .capture import library_failure, to_terminal
from .external_data import counted, name_by_content, save_export, tensor_bytes
from .inputs import make_inputs, read_npz
from .onnx_repair import (
    QDQ_MIN_OPSET,
    dedupe_opset_imports,
    default_opset,
    flatten_gemm_biases,
    float16_readers,
    grouped_conv_transpose_biases,
    nonfinite_constant_readers,
    uncalibrated_softmax,
    unshare_biases,
)
from .onnx_repair import all_nodes as _all_nodes
from .onnx_repair import drop_unused_opset_imports as _drop_unused_opset_imports
from .onnx_repair import retarget_float_casts as _retarget_float_casts
from .onnx_repair import rewire_output_consumers as _rewire_output_consumers
from .onnx_repair import upgrade_opset as _upgrade_opset

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from .inputs import InputPlan

__all__ = ["quantize_onnx", "calibration_samples", "calibration_fingerprint", "CALIBRATION_SAMPLES",
           "ONNX_PRECISIONS", "QDQ_MIN_OPSET", "default_opset"]

ONNX_PRECISIONS = ("fp32", "fp16", "int8")
CALIBRATION_SAMPLES = 16
CALIBRATION_SEED_OFFSET = 1000
Progress = Callable[[str], None]


# ------------------------------------------------------------------------------------------ calibration


def calibration_samples(specs: Sequence[TensorSpec], shapes: Mapping[str, tuple[int, ...]], seed: int,
                        directory: str | Path | None = None, count: int = CALIBRATION_SAMPLES,
                        fixed: Mapping[str, np.ndarray] | None = None) -> list[dict[str, np.ndarray]]:
    """Calibration feeds, one dict {input name: array at its concrete shape} per sample.

    `specs` carry each generated input's range (the plan's, after --input-range); `fixed` holds the arrays the
    run feeds as they are (InputPlan.fixed(): --input-value constants, --input-data arrays).
    Without `directory`: `count` seeded samples (seed + 1000 + i, distinct from the measured inputs), the fixed
    inputs as they are. With it: every `.npy` (the one input not fixed) or `.npz` (keys = input names) file,
    sorted by name; an input a file lacks comes from `fixed`, else it is refused."""
    import numpy as np

    fixed = dict(fixed or {})
    if directory is None:
        return [make_inputs(specs, shapes, seed + CALIBRATION_SEED_OFFSET + i, fixed) for i in range(count)]
    root = Path(directory).expanduser()
    if not root.is_dir():
        raise ConfigError(f"--calibration {directory}: not a directory",
                          hint="give a directory of .npy files (one per sample) or .npz files (keys = input names)")
    files = sorted(p for p in root.iterdir() if p.suffix in (".npy", ".npz") and p.is_file())
    if not files:
        raise ConfigError(f"--calibration {directory}: no .npy or .npz files there",
                          hint="save one sample per file with numpy.save / numpy.savez")
    names = [s.name for s in specs]
    open_names = [n for n in names if n not in fixed]  # the inputs the run does not feed as they are
    samples: list[dict[str, np.ndarray]] = []
    for f in files:
        if f.suffix == ".npy":
            if len(open_names) != 1:
                raise ConfigError(
                    f"--calibration {f}: a .npy file holds one array but the model has {len(open_names)} inputs "
                    f"({', '.join(open_names)})" + (" not fed by --input-value/--input-data" if fixed else ""),
                    hint="save each sample as .npz with one key per input name")
            raw = {open_names[0]: datafiles.read_npy(f, f"--calibration {f}")}  # one DataFileError if unreadable
        else:
            raw = read_npz(f, f"--calibration {f}")
        missing = [n for n in names if n not in raw and n not in fixed]
        if missing:
            raise ConfigError(f"--calibration {f}: no array for input(s) {', '.join(missing)}",
                              hint=f"its keys are {', '.join(sorted(raw)) or 'none'}; the model's inputs are "
                                   f"{', '.join(names)} (or feed one with --input-value / --input-data)")
        chunks: dict[str, list[np.ndarray]] = {}  # a file may hold several batches of the run's size
        for s in specs:
            if s.name not in raw:
                continue
            arr = np.asarray(raw[s.name])
            want = tuple(shapes[s.name])
            if arr.shape != want and arr.shape == want[1:]:  # no batch dim: repeat the sample over the batch
                arr = np.broadcast_to(arr, want).copy()
            if arr.shape != want and len(want) >= 1 and want[0] >= 1 and arr.ndim == len(want) \
                    and arr.shape[1:] == want[1:] and arr.shape[0] % want[0] == 0:
                parts = [arr[i:i + want[0]] for i in range(0, arr.shape[0], want[0])]  # N samples: N/batch runs
            elif arr.shape == want:
                parts = [arr]
            else:
                raise ConfigError(f"--calibration {f}: input {s.name} has shape {list(arr.shape)}, "
                                  f"the run uses {list(want)}",
                                  hint="match --batch/--input, drop the batch dim, or stack samples on dim 0")
            chunks[s.name] = [datafiles.cast_exact(a, s.dtype, f"--calibration {f}: input {s.name}") for a in parts]
        counts = {len(v) for v in chunks.values() if len(v) > 1}
        if len(counts) > 1:
            raise ConfigError(f"--calibration {f}: its inputs hold different numbers of samples",
                              hint="stack the same samples of every input on dim 0")
        for i in range(max(counts) if counts else 1):
            samples.append({s.name: (chunks[s.name][i] if len(chunks[s.name]) > 1 else chunks[s.name][0])
                            if s.name in chunks else fixed[s.name] for s in specs})
    return samples


def calibration_fingerprint(directory: str | Path | None, count: int = CALIBRATION_SAMPLES,
                            plan: InputPlan | None = None) -> dict[str, Any]:
    """What decides the calibration: the seeded default, or the sha256 of every file in the directory; with the
    run's input `plan`, what it feeds each input that is not drawn from the model's own range (`inputs`)."""
    if directory is None:
        out: dict[str, Any] = {"kind": "seeded-random", "samples": count, "seed_offset": CALIBRATION_SEED_OFFSET}
    else:
        root = Path(directory).expanduser()
        h = hashlib.sha256()
        files = sorted(p for p in root.iterdir() if p.suffix in (".npy", ".npz") and p.is_file()) \
            if root.is_dir() else []
        for p in files:
            h.update(p.name.encode() + b"\0" + p.read_bytes())
        out = {"kind": "directory", "path": str(root), "files": len(files), "sha256": h.hexdigest()}
    feeds = plan_feeds(plan) if plan is not None else {}
    if feeds:
        out["inputs"] = feeds
    return out


def plan_feeds(plan: InputPlan) -> dict[str, dict[str, Any]]:
    """What the plan feeds each input: a constant (its value), a data array (its file's sha256), or seeded values
    from a range (the --input-range one, else the model's declared one)."""
    out: dict[str, dict[str, Any]] = {}
    for p in plan.inputs:
        if p.feed == "value":
            out[p.spec.name] = {"feed": "value", "value": p.value}
        elif p.feed == "data":
            out[p.spec.name] = {"feed": "data", "sha256": p.sha256}
        else:
            out[p.spec.name] = {"feed": "generated", "low": p.spec.low, "high": p.spec.high}
    return out


# ------------------------------------------------------------------------------------------- quantise


def _check_quantisable(path: Path, name: str) -> None:
    """One line, before onnxruntime.quantization fails on it ("Failed to find proper ai.onnx domain"), for a graph
    with no node of the ONNX domain: a scikit-learn forest or SVM as skl2onnx writes it (ai.onnx.ml alone) has nothing
    static int8 quantises."""
    import onnx

    graph = onnx.load(str(path), load_external_data=False).graph
    if graph.node and not any(n.domain in ("", "ai.onnx") for n in graph.node):
        ops = sorted({f"{n.domain}.{n.op_type}" for n in graph.node})
        raise ModelError(f"--precision int8: {name} has no ONNX-domain node to quantise (its {len(graph.node)} "
                         f"node(s): {', '.join(ops[:4])}{' …' if len(ops) > 4 else ''})",
                         hint="deploy it at --precision fp32: onnxruntime.quantization quantises Conv, MatMul, "
                              "Gemm and their kin, not ai.onnx.ml's trees and kernels")


def quantize_onnx(fp32: Artifact, precision: str, *, cache_dir: Path, shapes: Mapping[str, tuple[int, ...]],
                  seed: int = 0, calibration: str | Path | None = None,
                  progress: Progress | None = None, plan: InputPlan | None = None,
                  graph_opt: str | None = None) -> Artifact:
    """The `precision` version of an fp32 ONNX artifact (fp32 returns it unchanged). Cached.
    `graph_opt`: the run's --graph-opt level, the one the host's load check creates its session at.
    `plan`: the run's input plan; int8 calibration feeds what it feeds (constants, data, ranges; see
    calibration_samples). Without it every input is drawn from the model's declared range."""
    say = to_terminal(progress)
    if precision == "fp32":
        return fp32
    if precision not in ONNX_PRECISIONS:
        raise ConfigError(f"--precision {precision}: ONNX models can be fp32, fp16 or int8")
    if fp32.format != "onnx":
        raise ModelError(f"{fp32.model_name} is {fp32.format}, not ONNX", hint="quantise it with its own tools")
    if fp32.precision != "fp32":
        raise ModelError(f"{fp32.model_name} is already {fp32.precision}", hint="give the fp32 model")
    material: dict[str, Any] = {
        "fp32_sha256": fp32.sha256, "precision": precision, "code": code_version("quantize.py"),
        "repair_code": code_version("onnx_repair.py"),
        "onnxruntime": dist_version("onnxruntime"), "onnx": dist_version("onnx"),
        "onnxconverter-common": dist_version("onnxconverter-common"), "load_checked_at": graph_opt or "all",
    }
    if precision == "int8":
        material["calibration"] = calibration_fingerprint(calibration, plan=plan)
        material["seed"] = seed
        material["shapes"] = {k: list(v) for k, v in shapes.items()}

    def build(out: Path) -> Artifact:
        if precision == "fp16":
            say(f"{fp32.model_name}: converting ONNX to fp16 (onnxconverter-common, IO types kept)")
            options = _fp16(Path(fp32.path), out, fp32.model_name, graph_opt,
                            source_checked="onnx_checker" not in (fp32.export_check or {}))
        else:
            _check_quantisable(Path(fp32.path), fp32.model_name)  # only when it is to be built, not on a cache hit
            say(f"{fp32.model_name}: quantising ONNX to int8 (static QDQ, per-channel)")
            specs = plan.specs if plan is not None else fp32.inputs
            samples = calibration_samples(specs, shapes, seed, calibration,
                                          fixed=plan.fixed() if plan is not None else None)
            options = _int8(Path(fp32.path), out, samples)
            for note in int8_notes(options):
                say(f"{fp32.model_name}: {note}")
            options["calibration"] = calibration_fingerprint(calibration, plan=plan)
            options["calibration_shapes"] = {k: list(v) for k, v in shapes.items()}
            _loads_in_onnxruntime(out, "int8", fp32.model_name, graph_opt)
        export_options = extended(fp32.export_options, OnnxExportOptions, fp32_sha256=fp32.sha256,
                                  precision=precision, **options)
        return dataclasses.replace(fp32, path=str(out), precision=precision, export_options=export_options,
                                   export_check=None, cache_hit=False)

    return counted(build_cached(cache_dir, key_of(material), "onnx", build,
                                what=f"converting {fp32.model_name} to {precision} ONNX"))


def _fp16(src: Path, out: Path, name: str = "the model", graph_opt: str | None = None,
          source_checked: bool = True) -> dict[str, Any]:
    """Convert with onnxconverter-common, then load the result once in onnxruntime. When onnxruntime refuses it
    (a tensor the converter typed float16 feeds a node that needs float32, e.g. YOLO-style Shape → Cast → Div/Range
    chains) even after the Cast fixes below, the op types around the mismatched tensor are added to
    `op_block_list` (they then run in float32 between Casts) and the conversion is tried once more; then it is
    refused in one line that blames the conversion. `source_checked`: False for a user's file onnx.checker refused
    and onnxruntime loaded (its artifact's export_check says so: onnx_export._user_onnx); its conversion keeps what
    the checker refused, so onnxruntime alone judges it."""
    try:
        from onnxconverter_common import float16
    except ImportError as e:
        raise ModelError("fp16 ONNX needs onnxconverter-common on the host",
                         hint="pip install 'edgeprof[quant]'") from e
    import onnx

    blocked = list(float16.DEFAULT_OP_BLOCK_LIST)

    dropped: list[str] = []

    def convert(extra: list[str]) -> tuple[Any, list[str], str | None]:
        model = onnx.load(str(src))
        # an old-IR file lists its initializers as graph inputs too: the converter then writes a float16
        # initializer behind a float32 input, which onnxruntime refuses; users drop those entries first
        inits = {i.name for i in model.graph.initializer}
        keep = [i for i in model.graph.input if i.name not in inits]
        dropped[:] = [i.name for i in model.graph.input if i.name in inits]
        if dropped:
            del model.graph.input[:]
            model.graph.input.extend(keep)
            model.ir_version = max(model.ir_version, 4)  # IR 3 requires them listed; IR 4 lets them go
        # past 2 GiB the converter's in-memory shape inference cannot serialise the model: skip it there
        big = tensor_bytes(model) > external_data.PROTOBUF_LIMIT  # read at call time (one limit)
        converted = float16.convert_float_to_float16(model, keep_io_types=True, op_block_list=blocked + extra,
                                                     disable_shape_infer=big)
        fixed = _retarget_float_casts(converted) + _rewire_output_consumers(converted)
        save_export(converted, out)  # still past the threshold in fp16: its data beside it, named by content
        try:
            onnx.checker.check_model(str(out))
            checker = None
        except Exception as e:  # onnx's ValidationError: the converter wrote an invalid graph, or the file was one
            # onnx.checker refuses and onnxruntime loads (an If branch reading a value listed after it), kept so
            checker = f"onnx.checker: {(str(e).strip().splitlines() or [type(e).__name__])[0]}"
        try:
            error = _onnxruntime_error(out, graph_opt, f"the fp16 conversion of {name}")
        except LoadCrash:  # the library crashed or hung in the check
            out.unlink(missing_ok=True)
            raise
        if error is None and checker is not None and source_checked:
            return converted, fixed, checker  # the converter wrote a graph the checker refuses from one it accepts
        return converted, fixed, error  # a source the checker refused too (source_checked): onnxruntime judges it

    added: list[str] = []
    try:
        converted, fixed, error = convert([])
    except LoadCrash:
        raise
    except Exception as e:  # the converter's own failure
        converted, fixed, error = None, [], f"onnxconverter-common raised {type(e).__name__}: {e}"
    if error is not None and converted is not None:  # once more, the ops the load error names kept in float32
        extra = [op for op in _mismatch_ops(converted, error) if op not in blocked]
        if extra:
            try:
                _, fixed2, error2 = convert(extra)
            except LoadCrash:
                raise
            except Exception:  # the converter's own bugs with some block lists: keep the first error
                error2 = error
            if error2 is None:
                added, fixed, error = extra, fixed2, None
    if error is not None:
        out.unlink(missing_ok=True)
        missing_op = op_refused(ONNXRUNTIME, error, f"the fp16 conversion of {name}")
        if missing_op is not None:
            raise missing_op
        raise ModelError(f"the fp16 conversion produced a file onnxruntime cannot load: {' '.join(error.split())[:300]}",
                         hint="the converter (onnxconverter-common) cannot convert this graph, your file is "
                              "fine: run it with --precision fp32 or int8")
    call = "onnxconverter_common.float16.convert_float_to_float16(keep_io_types=True"
    call += f", op_block_list=DEFAULT_OP_BLOCK_LIST + {added})" if added else ")"
    return {"converter": call, "onnxconverter_common": dist_version("onnxconverter-common"),
            **({"ops_kept_fp32": added} if added else {}),
            **({"initializer_inputs_dropped": len(dropped), "ir_version_raised_to": 4} if dropped else {}),
            **({"casts_retargeted_to_fp16": fixed} if fixed else {})}


def _mismatch_ops(model: Any, error: str) -> list[str]:
    """Op types to try keeping in float32 for an onnxruntime type error, most likely first: for the tensor it
    names (`output arg (NAME)`), its producer (unless a Cast) and its consumers; else the op it names."""
    nodes = list(_all_nodes(model.graph))
    out: list[str] = []
    m = re.search(r"output arg \(([^)]*)\)", error)
    if m:
        out += [str(n.op_type) for n in nodes if m.group(1) in n.output and n.op_type != "Cast"]
        out += [str(n.op_type) for n in nodes if m.group(1) in n.input]
    m = re.search(r"Optype \((\w+)\)", error)
    if m:
        out.append(m.group(1))
    m = re.search(r"node \(([^)]+)\)", error)
    if m:
        out += [str(n.op_type) for n in nodes if n.name == m.group(1)]
    return [op for op in dict.fromkeys(out) if op != "Cast"]  # a blocked Cast sends the converter into a loop


def _onnxruntime_error(path: Path, graph_opt: str | None, what: str) -> str | None:
    """None when onnxruntime (CPU) loads the file at `graph_opt`, else the first line of its error. The session is
    made in a child process (loadcheck.py): a crash or hang there is a LoadCrash, one line, never a dead CLI."""
    error = check_files([path], what=what, graph_opt=graph_opt)[0]
    return None if error is None else _ort_text(error)


def _ort_text(error: str) -> str:
    return re.sub(r"^\[ONNXRuntimeError\] : \d+ : \w+ : (Load model from \S+ failed:)?", "", error).strip()


def _loads_in_onnxruntime(path: Path, what: str, name: str, graph_opt: str | None) -> None:
    """Load a converted artifact once on the host, so a file the runtime refuses fails here, before any push."""
    error = check_converted(path, what=f"the {what} conversion of {name}", graph_opt=graph_opt)
    if error is not None:
        error = _ort_text(error)
        other = "fp16" if what == "int8" else "int8"
        raise ModelError(f"the {what} conversion produced a file onnxruntime cannot load: {error}",
                         hint=f"the converter cannot convert this graph, your file is fine: run it with --precision "
                              f"fp32 or {other}")


class _Reader:
    """onnxruntime CalibrationDataReader over a list of feeds."""

    def __init__(self, samples: list[dict[str, np.ndarray]]) -> None:
        self._it = iter(samples)

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._it, None)

    def rewind(self) -> None:  # pragma: no cover - only some calibrators call it
        pass


def _int8(src: Path, out: Path, samples: list[dict[str, np.ndarray]]) -> dict[str, Any]:
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(_Reader, CalibrationDataReader):
        pass

    options: dict[str, Any] = {}
    src, out = src.absolute(), out.absolute()
    with tempfile.TemporaryDirectory(prefix="edgeprof-quant-") as tmp:
        old = os.getcwd()
        # the libraries write into the working directory: the calibrator its augmented_model.onnx, symbolic shape
        # inference a sym_shape_infer_temp.onnx (+ .data) when it cannot finish. Both land in the temp dir.
        os.chdir(tmp)
        try:
            deduped: list[str] = []
            upgraded = _upgrade_opset(src, Path(tmp) / "opset13.onnx", deduped)
            if upgraded is not None:
                options["opset_upgraded"] = upgraded
                src = Path(tmp) / "opset13.onnx"
            pre = Path(tmp) / "pre.onnx"
            prep = "quant_pre_process"
            # past 2 GiB (the data kept beside the model) every file the tools write keeps its data beside it too
            big = tensor_bytes(onnx.load(str(src), load_external_data=False)) > external_data.PROTOBUF_LIMIT
            external = {"save_as_external_data": True, "all_tensors_to_one_file": True,
                        "external_data_location": "pre.onnx.data"} if big else {}
            try:
                quant_pre_process(str(src), str(pre), skip_symbolic_shape=False, **external)
            except Exception:  # symbolic shape inference fails on some graphs: retry without it
                prep = "quant_pre_process(skip_symbolic_shape=True)"
                quant_pre_process(str(src), str(pre), skip_symbolic_shape=True, **external)
            pre, repairs, excluded = _repair_for_quantizer(pre, Path(tmp) / "repaired.onnx", big)
            deduped += repairs.pop("opset_imports_deduplicated", [])  # an upgraded file's were removed before
            options.update(repairs)
            if deduped:
                options["opset_imports_deduplicated"] = deduped
            if excluded:
                options["nodes_not_quantized"] = excluded
            quantize_static(str(pre), str(out), Reader(samples), quant_format=QuantFormat.QDQ, per_channel=True,
                            activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
                            use_external_data_format=big, nodes_to_exclude=list(excluded))
            if big:  # its data beside it, named by content, as the fp32 file's (external_data.py)
                name_by_content(out)
            dropped = _drop_unused_opset_imports(out)
            if dropped:
                options["dropped_opset_imports"] = dropped
        except ModelError:
            raise
        except Exception as e:
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            where = _library_frame(e)
            raise library_failure(ModelError(f"int8 quantisation failed{where}: {type(e).__name__}: {first}",
                                             hint="run it with --precision fp32 or fp16 (onnxruntime.quantization "
                                                  "cannot quantise this graph), or give --calibration DIR with real "
                                                  "samples if the seeded calibration inputs are the problem")) from e
        finally:
            os.chdir(old)
    return {"quantizer": f"onnxruntime.quantization {prep} + quantize_static(QDQ, per_channel=True, "
                         "activations int8, weights int8, MinMax)",
            "onnxruntime": dist_version("onnxruntime"), "calibration_samples": len(samples), **options}


def _library_frame(e: BaseException) -> str:
    """Where in onnxruntime's Python code `e` was raised (its innermost frame there), as
    ` in onnxruntime (quantization/qdq_quantizer.py _adjust_weight_scale_for_int32_bias)`, so that a quantizer
    bug reads apart from a bad input; "" when onnxruntime's code is not on the traceback."""
    import traceback

    frames = [f for f in traceback.extract_tb(e.__traceback__) if "/onnxruntime/" in f.filename.replace("\\", "/")]
    if not frames:
        return ""
    f = frames[-1]
    path = f.filename.replace("\\", "/").rsplit("/onnxruntime/", 1)[1]
    return f" in onnxruntime ({path} {f.name})"


def _repair_for_quantizer(pre: Path, out: Path, big: bool) -> tuple[Path, dict[str, Any], dict[str, str]]:
    """The repairs onnxruntime.quantization needs on a graph it did not write (onnx_repair.py says which bug each
    avoids): (the file to quantise, {provenance key: what was done}, {node left unquantised: why}). The file is
    `pre` itself when nothing changed, else `out` (beside it, so its external data still resolves)."""
    import onnx

    model = onnx.load(str(pre), load_external_data=False)
    deduped = dedupe_opset_imports(model)
    unshared = unshare_biases(model)
    flattened = flatten_gemm_biases(model)
    excluded = {**uncalibrated_softmax(model), **nonfinite_constant_readers(model), **float16_readers(model),
                **grouped_conv_transpose_biases(model)}
    repairs: dict[str, Any] = {}
    if deduped:
        repairs["opset_imports_deduplicated"] = deduped
    if unshared:
        repairs["biases_unshared"] = unshared
    if flattened:
        repairs["gemm_biases_flattened"] = flattened
    # an excluded node without a name was given one (nodes_to_exclude goes by name): that too is a change to save
    if not (deduped or unshared or flattened or excluded):
        return pre, repairs, excluded
    onnx.save(model, str(out))  # big: the initializers still point at pre.onnx.data beside it
    return out, repairs, excluded


def int8_notes(options: Any) -> list[str]:
    """One line per thing the int8 conversion left other than asked (nodes kept in float), from an artifact's
    export options: what deploy tells the user (a `precision_partial` warning on the result)."""
    excluded = (options.get("nodes_not_quantized") if isinstance(options, Mapping)
                else getattr(options, "nodes_not_quantized", None)) or {}
    by_why: dict[str, list[str]] = {}
    for node, why in excluded.items():
        by_why.setdefault(why, []).append(node)
    return [f"int8: {len(nodes)} node(s) left in float ({', '.join(nodes[:3])}{' ...' if len(nodes) > 3 else ''}): "
            f"{why}; the rest is int8" for why, nodes in by_why.items()]


# -------------------------------------------------------------------------------------- as given

QUANTISED_OPS = frozenset({"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "ConvInteger",
                           "MatMulInteger", "QLinearConv", "QLinearMatMul", "QGemm", "QLinearAdd", "QLinearMul",
                           "QLinearConcat", "QLinearSigmoid", "QLinearLeakyRelu", "QLinearAveragePool",
                           "QLinearGlobalAveragePool", "QLinearSoftmax", "DynamicQuantizeMatMul",
                           "MatMulIntegerToFloat", "DynamicQuantizeLSTM"})


def onnx_given_precision(path: str | Path) -> tuple[str, str] | None:
    """("int8", why) for an ONNX file that is already quantised (QDQ / QLinear / integer ops), ("fp16", why) for
    one whose float weights are mostly float16, None for a float32 file. Reads the graph only, not external data."""
    import onnx
    from onnx import TensorProto

    model = onnx.load(str(path), load_external_data=False)
    nodes = list(_all_nodes(model.graph))
    ops = sorted({n.op_type for n in nodes} & QUANTISED_OPS)
    if ops:
        return "int8", f"{_int8_kind(model, nodes, set(ops))}: " + ", ".join(ops[:3]) + (" ..." if len(ops) > 3 else "")
    floats = [i.data_type for i in model.graph.initializer if i.data_type in (TensorProto.FLOAT, TensorProto.FLOAT16)]
    if floats and floats.count(TensorProto.FLOAT16) * 2 > len(floats):
        return "fp16", f"float16 weights ({floats.count(TensorProto.FLOAT16)} of {len(floats)} float initializers)"
    return None


def _int8_kind(model: Any, nodes: list[Any], ops: set[str]) -> str:
    """How an already-quantised graph is quantised, read from its ops and weights: dynamic (activations quantised
    at run time), QOperator (QLinear* ops), QDQ (Quantize/DequantizeLinear pairs around float ops), or weight-only
    (DequantizeLinear of int8 initializers only: int8 weights, float activations)."""
    if ops & {"DynamicQuantizeLinear", "DynamicQuantizeMatMul", "MatMulIntegerToFloat", "DynamicQuantizeLSTM"}:
        return "dynamic (int8 weights, activations quantised at run time)"
    if any(op.startswith("QLinear") or op == "QGemm" for op in ops):
        return "QOperator (int8 weights and activations)"
    if "QuantizeLinear" in ops:
        return "QDQ (int8 weights and activations)"
    initializers = {i.name for i in model.graph.initializer}
    dq_inputs = [n.input[0] for n in nodes if n.op_type == "DequantizeLinear" and n.input]
    if dq_inputs and all(x in initializers for x in dq_inputs):
        return "weight-only (int8 weights, float activations)"
    return "integer ops"


def as_given(artifact: Artifact) -> str | None:
    """`int8 (as given)` for an artifact that is the user's already-quantised file, run as it is; else None."""
    if getattr(artifact.export_options, "precision_as_given", None):  # set only on a user's file run as given
        return f"{artifact.precision} (as given)"
    return None
