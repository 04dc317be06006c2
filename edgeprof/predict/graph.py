"""An ONNX model → the kernels onnxruntime runs, with the features the cost models use.

Owns: `kernels(path, input_shapes, level)`: onnxruntime on THIS host saves its optimised graph
(SessionOptions.optimized_model_filepath, CPU provider) at the device's graph level capped at "extended" (the "all"
level adds the NCHWc layout transform, whose saved graph is specific to this host's CPU; its nodes are named "<fused
node's output>_nchwc", and a quantised model's NHWC QLinearConv "<node>_token_<n>": both are mapped back here, see
`profile_key`), and each node becomes a Kernel: op type, a cost key (op family and variant; a kernel on int8 / uint8
data, a quantised model's, says its dtype: "QLinearConv/kxk/c16@uint8"), FLOPs (export/flops.py's convention, fused
and quantised ops counted as their base op, read at their own input positions), bytes moved (inputs, weights and
outputs), dtype and element counts. Shapes come from ONNX shape inference on the original model with concrete inputs
(names survive onnxruntime's fusions) and then on the optimised graph; where inference leaves tensors of the main
graph unknown (shapes computed from data: an STFT's padding, a Slice's computed ends), the original model is run ONCE
on this host's onnxruntime (CPU) with those tensors as outputs, fed the values known and seeded uniform [0, 1) floats
(zeros for integers) elsewhere, and their shapes are read from the run (`hostpass.run_shapes`; never on a device; a
run that fails leaves them unknown); a tensor still unknown (after a contrib op onnx has no schema for, in a graph
onnxruntime renamed) takes its standard op's own onnx shape rule (`shapes.proxy_shapes`), else its node's first
input's shape, and the kernel says so; a node onnxruntime kept by name but whose outputs it renamed (its int8
rewrites) takes the shapes its name's node had in the file as given (`shapes.renamed_shapes`). Control flow: the
kernels inside If/Loop/Scan bodies are read too (onnxruntime saves its optimised subgraphs). An If whose condition is
known here (constants, the shapes fed, the input values fed with --input-value) keeps the branch taken; otherwise both
branches' kernels are kept, each marked with `branch` (the If and its side) so that fit.py costs both and says which
it assumed. A Loop with a known trip count and a Scan repeat their body's kernels that many times; a Loop whose trip
count is not known counts its body once and says so (`note`). A Loop body's shapes that inference does not reach come
from one run of the body alone on this host (`hostpass.body_shapes`).
Does not own: a kernel's variant (variants.py), measuring (the agent), fitting (fit.py). The host's onnxruntime
version is recorded by the caller (table.py) because fusions change between versions.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..errors import ModelError
from .hostpass import HOST_LEVELS, body_shapes, optimised_model, run_shapes
from .images import image_calls
from .shapes import dtypes_of, graphs, named_outputs, proxy_shapes, renamed_shapes, shapes_of, static_shapes
from .taps import conv_taps
from .trees import ML_FAMILY, ml_work
from .variants import group_calls, loop_invariant, row_spans, variant, variant_family

__all__ = ["Kernel", "kernels", "host_ort_version", "profile_key", "stands_for", "HOST_LEVELS", "CONTROL_OPS",
           "MAX_KERNELS", "DTYPE_BYTES"]

CONTROL_OPS = frozenset({"If", "Loop", "Scan", "WHILE"})  # WHILE: a .tflite loop (tflite_loops.py)
MAX_KERNELS = 1_000_000  # a Loop/Scan body repeated past this many kernels is counted up to it, and says so (round 18)
# a Loop trip count at least this is an exporter's "no bound" (tf2onnx's while loops: INT64_MAX or INT32_MAX, ended by
# the condition), not a number of iterations
_WHILE_BOUND = 2**31 - 1
_EVAL_MAX_ELEMS = 1 << 16  # a condition is evaluated here only from small tensors (shapes, scalars)

DTYPE_BYTES = {1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 16: 2}
_DTYPE_NAMES = {1: "float32", 2: "uint8", 3: "int8", 6: "int32", 7: "int64", 9: "bool", 10: "float16", 11: "float64",
                16: "bfloat16"}
_FLOAT_MATMULS = frozenset({"MatMul", "Gemm", "FusedMatMul", "FusedGemm"})  # keyed /w on a loop-invariant input
# fused / contrib ops counted as the standard op they compute (FLOPs convention of export/flops.py)
_AS_STANDARD = {"FusedConv": "Conv", "FusedMatMul": "MatMul", "FusedGemm": "Gemm", "QLinearConv": "Conv",
                "ConvInteger": "Conv", "QLinearMatMul": "MatMul", "MatMulInteger": "MatMul",
                "MatMulIntegerToFloat": "MatMul", "DynamicQuantizeMatMul": "MatMul", "BiasGelu": "Gelu",
                "FastGelu": "Gelu", "QuickGelu": "Gelu", "SkipLayerNormalization": "LayerNormalization",
                "SimplifiedLayerNormalization": "LayerNormalization", "BiasSoftmax": "Softmax",
                "NhwcMaxPool": "MaxPool", "QLinearAdd": "Add", "QLinearMul": "Mul", "QGemm": "Gemm",
                "QLinearGlobalAveragePool": "GlobalAveragePool", "QLinearAveragePool": "AveragePool",
                "QLinearSoftmax": "Softmax", "QLinearSigmoid": "Sigmoid", "QLinearLeakyRelu": "LeakyRelu",
                "QLinearConcat": "Concat", "QLinearReduceMean": "ReduceMean", "DynamicQuantizeLSTM": "LSTM"}
# quantised ops (onnxruntime's own and its contrib ops, the input lists of onnxruntime's
# docs/ContribOperators.md): the positions of their float op's inputs (data, weight, bias)
_QLINEAR_INPUTS = {"QLinearConv": (0, 3, 8), "QLinearMatMul": (0, 3), "ConvInteger": (0, 1),
                   "MatMulInteger": (0, 1), "MatMulIntegerToFloat": (0, 1), "QGemm": (0, 3, 6),
                   "QLinearAdd": (0, 3), "QLinearMul": (0, 3), "QLinearGlobalAveragePool": (0,),
                   "QLinearAveragePool": (0,), "QLinearSoftmax": (0,), "QLinearSigmoid": (0,),
                   "QLinearLeakyRelu": (0,), "QLinearReduceMean": (0,)}
# the input whose dtype a kernel is read at, where it is not the first (QLinearConcat: Y_scale, Y_zero_point, then
# (X, scale, zero point) per input)
_DATA_INPUT = {"QLinearConcat": 2}
# kernels on 8-bit integer tensors (a quantised model's) carry their dtype in their key and family
# ("QLinearConv/kxk/c16@uint8", "conv/kxk@uint8"), so that no cost model mixes them with float kernels of the same op;
# a Cast from an 8-bit input (an fp32 model's uint8 image input) converts as in any float graph and keeps its key
_QUANTISED_DTYPES = frozenset({"int8", "uint8"})
_UNSUFFIXED = frozenset({"Cast"})
_GATHERS = frozenset({"Gather", "GatherElements", "GatherND", "Slice"})  # Slice too: reads what it copies (round 15)
# cost families: ops whose kernels cost alike share one model when their own has too few samples
_FAMILY = {
    "Add": "binary", "Sub": "binary", "Mul": "binary", "Div": "binary", "Pow": "binary", "Max": "binary",
    "Min": "binary", "Where": "binary", "Equal": "binary", "Less": "binary", "Greater": "binary",
    "Relu": "unary", "LeakyRelu": "unary", "Clip": "unary", "Sigmoid": "unary", "HardSigmoid": "unary",
    "HardSwish": "unary", "Tanh": "unary", "Erf": "unary", "Gelu": "unary", "Exp": "unary", "Sqrt": "unary",
    "Neg": "unary", "Abs": "unary", "Reciprocal": "unary", "Log": "unary", "Softplus": "unary", "Elu": "unary",
    "PRelu": "unary", "Cast": "unary", "Identity": "unary",
    # a Resize of its own family (round 12): a cubic one costs ~40× a copy's price per byte, and in the copies'
    # family it priced a Pad the table had too few samples of at 6× its time (wakeHuBERT's ten Pads)
    "Resize": "resize", "Upsample": "resize",
    "Transpose": "copy", "Concat": "copy", "Slice": "copy", "Split": "copy", "Pad": "copy",
    "Gather": "copy", "Expand": "copy", "Tile": "copy", "DepthToSpace": "copy", "SpaceToDepth": "copy",
    "OneHot": "copy", "ScatterElements": "scatter", "ScatterND": "scatter",
    "Reshape": "view", "Squeeze": "view", "Unsqueeze": "view", "Flatten": "view", "Shape": "view",
    "ReduceMean": "reduce", "ReduceSum": "reduce", "ReduceMax": "reduce", "GlobalAveragePool": "reduce",
    "GlobalMaxPool": "reduce", "ArgMax": "reduce", "ReduceL2": "reduce", "ReduceSumSquare": "reduce",
    "ReduceMin": "reduce", "ReduceProd": "reduce", "ReduceL1": "reduce", "ReduceLogSumExp": "reduce",  # round 27
    "MaxPool": "pool", "AveragePool": "pool",
    "LayerNormalization": "norm", "SkipLayerNormalization": "norm", "SimplifiedLayerNormalization": "norm",
    "InstanceNormalization": "norm", "BatchNormalization": "norm", "GroupNormalization": "norm",
    "Softmax": "norm", "LogSoftmax": "norm",
    "MatMul": "matmul", "FusedMatMul": "matmul", "Gemm": "matmul", "FusedGemm": "matmul",
    # activations quantised at run time (round 22: pnm's ran at a third of the QGemms of the family they had shared)
    "MatMulInteger": "matmulinteger", "MatMulIntegerToFloat": "matmulinteger", "DynamicQuantizeMatMul": "matmulinteger",
    "Conv": "conv", "FusedConv": "conv", "ConvTranspose": "conv", "ConvInteger": "convinteger",  # ≈ 4× QLinearConv's
    "LSTM": "rnn", "GRU": "rnn", "RNN": "rnn",
    "Einsum": "einsum",  # its own: a fixed cost per call that neither a MatMul's FLOPs nor a copy's bytes show
    "STFT": "fft", "DFT": "fft",  # one algorithm (onnxruntime's signal/dft.cc): a DFT takes the STFT's samples
    **ML_FAMILY,  # ai.onnx.ml's tree ensembles and Scaler (trees.py)
}


@dataclass(frozen=True)
class Kernel:
    """One node of the graph onnxruntime runs. `key` names its cost model (op and variant, e.g. "Conv/dw");
    `family` the coarser model used when the key's own has too few samples."""

    name: str
    op: str
    key: str
    family: str
    dtype: str
    flops: float
    bytes: float
    out_elems: float
    shapes_guessed: bool = False
    flops_known: bool = True
    outputs: tuple[str, ...] = ()
    # inside an If whose condition is not known here: the path of (If node name, "then"/"else") it lies under
    branch: tuple[tuple[str, str], ...] = ()
    note: str = ""  # a control-flow node: what was counted for its subgraphs and what was assumed
    # False: the node has no name in the graph (a function onnxruntime inlines: HardSwish → HardSigmoid, Mul);
    # `name` is then its first output's, and a profile names it "<op type>_<node index>" (calibrate.py pairs them)
    named: bool = True
    # layout.py: "kept" / "fused" by this host's "all" level ("" not read: no NCHWc here, or a control-flow body),
    # and the bytes its reorders move at this kernel
    layout: str = ""
    reorder_bytes: float = 0.0
    # variants.row_spans: rows a row-by-row binary op or a narrow-row Softmax walks ("/rows" keys fit them); else 0
    spans: float = 0.0
    # images.py: the images × groups MLAS runs a Conv's GEMM for one after another, and one call's bytes; else 0
    images: float = 0.0
    image_bytes: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["branch"] = [list(b) for b in self.branch]
        for f, default in (("named", True), ("layout", ""), ("reorder_bytes", 0.0), ("spans", 0.0), ("images", 0.0),
                           ("image_bytes", 0.0)):
            if d[f] == default:  # written only when set: such a kernel's dict is as tables before the field
                del d[f]
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Kernel:
        data = {k: d[k] for k in cls.__dataclass_fields__ if k in d}
        data["outputs"] = tuple(data.get("outputs") or ())
        data["branch"] = tuple((str(b[0]), str(b[1])) for b in data.get("branch") or ())
        return cls(**data)


def host_ort_version() -> str:
    import onnxruntime as ort

    return str(ort.__version__)


_TOKEN = re.compile(r"_token_\d+$")


def profile_key(name: str) -> str:
    """A node name in the device's onnxruntime profile → the name of the node or output tensor it stands for in
    this module's graph: "<tensor>_nchwc" (the "all" level's NCHWc node named after the fused node's output)
    → "<tensor>"; "<node>_token_<n>" (the "all" level's NHWC transformer: a quantised model's QLinearConv,
    QLinearAveragePool ... remade channels-last as com.microsoft ops, named after the node they replace)
    → "<node>"; any other name is the node's own. The caller tries the name as it is first (onnxruntime's lower
    levels also name nodes "..._token_<n>")."""
    if name.endswith("_nchwc"):
        return name[: -len("_nchwc")]
    return _TOKEN.sub("", name)


def stands_for(name: str, by_name: Mapping[str, Kernel], by_output: Mapping[str, Kernel]) -> Kernel | None:
    """The kernel a node of the device's "all" graph (a profile's node, or this host's own "all" graph: layout.py)
    stands for: by its name as it is, else by profile_key's name as a node's, else as an output tensor's."""
    key = profile_key(name)
    return by_name.get(name) or by_name.get(key) or by_output.get(key)


def _variant(op: str, node: Any, shape: dict[str, tuple[int, ...]], inits: frozenset[str],
             consts: Mapping[str, Any] | None = None, opset: int = 0) -> str:
    """variants.variant for a node of op `op` (a quantised or fused op read as its standard op, its weight where
    the quantised op keeps it) in a graph of default-domain `opset`."""
    return variant(_AS_STANDARD.get(op, op), _weight_input(op), node, shape, inits, consts, opset)


def _weight_input(op: str) -> int:
    """The input position of op `op`'s weight (a quantised op's where it keeps it); -1: a one-input quantised op."""
    return (*_QLINEAR_INPUTS.get(op, (0, 1)), -1)[1]


def kernels(path: str | Path, input_shapes: Mapping[str, tuple[int, ...]], level: str = "all",
            values: Mapping[str, Any] | None = None,
            traced: Mapping[str, tuple[int, ...]] | None = None,
            observed: Mapping[str, Any] | None = None,
            iterations: Mapping[str, int] | None = None) -> list[Kernel]:
    """The kernels onnxruntime runs for the ONNX file at `path` with concrete `input_shapes` (name → shape; a
    graph input not named keeps its declared dims, which must then be fixed), control-flow bodies included.
    `values`: input name → the array fed, where it is known (deploy's --input-value and --input-data), so that
    an If on it keeps only the branch taken. `traced`: the shapes of a host run already made (hostpass.Trace), so
    that the model is not run again for the shapes inference does not reach; `observed`: the conditions of its Ifs
    and the trip counts of its Loops as that run read them (hostpass.Trace.conditions), so that an If on data
    keeps the branch deploy's inputs take (and says so); `iterations`: how many times each Loop's body ran in
    that run, by the Loop's first output (hostpass.Trace.iterations), which a trip count only bounds."""
    import onnx

    try:
        original = onnx.load(str(path))
    except Exception as e:  # noqa: BLE001 - onnx raises DecodeError, OSError...
        raise ModelError(f"{path} is not a readable ONNX model: {(str(e).splitlines() or [''])[0][:200]}",
                         hint="check the path") from None
    shapes, inferred = static_shapes(original, input_shapes)
    missing = [o for n in original.graph.node if n.op_type != "Constant" for o in n.output if o and o not in shapes]
    if missing:  # from the caller's trace of the model (hostpass.host_trace) when it made one, else one run here
        got = traced if traced is not None else run_shapes(original, input_shapes, values or {}, missing)
        shapes.update({n: got[n] for n in missing if n in got})
    dtypes = dtypes_of(original)
    # a quantised model's int8 / uint8 activations are typed only by inference (QuantizeLinear's zero point): they are
    # taken from it; other inferred dtypes are not, so a float graph's kernels read as they always have
    dtypes.update({k: v for k, v in inferred.items() if k not in dtypes and _DTYPE_NAMES.get(v) in _QUANTISED_DTYPES})
    opt = optimised_model(path, level)
    for inp in opt.graph.input:  # the optimised graph keeps the declared (maybe symbolic) input dims
        if inp.name in input_shapes and inp.type.HasField("tensor_type"):
            s = inp.type.tensor_type.shape
            s.ClearField("dim")
            for d in input_shapes[inp.name]:
                s.dim.add().dim_value = int(d)
    for g in graphs(opt.graph):  # what the original graph knew, so inference crosses contrib ops (subgraphs too)
        used = {t for n in g.node for t in n.output} - {i.name for i in g.initializer} \
            - {v.name for v in g.value_info} - {o.name for o in g.output}
        for name in sorted(used & shapes.keys()):
            g.value_info.append(onnx.helper.make_tensor_value_info(name, dtypes.get(name, 1), list(shapes[name])))
    try:
        opt = onnx.shape_inference.infer_shapes(opt, strict_mode=False, data_prop=True)
    except Exception:  # noqa: BLE001 - as above
        pass
    shapes.update({k: v for k, v in shapes_of(opt).items() if k not in shapes})
    dtypes.update({k: v for k, v in dtypes_of(opt).items() if k not in dtypes})
    _quantised_dtypes(opt, dtypes)
    walker = _Walker(opt, shapes, dtypes, dict(values or {}), observed, iterations, named_outputs(original, shapes))
    ks = walker.graph(opt.graph, (), 1)
    if level != "all":
        return ks
    from .layout import mark

    return mark(path, ks, shapes, dtypes, {n.output[0]: tuple(n.input) for n in opt.graph.node if n.output})


# ops whose output dtype is not their data input's (a quantised value in, a float or an index out)
_RETYPES = frozenset({"DequantizeLinear", "MatMulIntegerToFloat", "DynamicQuantizeMatMul", "ConvInteger",
                      "MatMulInteger", "Cast", "CastLike", "Shape", "Size", "ArgMax", "ArgMin", "NonZero", "TopK",
                      "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or", "IsNaN",
                      "IsInf"})


def _quantised_dtypes(model: Any, dtypes: dict[str, int]) -> None:
    """The 8-bit dtype of tensors onnxruntime created in the optimised graph (a QGemm's output, the Reshape it
    added after it) that no inference types, in graph (topological) order: a QuantizeLinear gives its zero point's
    dtype (uint8 without one), a QGemm with an output scale and the other QLinear ops their data input's, as do the
    ops that move int8 data as it is (Reshape, Transpose, MaxPool, ...). Only int8 / uint8 are filled in."""
    for g in graphs(model.graph):
        for node in g.node:
            op = node.op_type
            if op in _RETYPES or (op == "QGemm" and len(node.input) < 8):
                continue
            if op == "QuantizeLinear":
                dt = dtypes.get(node.input[2], 0) if len(node.input) > 2 and node.input[2] else 2
            else:
                data = [t for t in node.input[_DATA_INPUT.get(op, 0):] if t]
                dt = dtypes.get(data[0], 0) if data else 0
            if _DTYPE_NAMES.get(dt) not in _QUANTISED_DTYPES:
                continue
            for o in node.output:
                if o and o not in dtypes:
                    dtypes[o] = dt


class _Walker:
    """The kernels of a graph and of its subgraphs (see the module docstring for control flow)."""

    def __init__(self, model: Any, shapes: dict[str, tuple[int, ...]], dtypes: dict[str, int],
                 values: Mapping[str, Any], observed: Mapping[str, Any] | None = None,
                 iterations: Mapping[str, int] | None = None,
                 named: Mapping[str, tuple[str, list[tuple[int, ...] | None]]] | None = None) -> None:
        import onnx

        self.shapes, self.dtypes = shapes, dtypes
        every = graphs(model.graph)
        self.init_protos = {i.name: i for g in every for i in g.initializer}
        self.inits = frozenset(self.init_protos)
        # initializers that are also graph inputs (old exporters' keep_initializers_as_inputs): onnxruntime may not
        # treat them as constants — no folding, no pre-packing, no NCHWc blocking (CenterFace's convolutions ran at
        # 10 GFLOP/s, an eighth of the keyed price, round 8)
        self.overridable = frozenset(i.name for i in model.graph.input) & self.inits
        self.producer = {o: n for g in every for n in g.node for o in n.output if o}
        # values read from one host run fed deploy's inputs (hostpass.host_trace): an If or a Loop decided by them
        # says so, since another input may decide it otherwise
        self.observed = {k: v for k, v in (observed or {}).items() if k not in values}
        self.values = {**self.observed, **values}
        self.iterations = dict(iterations or {})
        self.opsets = {o.domain or "": o.version for o in model.opset_import}
        self.opset_import = list(model.opset_import)
        self.onnx = onnx
        self.named = dict(named or {})  # the file as given: node name → (op, output shapes), shapes.named_outputs
        self.count = 0
        self.capped = False
        self.warm: frozenset[str] = frozenset()  # the loop-invariant values of the Loop body being walked
        self.loops: dict[int, frozenset[str]] = {}

    def graph(self, graph: Any, branch: tuple[tuple[str, str], ...], repeat: int) -> list[Kernel]:
        out: list[Kernel] = []
        outer, self.warm = self.warm, self.loops.get(id(graph), self.warm)  # an If branch keeps its body's
        for node in graph.node:
            if node.op_type == "Constant":  # onnxruntime holds it as an initializer; it runs no kernel
                continue
            if self.count >= MAX_KERNELS:
                self.capped = True
                break
            k = self.kernel(node, branch)
            times = min(repeat, MAX_KERNELS - self.count)  # a body repeated past MAX_KERNELS stops there
            self.capped = self.capped or times < repeat
            if node.op_type in CONTROL_OPS and node.domain in ("", "ai.onnx"):
                body, note = self.control(node, branch, repeat)
                k = dataclasses.replace(k, flops=0.0, flops_known=True, note=note)
                out += [k] * times
                out += body
            else:
                out += [k] * times
            self.count += times
        self.warm = outer
        return out

    def _whole(self, body: Any, repeat: int, n: int) -> int:
        """The repeats of a body run `n` times inside `repeat` repeats, cut to whole runs of it that fit under
        MAX_KERNELS (not its first nodes `n` times and its later ones never)."""
        want = repeat * max(n, 0)
        nodes = sum(1 for node in body.node if node.op_type != "Constant") or 1
        fit = max((MAX_KERNELS - self.count) // nodes, 1)
        if fit < want:
            self.capped = True
        return min(want, fit)

    def _cut(self) -> str:
        """What a Loop's or Scan's note adds when its repeats were cut at MAX_KERNELS."""
        return (f"; counted up to {MAX_KERNELS} kernels in all, the rest left out: a lower bound" if self.capped
                else "")

    def control(self, node: Any, branch: tuple[tuple[str, str], ...], repeat: int) -> tuple[list[Kernel], str]:
        """The kernels of a control-flow node's subgraphs, `repeat` times, and a note of what was counted."""
        from onnx import helper

        name = node.name or (node.output[0] if node.output else node.op_type)
        sub = {a.name: a.g for a in node.attribute if a.type == self.onnx.AttributeProto.GRAPH}
        if node.op_type == "If":
            cond = self.value(node.input[0]) if node.input else None
            if cond is not None and cond.size == 1:
                side = "then" if bool(cond.reshape(-1)[0]) else "else"
                body = self.graph(sub[f"{side}_branch"], branch, repeat)
                said = str(bool(cond.reshape(-1)[0])).lower()
                if node.input[0] in self.observed:
                    return body, (f"If {name!r}: decided by one run on this host fed deploy's inputs ({said}): the "
                                  f"{side} branch's {len(body)} kernel(s) are counted; other inputs may take the other")
                return body, (f"If {name!r}: its condition is known here ({said}): "
                              f"the {side} branch's {len(body)} kernel(s) are counted")
            then = self.graph(sub["then_branch"], (*branch, (name, "then")), repeat)
            other = self.graph(sub["else_branch"], (*branch, (name, "else")), repeat)
            return then + other, (f"If {name!r}: its condition depends on values not known here (give them with "
                                  f"--input-value): both branches were costed")
        if node.op_type == "Loop":
            self.loops[id(sub["body"])] = self.warm | loop_invariant(sub["body"])  # a matmul against one: warm
            if any(o and o not in self.shapes for n in sub["body"].node for o in n.output):  # one run of the body
                got = body_shapes(sub["body"], self.opset_import, list(node.input), self.shapes, self.dtypes, self.value)
                self.shapes.update({k: v for k, v in got.items() if k not in self.shapes})
            trips = self.value(node.input[0]) if node.input and node.input[0] else None
            n = int(trips.reshape(-1)[0]) if trips is not None and trips.size == 1 else None
            ran = self.iterations.get(next((o for o in node.output if o), ""))
            if ran is not None and ran < _WHILE_BOUND:
                body = self.graph(sub["body"], branch, self._whole(sub["body"], repeat, ran))
                bound = f" of a trip count of {n}" if n is not None and n != ran else ""
                return body, (f"Loop {name!r}: its body counted {ran} time(s){bound}, as one run on this host fed "
                              f"deploy's inputs ran it (other inputs may run it more or fewer times){self._cut()}")
            if n is not None and n < _WHILE_BOUND:
                body = self.graph(sub["body"], branch, self._whole(sub["body"], repeat, n))
                seen = " as one run on this host fed deploy's inputs read it" if node.input[0] in self.observed else ""
                return body, (f"Loop {name!r}: its body counted {n} time(s) (the trip count{seen}; a condition may "
                              f"end it earlier){self._cut()}")
            # a while loop (tf2onnx writes INT64_MAX as the trip count and ends it by its condition) or no count: a
            # scan output, whose first dim is the number of iterations run, says how many there were
            scans = [o for o in node.output[max(len(node.input) - 2, 0):] if o and self.shapes.get(o)]
            if scans:
                ran = int(self.shapes[scans[0]][0])
                body = self.graph(sub["body"], branch, self._whole(sub["body"], repeat, ran))
                return body, (f"Loop {name!r}: its body counted {ran} time(s) (the length of its scan output "
                              f"{scans[0]!r}: the iterations run){self._cut()}")
            body = self.graph(sub["body"], branch, repeat)
            bound = f" ({n} is a bound, not a count: a condition ends it)" if n is not None else ""
            return body, (f"Loop {name!r}: the trip count is not known here{bound}: its body is counted once (a lower "
                          f"bound)")
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        n_scan = int(attrs.get("num_scan_inputs", 1))
        axes = list(attrs.get("scan_input_axes") or [0] * n_scan)
        first = node.input[len(node.input) - n_scan] if n_scan and len(node.input) >= n_scan else ""
        shape = self.shapes.get(first)
        if shape is not None and axes and len(shape) > int(axes[0]) % max(len(shape), 1):
            n = int(shape[int(axes[0]) % len(shape)])
            body = self.graph(sub["body"], branch, self._whole(sub["body"], repeat, n))
            return body, f"Scan {name!r}: its body counted {n} time(s) (the scanned axis){self._cut()}"
        body = self.graph(sub["body"], branch, repeat)
        return body, f"Scan {name!r}: the scanned length is not known here: its body is counted once (a lower bound)"

    def value(self, name: str, depth: int = 0) -> Any:
        """The value of a tensor when it is known here (a numpy array), else None: initializers, Constant
        nodes, the input values fed, a Shape of a tensor whose shape is known, and small ops over those
        (onnx.reference evaluates them)."""
        import numpy as np
        from onnx import numpy_helper

        if name in self.values:
            return np.asarray(self.values[name])
        if name in self.init_protos:
            init = self.init_protos[name]
            return numpy_helper.to_array(init) if math.prod(init.dims) <= _EVAL_MAX_ELEMS else None
        node = self.producer.get(name)
        if node is None or depth > 32:
            return None
        if node.op_type == "Shape" and node.input and node.input[0] in self.shapes:
            from onnx import helper

            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            full = self.shapes[node.input[0]]
            start, end = attrs.get("start", 0), attrs.get("end", len(full))
            out = np.array(full[start:end], dtype=np.int64)
        elif any(a.type in (self.onnx.AttributeProto.GRAPH, self.onnx.AttributeProto.GRAPHS)
                 for a in node.attribute) or node.domain not in ("", "ai.onnx"):
            return None
        else:
            feeds = {}
            for i in node.input:
                if not i:
                    continue
                v = self.value(i, depth + 1)
                if v is None or v.size > _EVAL_MAX_ELEMS:
                    return None
                feeds[i] = v
            try:
                from onnx.reference import ReferenceEvaluator

                results = ReferenceEvaluator(node, opsets={"": self.opsets.get("", 17)}).run(None, feeds)
            except Exception:  # noqa: BLE001 - an op the reference cannot evaluate leaves the value unknown
                return None
            for o, r in zip(node.output, results, strict=False):
                if o:
                    self.values[o] = np.asarray(r)
            return self.values.get(name)
        self.values[name] = out
        return out

    def kernel(self, node: Any, branch: tuple[tuple[str, str], ...]) -> Kernel:
        from ..export.flops import _node_flops

        onnx, shapes, dtypes = self.onnx, self.shapes, self.dtypes
        op = node.op_type
        base = _AS_STANDARD.get(op, op)
        proxy = onnx.NodeProto()
        proxy.CopyFrom(node)
        proxy.op_type = base
        if op in _QLINEAR_INPUTS or op == "QLinearConcat":  # the quantised op's data inputs where its float op has them
            del proxy.input[:]
            proxy.input.extend(node.input[2::3] if op == "QLinearConcat" else
                               (node.input[i] if i < len(node.input) else "" for i in _QLINEAR_INPUTS[op]))
        guessed = False
        if any(o and o not in shapes for o in node.output):  # as its name's node in the file as given ran
            shapes.update(renamed_shapes(node, base, self.named, shapes))
        if any(o and o not in shapes for o in node.output):
            # no inference reached it (it follows a contrib op onnx has no schema for, in a graph onnxruntime
            # renamed): its standard op's own shape rule, as onnx states it (a channels-last kernel's on NHWC dims);
            # else its first input's shape (a guess). A contrib op's own rule is not onnx's
            if node.domain in ("", "ai.onnx") or base != op:
                shapes.update(proxy_shapes(proxy, shapes, self.opsets.get("", 0), op == "NhwcMaxPool", self.init_protos))
        for o in node.output:
            if o and o not in shapes:
                first = next((shapes[i] for i in node.input if i in shapes), None)
                if first is not None:
                    shapes[o] = first
                    guessed = True

        def shape(name: str) -> tuple[int, ...]:
            if name not in shapes:
                raise KeyError(name)
            return shapes[name]

        try:
            f = None if op in CONTROL_OPS else _node_flops(proxy, shape)
        except (KeyError, IndexError, ValueError, TypeError):
            f = None
        if f is None and base in ("LSTM", "GRU", "RNN"):
            f = _rnn_flops(node, shapes, op != base)
        ml = ml_work(node, shapes) if node.domain == "ai.onnx.ml" else None  # (FLOPs, bytes held in attributes)
        f, stored = ml if ml is not None else (f, 0.0)
        flops_known = f is not None
        tensors = [t for t in (*node.input, *node.output) if t]
        if base in _GATHERS and node.input:  # reads the rows it gathers, not its whole table
            tensors = [t for t in tensors if t != node.input[0]] + [o for o in node.output if o]
        nbytes = float(sum(math.prod(shapes[t]) * DTYPE_BYTES.get(dtypes.get(t, 1), 4) for t in tensors if t in shapes))
        work = float(f or 0)
        mlas: tuple[Any, Any, Any, float] | None = None  # a float Conv's input, weight and output shapes, weight bytes
        if base == "Conv" and f and len(proxy.input) > 1 and all(t in shapes for t in (proxy.input[0], proxy.input[1])) \
                and node.output[0] in shapes and not any(a.name == "channels_last" and a.i for a in node.attribute):
            # only the taps inside the input run (taps.py): a 3×3 convolution on a 1×1 map is its centre tap
            wt = proxy.input[1]
            pairs, reached = conv_taps(proxy, shapes[proxy.input[0]], shapes[wt], shapes[node.output[0]])
            bias = math.prod(shapes[node.output[0]]) if len(proxy.input) > 2 and proxy.input[2] else 0
            work = (work - bias) * pairs + bias
            nbytes -= (1.0 - reached) * math.prod(shapes[wt]) * DTYPE_BYTES.get(dtypes.get(wt, 1), 4)
            if op in ("Conv", "FusedConv") and dtypes.get(proxy.input[0], 1) == 1 and wt not in self.overridable:
                wb = reached * math.prod(shapes[wt]) * DTYPE_BYTES.get(dtypes.get(wt, 1), 4)
                mlas = (shapes[proxy.input[0]], shapes[wt], shapes[node.output[0]], wb)
        out_elems = sum(math.prod(shapes[t]) for t in node.output if t in shapes)
        at = _DATA_INPUT.get(op, 0)
        first_in = next((t for t in node.input[at:] if t), "")
        warm = self.warm if op in _FLOAT_MATMULS else frozenset()  # an int8 one not looked at: keyed as before
        variant = _variant(op, node, shapes, self.inits | warm, self.init_protos, self.opsets.get("", 0))
        images = image_calls(node, *mlas[:3], variant) if mlas else 0.0  # MLAS runs it image by image (images.py)
        image_bytes = (nbytes - mlas[3]) / images + mlas[3] if mlas and images else 0.0
        base_key = op if node.domain in ("", "ai.onnx", "com.microsoft") else f"{node.domain}.{op}"
        key = f"{base_key}/{variant}" if variant else base_key
        family = variant_family(_FAMILY.get(op, _FAMILY.get(base, base_key)), variant)
        wi = _weight_input(op)
        spans = row_spans(base, node, shapes, self.opsets.get("", 0)) if variant in ("rows", "inner") else \
            group_calls(node, shapes, variant, True)
        if family.startswith(("conv", "matmul")) and 0 <= wi < len(node.input) and node.input[wi] in self.overridable:
            key, family = _winput_key(base_key, variant, key), f"{family}/winput"
            spans = group_calls(node, shapes, variant)
        dtype = _DTYPE_NAMES.get(dtypes.get(first_in, 1), "other")
        if dtype in _QUANTISED_DTYPES and base_key not in _UNSUFFIXED:
            key = f"{key}@{dtype}"
            if family != "view":  # views cost nothing at any dtype (fit.py counts them apart by this name)
                family = f"{family}@{dtype}"
        return Kernel(name=node.name or (node.output[0] if node.output else op), op=base_key, key=key,
                      family=family, dtype=dtype,
                      flops=work, bytes=nbytes + stored, out_elems=float(out_elems),
                      shapes_guessed=guessed, flops_known=flops_known,
                      outputs=tuple(o for o in node.output if o), branch=branch, named=bool(node.name),
                      spans=spans, images=images, image_bytes=image_bytes)


def _winput_key(base_key: str, variant: str, key: str) -> str:
    """The key of a convolution or matmul whose weight is a graph input too (an older exporter's
    keep_initializers_as_inputs): onnxruntime then blocks, prepacks and fuses none of it, so the channel alignment
    and a fused activation no longer tell kernels apart, and one key per shape ("Conv/dw/winput") holds all the
    table's few samples of them (round 9: keys per alignment and fusion held one to eleven samples each, and
    CenterFace's convolutions took their families' price, a fifth of what they ran)."""
    if base_key in ("Conv", "FusedConv") and variant:
        return f"Conv/{variant.split('/')[0]}/winput"
    return f"{key}/winput"


def _rnn_flops(node: Any, shapes: Mapping[str, tuple[int, ...]], transposed: bool = False) -> int | None:
    """LSTM / GRU / RNN: 2 · seq · batch · gates · hidden · (input + hidden) per direction. `transposed`: the weights
    are [directions, input, gates · hidden] and [directions, hidden, gates · hidden] (onnxruntime's
    DynamicQuantizeLSTM, docs/ContribOperators.md), not ONNX's [directions, gates · hidden, input]."""
    try:
        x, w = shapes[node.input[0]], shapes[node.input[1]]
        r = shapes[node.input[2]]
    except (KeyError, IndexError):
        return None
    if len(x) != 3 or len(w) != 3 or len(r) != 3:
        return None
    seq, batch = x[0], x[1]
    directions, gh, inp = (w[0], w[2], w[1]) if transposed else w
    hidden = r[1] if transposed else r[2]
    return int(2 * seq * batch * directions * gh * (inp + hidden))
