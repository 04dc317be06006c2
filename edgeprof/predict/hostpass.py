"""One run of an ONNX model on THIS host's onnxruntime (CPU, graph optimisations off so that every tensor keeps its
name), for what a graph alone does not say — never on a device.

Owns: `run_shapes` (the shapes of the main graph's tensors ONNX shape inference could not reach: shapes computed
from data, an STFT's padding; graph.kernels asks for them when no trace is given) and `host_trace` (one run fed
deploy's own inputs, in service.model_graph: every tensor's shape, and whether the model's float32 activations
or weights hold denormal floats). Tensors inside If
branches and Loop bodies cannot be outputs of a run: neither sees them; `body_shapes` runs a Loop body alone instead.
A main-graph Loop is given a scan output of its iteration number for that run, so that the trace says how many
times its body ran (`Trace.iterations`).
Also `optimised_model`: the graph this host's onnxruntime saves at a device's graph level (HOST_LEVELS).
Does not own: reading graphs (graph.py), the warning's words (service.py).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ModelError

__all__ = ["optimised_model", "HOST_LEVELS", "run_shapes", "body_shapes", "host_trace", "denormal_weights", "Trace",
           "DENORMAL_MAX_FILE"]


# device graph level → the level this host saves its graph at (never above "extended": graph.py's docstring says why)
HOST_LEVELS = {"disable": "ORT_DISABLE_ALL", "basic": "ORT_ENABLE_BASIC", "extended": "ORT_ENABLE_EXTENDED",
               "all": "ORT_ENABLE_EXTENDED", "host-all": "ORT_ENABLE_ALL"}  # host-all: layout.py's own read


def optimised_model(path: str | Path, level: str = "all", workdir: str | None = None) -> Any:
    """The graph this host's onnxruntime (CPU provider) runs for `path` at the device's `level`, as an
    onnx.ModelProto (graph.py's docstring says why "all" is read at "extended")."""
    import onnx
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = getattr(ort.GraphOptimizationLevel, HOST_LEVELS.get(level, "ORT_ENABLE_EXTENDED"))
    so.log_severity_level = 3
    with tempfile.TemporaryDirectory(prefix="edgeprof-predict-", dir=workdir) as tmp:
        out = os.path.join(tmp, "optimised.onnx")
        so.optimized_model_filepath = out
        try:
            ort.InferenceSession(str(path), sess_options=so, providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001 - onnxruntime raises its own exception types
            first = (str(e).splitlines() or [""])[0]
            raise ModelError(f"{path}: this host's onnxruntime {ort.__version__} could not load the model to read "
                             f"its optimised graph: {first[:200]}",
                             hint="predict needs a model onnxruntime loads; check the file") from None
        return onnx.load(out)


def _run(model: Any, feeds: Mapping[str, Any], names: list[str]) -> list[tuple[str, Any]] | None:
    """(name, value) of the main graph's tensors `names` in one run of `model` fed `feeds`; None when onnxruntime
    refuses the model or the run fails (not the user's error: the caller then says nothing new)."""
    import onnx
    import onnxruntime as ort

    m = onnx.ModelProto()
    m.CopyFrom(model)
    del m.graph.output[:]
    m.graph.output.extend(onnx.helper.make_empty_tensor_value_info(name) for name in dict.fromkeys(names))
    so = ort.SessionOptions()
    so.log_severity_level = 4
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # every tensor named as in the file
    try:
        sess = ort.InferenceSession(m.SerializeToString(), sess_options=so, providers=["CPUExecutionProvider"])
        outs = sess.run(None, dict(feeds))
    except Exception:  # noqa: BLE001 - onnxruntime raises its own types
        return None
    return [(o.name, v) for o, v in zip(sess.get_outputs(), outs, strict=True)]


def _seeded(rng: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    """Data for an input whose values are not known: seeded uniform [0, 1) floats, zeros for other dtypes."""
    import numpy as np

    return rng.random(shape).astype(dtype) if np.issubdtype(dtype, np.floating) else np.zeros(shape, dtype)


def run_shapes(model: Any, input_shapes: Mapping[str, tuple[int, ...]], values: Mapping[str, Any],
               missing: list[str]) -> dict[str, tuple[int, ...]]:
    """The shapes of the main graph's tensors `missing`, read from one run of `model` on this host (the module
    docstring), fed the values known and seeded uniform floats (zeros for integers) elsewhere; {} when the run is
    refused or fails."""
    import numpy as np
    import onnx

    rng = np.random.default_rng(0)
    feeds: dict[str, Any] = {}
    inits = {i.name for i in model.graph.initializer}
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        if inp.name in values:
            feeds[inp.name] = np.asarray(values[inp.name])
            continue
        tt = inp.type.tensor_type
        shape = tuple(input_shapes[inp.name]) if inp.name in input_shapes else \
            tuple(d.dim_value for d in tt.shape.dim)
        if any(int(d) <= 0 for d in shape):  # a dim neither fed nor fixed: nothing to run with
            return {}
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
        feeds[inp.name] = _seeded(rng, shape, dtype)
    got = _run(model, feeds, missing)
    return {} if got is None else {n: tuple(int(d) for d in np.shape(v)) for n, v in got if isinstance(v, np.ndarray)}


def body_shapes(body: Any, opsets: Any, actual: list[str], shapes: Mapping[str, tuple[int, ...]],
                dtypes: Mapping[str, int], value: Any) -> dict[str, tuple[int, ...]]:
    """The shapes of a Loop body's tensors in its first iteration, from one run of the body alone as a model on this
    host's onnxruntime: fed the iteration number 0, a true condition, its loop-carried values (the Loop's inputs
    `actual`, from its third on) and the outer-scope tensors it reads, each its value where `value(name)` knows it,
    else seeded data of its known shape and dtype. A run of the whole model cannot give them (the module docstring):
    without them every kernel of a Keras LSTM that tf2onnx wrote as a Loop took its weight's shape (chars2vec: 300×
    the gates' size, round 7). {} when a shape it needs is not known or the run fails. `opsets`: the model's
    opset_import."""
    import numpy as np
    import onnx

    rng = np.random.default_rng(0)
    produced = {o for n in body.node for o in n.output} | {i.name for i in (*body.initializer, *body.input)}
    outer = list(dict.fromkeys(t for n in body.node for t in n.input if t and t not in produced))
    # (name in the body, the tensor outside that feeds it, its value where fixed here)
    slots = [(i.name, a, None) for i, a in zip(body.input[2:], actual[2:], strict=False)] + \
        [(t, t, None) for t in outer]
    if len(body.input) >= 2:
        slots = [(body.input[0].name, "", np.array(0, np.int64)), (body.input[1].name, "", np.array(True)), *slots]
    declared = {i.name: i.type.tensor_type.elem_type for i in body.input if i.type.HasField("tensor_type")}
    feeds: dict[str, Any] = {}
    g = onnx.GraphProto()
    g.CopyFrom(body)
    del g.input[:], g.value_info[:]  # what the caller's inference wrote there may be typed wrong (float for a bool)
    for name, src, fixed in slots:
        dtype = declared.get(name) or (onnx.helper.np_dtype_to_tensor_dtype(fixed.dtype) if fixed is not None
                                       else dtypes.get(src, 1))
        known = fixed if fixed is not None else value(src)
        if known is None:
            if src not in shapes:
                return {}
            known = _seeded(rng, shapes[src], onnx.helper.tensor_dtype_to_np_dtype(dtype))
        feeds[name] = np.asarray(known).astype(onnx.helper.tensor_dtype_to_np_dtype(dtype))
        g.input.append(onnx.helper.make_tensor_value_info(name, dtype, list(feeds[name].shape)))
    model = onnx.helper.make_model(g, opset_imports=list(opsets))
    got = _run(model, feeds, [o for n in body.node if n.op_type != "Constant" for o in n.output if o])
    return {} if got is None else {**{n: tuple(int(d) for d in v.shape) for n, v in feeds.items()},
                                   **{n: tuple(int(d) for d in np.shape(v)) for n, v in got if isinstance(v, np.ndarray)}}


DENORMAL_MAX_FILE = 200 << 20  # a model file larger than this is not run on the host for a trace


@dataclass(frozen=True)
class Trace:
    """One run of a model on this host, fed deploy's own inputs: every main-graph tensor's shape, and the float32
    tensors holding denormal floats (count, the largest share of one, its name; None when none does)."""

    shapes: dict[str, tuple[int, ...]]
    denormals: tuple[int, float, str] | None
    # the float32 weights (initializers and Constant values of the main graph) holding denormal floats: (count of
    # such tensors, the largest share of one, its name, the share of all float32 weight elements); None when none
    weights: tuple[int, float, str, float] | None = None
    # the main graph's one-element bool and integer tensors as this run read them (If conditions, Loop trip counts:
    # graph.kernels' `observed`)
    conditions: dict[str, Any] = field(default_factory=dict)
    # how many times each main-graph Loop's body ran in this run, by the Loop's first output (graph.kernels'
    # `iterations`): a trip count is only a bound when the loop's condition can end it earlier
    iterations: dict[str, int] = field(default_factory=dict)


def host_trace(path: str | Path, feeds: Mapping[str, Any]) -> Trace | None:
    """One run of the ONNX file on this host's onnxruntime (CPU) fed `feeds` with every main-graph tensor an
    output: its shapes (graph.kernels takes those shape inference did not reach from here, so the model runs once)
    and its denormal floats — x86 computes on denormals many times slower, and whether a layer's outputs hold them
    depends on the weights and the input values: no graph shows it. None when the file is over DENORMAL_MAX_FILE or
    the run fails."""
    import numpy as np
    import onnx

    if Path(path).stat().st_size > DENORMAL_MAX_FILE:
        return None
    m = onnx.load(str(path))
    counted = _count_iterations(m)
    got = _run(m, feeds, [o for n in m.graph.node if n.op_type != "Constant" for o in n.output if o])
    if got is None:
        return None
    ran = {loop: int(np.shape(v)[0]) for name, v in got for loop, out in counted.items()
           if name == out and isinstance(v, np.ndarray) and np.ndim(v) >= 1}
    got = [(name, v) for name, v in got if name not in counted.values()]
    found = [(_denormal_count(v) / v.size, name) for name, v in got
             if isinstance(v, np.ndarray) and v.dtype == np.float32 and v.size]
    found = [f for f in found if f[0] > 0]
    share, name = max(found) if found else (0.0, "")
    # every one-element bool or integer tensor: onnxruntime's graph may read an If's condition from another name
    # than the file's (a Cast it removed), so not only the tensors the file's If and Loop nodes read
    read = {**{k: np.asarray(v) for k, v in feeds.items()}, **{n: v for n, v in got if isinstance(v, np.ndarray)}}
    return Trace(shapes={n: tuple(int(d) for d in np.shape(v)) for n, v in got if isinstance(v, np.ndarray)},
                 denormals=(len(found), share, name) if found else None, weights=denormal_weights(m),
                 conditions={n: v for n, v in read.items() if v.size == 1 and (v.dtype == bool or
                                                                             np.issubdtype(v.dtype, np.integer))},
                 iterations=ran)


ITERATIONS_SUFFIX = "__edgeprof_iterations"


def _count_iterations(model: Any) -> dict[str, str]:
    """Give each main-graph Loop of `model` (changed in place) one more scan output, its iteration number, whose
    length after a run is the number of times the body ran; {the Loop's first output: that scan output's name}."""
    import onnx

    counted = {}
    for node in model.graph.node:
        first = next((o for o in node.output if o), None)
        if node.op_type != "Loop" or first is None:
            continue
        body = next(a.g for a in node.attribute if a.name == "body")
        if not body.input or not body.input[0].name:
            continue
        out = f"{first}{ITERATIONS_SUFFIX}"
        body.node.append(onnx.helper.make_node("Identity", [body.input[0].name], [out]))
        body.output.append(onnx.helper.make_tensor_value_info(out, onnx.TensorProto.INT64, []))
        node.output.append(out)
        counted[first] = out
    return counted


def _denormal_count(v: Any) -> int:
    import numpy as np

    return int(np.count_nonzero((np.abs(v) < np.finfo(np.float32).tiny) & (v != 0)))


def denormal_weights(model: Any) -> tuple[int, float, str, float] | None:
    """The main graph's float32 weights (initializers, Constant values) that hold denormal floats (Trace.weights).
    A network trained without flushing them keeps weights below 1.2e-38 (PaddleOCR's PP-OCRv6 small detector: 10 %
    of its weights, 63 % of one convolution's); every multiply by one takes x86's slow path, whatever the input."""
    from onnx import numpy_helper

    tensors = list(model.graph.initializer) + [a.t for n in model.graph.node if n.op_type == "Constant"
                                               for a in n.attribute if a.name == "value" and a.t.data_type == 1]
    total = bad = 0
    found = []
    for t in tensors:
        if t.data_type != 1:  # float32
            continue
        v = numpy_helper.to_array(t)
        if not v.size:
            continue
        n = _denormal_count(v)
        total += v.size
        bad += n
        if n:
            found.append((n / v.size, t.name))
    if not found:
        return None
    share, name = max(found)
    return len(found), share, name, bad / total
