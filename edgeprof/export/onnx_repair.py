"""ONNX graph repairs around the fp16 and int8 conversions: what the converters need done to a file they did not
write, each change named so the artifact's provenance can say what was done.

Owns:
- fp16 (onnxconverter-common): Casts the converter leaves producing float32 retargeted to float16
  (`retarget_float_casts`), nodes that read a kept-io-types output Cast rewired to its float16 input
  (`rewire_output_consumers`).
- int8 (onnxruntime.quantization 1.32, static QDQ per-channel), before `quantize_static`:
  - `dedupe_opset_imports`: an opset import listed more than once (onnx.compose.merge_models writes the default
    domain once per merged model: fastgrahsp's emulator imports "" 10 three times) is kept once. onnxruntime loads
    such a file, but quant_utils.py `get_opset_version` wants exactly one default-domain import ("Failed to find
    proper ai.onnx domain"); two versions of one domain are left as they are (no single version to keep). Done
    before an upgrade too (`upgrade_opset`: the version converter raises only the first import's version);
  - an opset below 13 upgraded with onnx's version converter (`upgrade_opset`), or refused in one line;
  - `unshare_biases`: a bias initializer shared by several Conv/ConvTranspose/Gemm nodes gets one copy per node,
    named so no tensor has the name. onnxruntime's own copy (qdq_quantizer.py `QDQQuantizer.quantize_bias_tensor`
    → `_dup_initializer`) is named `<bias><n>` with n from onnx_model.py
    `ONNXModel.get_largest_initializer_name_suffix`, which looks at initializer names only: when an activation
    already has that name (tf2onnx names a Conv's output `<bias name>2`, basic-pitch's nmp.onnx), the quantizer
    rewires that activation's readers to the bias's DequantizeLinear and the file does not load ("Invalid attribute
    perm {0, 2, 3, 1}, input shape = {36}"). The graph computes the same; only names differ.
  - `flatten_gemm_biases`: a Gemm bias C of shape [1, N] (or one value) becomes [N] (the same broadcast).
    qdq_quantizer.py `QDQQuantizer._adjust_weight_scale_for_int32_bias` indexes a per-channel bias by channel,
    `bias_float_data[i]`, which for a [1, N] bias is a row, and its comparison raises "The truth value of an array
    with more than one element is ambiguous" (magika's v3_3 model, a jax2tf Gemm).
  - `uncalibrated_softmax`: Softmax nodes whose output is not float32/float16 (float64, or a type inference
    cannot tell) are left out of quantisation (`nodes_to_exclude`). calibrate.py
    `CalibraterBase.select_tensors_to_calibrate` calibrates float32/float16 tensors only, and base_quantizer.py
    `BaseQuantizer.adjust_tensor_ranges` then sets a Softmax output's range without checking that it was
    calibrated (it checks for Clip/Relu): "Only an existing tensor can be modified" (calibrate.py
    `TensorsData.__setitem__`; swift-f0's float64 Softmax). Such a node is not quantised either way: onnxruntime
    quantises float32/float16 tensors only.
  - `nonfinite_constant_readers`: nodes of a quantised op type that read a constant holding inf or NaN (a -inf
    fill before an ArgMax, swift-f0's Pad and Where) are left out too: operators/pad.py `QDQPad.quantize`
    quantises the fill constant, quant_utils.py `compute_scale_zp` gives it an infinite scale and the int8
    model outputs NaN.
  - `float16_readers`: in a mixed-precision file, the nodes that read or write a float16 tensor are left out too
    (calibrate.py calibrates float16 tensors, and a QuantizeLinear on one does not load below opset 19).
  - `grouped_conv_transpose_biases`: a ConvTranspose of group > 1 with a bias is left out too: quantised per
    channel along its weight's axis 1 it has C_out / group weight scales, and base_quantizer.py
    `quantize_bias_static_impl` multiplies the C_out biases by them ("operands could not be broadcast together
    with shapes (48,) (12,)": a grouped up-sampling layer; 8 of 13 misc calibration models, round 22).
- after quantisation: the opset imports of domains no node uses dropped (`drop_unused_opset_imports`).
Does not own: running the converters, calibration or the cache (quantize.py), the load check (hostrun/loadcheck.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ModelError

__all__ = ["QDQ_MIN_OPSET", "all_nodes", "retarget_float_casts", "rewire_output_consumers", "drop_unused_opset_imports",
           "dedupe_opset_imports",
           "default_opset", "upgrade_opset", "unshare_biases", "flatten_gemm_biases", "uncalibrated_softmax",
           "nonfinite_constant_readers", "float16_readers"]

QDQ_MIN_OPSET = 13  # per-channel QuantizeLinear/DequantizeLinear (axis) need opset 13
BIAS_OPS = ("Conv", "ConvTranspose", "Gemm")  # the ops whose input 2 onnxruntime quantises as an int32 bias


def all_nodes(graph: Any) -> Iterator[Any]:
    """Every node of a graph and of its subgraphs (If/Loop/Scan bodies)."""
    for node in graph.node:
        yield node
        for attr in node.attribute:
            if attr.HasField("g"):
                yield from all_nodes(attr.g)
            for g in attr.graphs:
                yield from all_nodes(g)


def retarget_float_casts(model: Any) -> list[str]:
    """Casts to float32 whose output the converter typed float16 (it retypes every float tensor, but leaves the
    `to` of a Cast from a non-float input, e.g. bert_tiny's int64 attention mask): make them cast to float16, as
    the tensor's consumers now expect. Returns the node names changed. Without this onnxruntime refuses the file
    ("Type (tensor(float16)) of output arg ... does not match expected type (tensor(float))")."""
    from onnx import TensorProto

    typed = {v.name: v.type.tensor_type.elem_type for v in list(model.graph.value_info) + list(model.graph.output)}
    changed = []
    for node in all_nodes(model.graph):
        if node.op_type != "Cast" or typed.get(node.output[0]) != TensorProto.FLOAT16:
            continue
        for attr in node.attribute:
            if attr.name == "to" and attr.i == TensorProto.FLOAT:
                attr.i = TensorProto.FLOAT16
                changed.append(node.name or node.output[0])
    return changed


def rewire_output_consumers(model: Any) -> list[str]:
    """keep_io_types ends each float output with a Cast to float32; a node that ALSO consumes that output (a
    pooled output gathered from the last hidden state) was converted to float16 but still reads the float32
    tensor. Point it at the Cast's float16 input instead. Returns the names of the nodes rewired."""
    from onnx import TensorProto

    outputs = {o.name for o in model.graph.output}
    typed = {v.name: v.type.tensor_type.elem_type for v in model.graph.value_info}
    fp16_of = {}
    for node in model.graph.node:
        to = next((a.i for a in node.attribute if a.name == "to"), None)
        if node.op_type == "Cast" and to == TensorProto.FLOAT and node.output[0] in outputs:
            fp16_of[node.output[0]] = node.input[0]
    changed = []
    for node in model.graph.node:
        if node.op_type == "Cast" or not any(typed.get(o) == TensorProto.FLOAT16 for o in node.output):
            continue
        for i, name in enumerate(node.input):
            if name in fp16_of:
                node.input[i] = fp16_of[name]
                changed.append(node.name or node.output[0])
    return changed


def _used_domains(graph: Any, into: set[str]) -> None:
    from onnx import AttributeProto

    for node in graph.node:
        into.add(node.domain or "")
        for a in node.attribute:
            if a.type == AttributeProto.GRAPH:
                _used_domains(a.g, into)
            elif a.type == AttributeProto.GRAPHS:
                for g in a.graphs:
                    _used_domains(g, into)


def drop_unused_opset_imports(path: Path) -> list[str]:
    """Remove the opset imports of domains no node uses; the "domain:version" entries removed.

    quant_pre_process saves through onnxruntime's optimizer, which stamps an import of every domain it knows
    (`ai.onnx.ml` 5, `com.microsoft` 1, `ai.onnx.training` 1, ...) on a graph that uses none of them, and an older
    onnxruntime refuses a file importing a domain opset newer than it knows (1.10 loads `ai.onnx.ml` up to 2,
    1.16 up to 3: "Opset 5 is under development"). The default domain is always kept."""
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    used: set[str] = set()
    _used_domains(model.graph, used)
    for f in model.functions:
        used.add(f.domain or "")
        for node in f.node:
            used.add(node.domain or "")
    keep = [o for o in model.opset_import if o.domain in ("", "ai.onnx") or o.domain in used]
    dropped = [f"{o.domain}:{o.version}" for o in model.opset_import if o not in keep]
    if dropped:
        del model.opset_import[:]
        model.opset_import.extend(keep)
        onnx.save(model, str(path))
    return dropped


def dedupe_opset_imports(model: Any) -> list[str]:
    """Keep each (domain, version) opset import once, in place (the default domain's "" and "ai.onnx" are one);
    the "domain:version" entries removed. A domain imported at two versions is left as it is."""
    from onnx import helper

    def domain(o: Any) -> str:
        return "" if o.domain == "ai.onnx" else o.domain

    versions: dict[str, set[int]] = {}
    for o in model.opset_import:
        versions.setdefault(domain(o), set()).add(int(o.version))
    keep: list[tuple[str, int]] = []
    removed: list[str] = []
    seen: set[tuple[str, int]] = set()
    for o in model.opset_import:
        key = (domain(o), int(o.version))
        if key in seen and len(versions[key[0]]) == 1:
            removed.append(f"{o.domain}:{o.version}")
        else:
            seen.add(key)
            keep.append((o.domain, int(o.version)))
    if removed:
        del model.opset_import[:]
        model.opset_import.extend(helper.make_opsetid(d, v) for d, v in keep)
    return removed


def default_opset(model: Any) -> int | None:
    """The model's opset of the default ONNX domain (None when it imports none)."""
    return next((int(o.version) for o in model.opset_import if o.domain in ("", "ai.onnx")), None)


def upgrade_opset(src: Path, out: Path, deduped: list[str] | None = None) -> str | None:
    """Per-channel QDQ needs opset QDQ_MIN_OPSET: an older file is upgraded with onnx's version converter into
    `out` (inside the caller's temp dir), its imports listed twice kept once first (`dedupe_opset_imports`, the
    entries removed appended to `deduped`). Returns "11 → 13" when it upgraded, None when no upgrade was needed;
    a file the converter cannot upgrade is refused in one line."""
    import onnx
    from onnx import version_converter

    model = onnx.load(str(src))
    opset = default_opset(model)
    if opset is None or opset >= QDQ_MIN_OPSET:
        return None
    removed = dedupe_opset_imports(model)
    if deduped is not None:
        deduped.extend(removed)
    try:
        upgraded = version_converter.convert_version(model, QDQ_MIN_OPSET)
        onnx.checker.check_model(upgraded)
    except Exception as e:  # the converter raises RuntimeError/ValidationError with long texts
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        raise ModelError(f"int8 needs ONNX opset {QDQ_MIN_OPSET} or newer; {src.name} is opset {opset} and onnx's "
                         f"version converter cannot upgrade it: {first}",
                         hint=f"export it again at opset {QDQ_MIN_OPSET}+, or run it with --precision fp32 or "
                              "fp16") from None
    onnx.save(upgraded, str(out))
    return f"{opset} → {QDQ_MIN_OPSET}"




# ------------------------------------------------------------------------------- int8: before quantize_static


def _tensor_names(graph: Any) -> set[str]:
    """Every tensor name of a graph and of its subgraphs: a new name must differ from all of them."""
    names = {i.name for i in graph.initializer} | {v.name for v in graph.input} | {v.name for v in graph.output}
    names |= {v.name for v in graph.value_info}
    for node in all_nodes(graph):
        names.update(node.input)
        names.update(node.output)
    return names


def _fresh(base: str, taken: set[str], tag: str) -> str:
    k = 1
    while f"{base}_{tag}{k}" in taken:
        k += 1
    name = f"{base}_{tag}{k}"
    taken.add(name)
    return name


def _float_initializers(graph: Any) -> dict[str, Any]:
    from onnx import TensorProto

    return {i.name: i for i in graph.initializer if i.data_type in (TensorProto.FLOAT, TensorProto.FLOAT16)}


def unshare_biases(model: Any) -> list[str]:
    """Give every Conv/ConvTranspose/Gemm after the first that reads a shared float bias initializer its own copy,
    named apart from every tensor (see the module docstring: onnxruntime's own copy can take an activation's name).
    Returns the names of the nodes given a copy. The graph computes the same."""
    graph = model.graph
    inits = _float_initializers(graph)
    claimed: set[str] = set()
    taken: set[str] | None = None
    changed: list[str] = []
    for node in graph.node:
        if node.op_type not in BIAS_OPS or len(node.input) < 3 or node.input[2] not in inits:
            continue
        bias = node.input[2]
        if bias not in claimed:
            claimed.add(bias)
            continue
        taken = taken if taken is not None else _tensor_names(graph)
        copy = graph.initializer.add()
        copy.CopyFrom(inits[bias])
        copy.name = _fresh(bias, taken, "bias")
        node.input[2] = copy.name
        changed.append(node.name or node.output[0])
    return changed


def flatten_gemm_biases(model: Any) -> list[str]:
    """A Gemm whose bias C is a float initializer of shape [1, N] or of one value, with a weight B initializer of
    N output columns, gets C as [N] (a copy when C is read by another node too): Gemm broadcasts both the same way
    over its [M, N] output. Returns the Gemm nodes changed. See the module docstring for why."""
    import numpy as np
    from onnx import numpy_helper

    graph = model.graph
    inits = _float_initializers(graph)
    weights = {i.name: i for i in graph.initializer}
    readers: dict[str, int] = {}
    for node in all_nodes(graph):
        for name in node.input:
            readers[name] = readers.get(name, 0) + 1
    taken: set[str] | None = None
    changed: list[str] = []
    for node in graph.node:
        if node.op_type != "Gemm" or len(node.input) < 3 or node.input[2] not in inits or node.input[1] not in weights:
            continue
        if inits[node.input[2]].data_location == inits[node.input[2]].EXTERNAL:
            continue  # its values beside a model past 2 GiB: not read here
        dims = list(inits[node.input[2]].dims)
        w = list(weights[node.input[1]].dims)
        trans_b = next((a.i for a in node.attribute if a.name == "transB"), 0)
        if len(w) != 2:
            continue
        n = w[0] if trans_b else w[1]
        size = int(np.prod(dims)) if dims else 1
        if dims == [n] or any(d != 1 for d in dims[:-1]) or size not in (1, n):
            continue  # [N] already; [M, N] with M > 1 is a bias per row and column: left as it is
        c = numpy_helper.to_array(inits[node.input[2]])
        flat = numpy_helper.from_array(np.broadcast_to(c.reshape(-1), (n,)).copy(), node.input[2])
        if readers.get(node.input[2], 0) > 1:
            taken = taken if taken is not None else _tensor_names(graph)
            flat.name = _fresh(node.input[2], taken, "bias")
            graph.initializer.append(flat)
            readers[node.input[2]] -= 1
            node.input[2] = flat.name
        else:
            inits[node.input[2]].CopyFrom(flat)
        changed.append(node.name or node.output[0])
    return changed


def _elem_types(model: Any) -> dict[str, int]:
    """The main graph's tensor element types after onnx shape inference, as the quantizer's own load infers them
    (the types the file carries where inference fails: past 2 GiB, or a graph onnx cannot infer)."""
    import onnx

    try:
        typed_model = onnx.shape_inference.infer_shapes(model)
    except Exception:  # noqa: BLE001 - onnx raises several types
        typed_model = model
    g = typed_model.graph
    types = {v.name: v.type.tensor_type.elem_type for v in [*g.value_info, *g.output, *g.input]
             if v.type.HasField("tensor_type")}
    types.update({i.name: i.data_type for i in g.initializer})
    return types


def uncalibrated_softmax(model: Any) -> dict[str, str]:
    """The Softmax nodes of the main graph whose output onnxruntime's calibrator does not calibrate (its type, after
    onnx shape inference as the quantizer's own load does, is not float32/float16 or is unknown): {node name:
    why}. An unnamed one is named here (nodes_to_exclude matches names). See the module docstring for why."""
    from onnx import TensorProto

    types = _elem_types(model)
    taken: set[str] | None = None
    out: dict[str, str] = {}
    for node in model.graph.node:
        if node.op_type != "Softmax":
            continue
        elem = types.get(node.output[0], TensorProto.UNDEFINED)
        if elem in (TensorProto.FLOAT, TensorProto.FLOAT16):
            continue
        if not node.name:
            taken = taken if taken is not None else {n.name for n in all_nodes(model.graph)}
            node.name = _fresh("Softmax", taken, "node")
        what = f"is {TensorProto.DataType.Name(elem).lower()}" if elem != TensorProto.UNDEFINED else "has no known type"
        out[node.name] = f"Softmax whose output {what} (onnxruntime.quantization calibrates float32/float16 only)"
    return out


def nonfinite_constant_readers(model: Any) -> dict[str, str]:
    """The nodes of the main graph of an op onnxruntime.quantization quantises (registry.py: QDQRegistry,
    QLinearOpsRegistry) that read a float initializer holding inf or NaN (swift-f0's -inf fill of a Pad and a
    Where before an ArgMax): {node name: why}, for `nodes_to_exclude`. operators/pad.py `QDQPad.quantize`
    quantises every input of a Pad, its fill constant too, and quant_utils.py `compute_scale_zp` takes that
    constant's range as it is: the scale is inf and its DequantizeLinear gives NaN (a Where reading the same
    constant is then quantised with it). An unnamed node is named here."""
    import numpy as np
    from onnx import numpy_helper
    from onnxruntime.quantization.registry import QDQRegistry, QLinearOpsRegistry

    quantised_ops = set(QDQRegistry) | set(QLinearOpsRegistry)

    graph = model.graph
    bad: dict[str, str] = {}
    for name, init in _float_initializers(graph).items():
        if init.data_location == init.EXTERNAL:
            continue  # past 2 GiB: weights, not fill constants
        values = numpy_helper.to_array(init)
        if values.size and not np.isfinite(values).all():
            kinds = sorted({"NaN" if np.isnan(v) else ("inf" if v > 0 else "-inf") for v in
                            values[~np.isfinite(values)].ravel()[:64].tolist()})
            bad[name] = "/".join(kinds)
    taken: set[str] | None = None
    out: dict[str, str] = {}
    for node in graph.node:
        hit = [bad[i] for i in node.input if i in bad]
        if not hit or node.op_type not in quantised_ops:
            continue
        if not node.name:
            taken = taken if taken is not None else {n.name for n in all_nodes(graph)}
            node.name = _fresh(node.op_type, taken, "node")
        out[node.name] = (f"it reads a constant of {hit[0]}, which int8 cannot hold (onnxruntime.quantization "
                          "would give it an infinite scale: NaN)")
    return out


def float16_readers(model: Any) -> dict[str, str]:
    """The nodes of the main graph that read or write a float16 tensor (a mixed-precision file: float16 layers
    between Casts, mk8dx-table-reader's CRNN): {node name: why}, for `nodes_to_exclude`. calibrate.py
    `CalibraterBase.select_tensors_to_calibrate` calibrates float16 tensors as well as float32 ones, and the QDQ
    quantizer then puts a QuantizeLinear on them, which below opset 19 takes float32 and int32 only: onnxruntime
    refuses the file ("Type 'tensor(float16)' of input parameter ... of operator (QuantizeLinear) ... is
    invalid"). The float16 part stays as the file has it; the float32 part is quantised. An unnamed node is named
    here."""
    from onnx import TensorProto

    types = _elem_types(model)
    taken: set[str] | None = None
    out: dict[str, str] = {}
    for node in model.graph.node:
        if node.op_type == "Cast" or not any(types.get(t) == TensorProto.FLOAT16
                                             for t in (*node.input, *node.output) if t):
            continue
        if not node.name:
            taken = taken if taken is not None else {n.name for n in all_nodes(model.graph)}
            node.name = _fresh(node.op_type, taken, "node")
        out[node.name] = "it computes in float16 as the file has it (a QuantizeLinear on a float16 tensor needs opset 19)"
    return out


def grouped_conv_transpose_biases(model: Any) -> dict[str, str]:
    """The ConvTranspose nodes of the main graph of group > 1 that have a bias: {node name: why}, for
    `nodes_to_exclude` (the module docstring says which bug). Such a node stays float32; a grouped one without a
    bias, and every other ConvTranspose, is quantised. An unnamed node is named here."""
    from onnx import helper

    taken: set[str] | None = None
    out: dict[str, str] = {}
    for node in model.graph.node:
        group = next((helper.get_attribute_value(a) for a in node.attribute if a.name == "group"), 1)
        if node.op_type != "ConvTranspose" or group <= 1 or len(node.input) < 3 or not node.input[2]:
            continue
        if not node.name:
            taken = taken if taken is not None else {n.name for n in all_nodes(model.graph)}
            node.name = _fresh(node.op_type, taken, "node")
        out[node.name] = (f"a ConvTranspose of group {group} with a bias (onnxruntime.quantization scales its bias "
                          "per channel by the C_out / group weight scales and fails)")
    return out
