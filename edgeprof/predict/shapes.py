"""Where a kernel's tensor shapes come from, before any run: ONNX shape inference on a model fed concrete input
shapes (`static_shapes`), every graph and subgraph's known dims and dtypes (`graphs`, `shapes_of`, `dtypes_of`), and a
standard op's own onnx shape rule applied to one node (`proxy_shapes`: a kernel after a contrib op onnx has no
schema for), and a node's output shapes read from the node of the same name in the file onnxruntime optimised
(`named_outputs`, `renamed_shapes`).
Does not own: the runs on this host that fill in what these miss (hostpass.py), the kernels (graph.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["static_shapes", "graphs", "shapes_of", "dtypes_of", "proxy_shapes", "named_outputs", "renamed_shapes"]


def static_shapes(model: Any, input_shapes: Mapping[str, tuple[int, ...]]
                   ) -> tuple[dict[str, tuple[int, ...]], dict[str, int]]:
    """The shapes ONNX shape inference finds with the concrete inputs, and the dtypes it finds."""
    import onnx

    for inp in model.graph.input:
        if inp.name in input_shapes and inp.type.HasField("tensor_type"):
            shape = inp.type.tensor_type.shape
            shape.ClearField("dim")
            for d in input_shapes[inp.name]:
                shape.dim.add().dim_value = int(d)
    del model.graph.value_info[:]
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    except Exception:  # noqa: BLE001 - shape inference refusing a graph leaves shapes to the fallback
        inferred = model
    return shapes_of(inferred), dtypes_of(inferred)


def graphs(graph: Any) -> list[Any]:
    """`graph` and every subgraph nested in it (If branches, Loop/Scan bodies), outermost first."""
    from onnx import AttributeProto

    out = [graph]
    for node in graph.node:
        for a in node.attribute:
            if a.type == AttributeProto.GRAPH:
                out += graphs(a.g)
            elif a.type == AttributeProto.GRAPHS:
                for g in a.graphs:
                    out += graphs(g)
    return out


def shapes_of(model: Any) -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {}
    for g in graphs(model.graph):
        out.update(_graph_shapes(g, out))
    return out


def _graph_shapes(graph: Any, known: Mapping[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    out: dict[str, tuple[int, ...]] = {}
    for init in graph.initializer:
        out[init.name] = tuple(int(d) for d in init.dims)
    for vi in (*graph.input, *graph.value_info, *graph.output):
        if vi.name in out or vi.name in known or not vi.type.HasField("tensor_type"):
            continue
        tt = vi.type.tensor_type
        if not tt.HasField("shape"):
            continue
        dims = [d.dim_value for d in tt.shape.dim]
        if all(d.HasField("dim_value") and d.dim_value > 0 for d in tt.shape.dim):
            out[vi.name] = tuple(int(d) for d in dims)
    return out


def dtypes_of(model: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for g in graphs(model.graph):
        for init in g.initializer:
            out.setdefault(init.name, int(init.data_type))
        for vi in (*g.input, *g.value_info, *g.output):
            if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type:
                out.setdefault(vi.name, int(vi.type.tensor_type.elem_type))
    return out


def proxy_shapes(proxy: Any, shapes: Mapping[str, tuple[int, ...]], opset: int, nhwc: bool = False,
                 constants: Mapping[str, Any] | None = None) -> dict[str, tuple[int, ...]]:
    """The output shapes of `proxy` (a kernel written as its standard op, its data inputs only) by onnx's own shape
    rule for that op, from its inputs' known shapes (as float, or int64 for an op's index and shape inputs, whose
    values are not known here unless `constants` (name → TensorProto: the graph's initializers) holds them, as it
    does a Reshape's target shape onnxruntime wrote beside the Gemm it fused; an op whose output needs a value not
    known gets nothing); {} when a shape is not fully known. Attributes the standard op has not (a quantised pool's
    `channels_last`) are left out, as onnx's rule rejects them. A channels-last kernel (`channels_last` set, or `nhwc`: onnxruntime's NhwcMaxPool) has its data input
    and its output as (N, spatial..., C): onnx's rule is applied to them moved to (N, C, spatial...) and back."""
    from onnx import TensorProto, defs, helper, shape_inference

    if not opset or any(i and i not in shapes for i in proxy.input):
        return {}
    nhwc = nhwc or any(a.name == "channels_last" and a.i for a in proxy.attribute)
    consts = constants or {}

    def moved(dims: tuple[int, ...], to_nchw: bool) -> list[int]:  # a channels-last kernel's data dims
        if not nhwc or len(dims) < 3:
            return list(dims)
        return [dims[0], dims[-1], *dims[1:-1]] if to_nchw else [dims[0], *dims[2:], dims[1]]

    try:
        schema = defs.get_schema(proxy.op_type, opset, "")
        node = helper.make_node(proxy.op_type, list(proxy.input), list(proxy.output))
        node.attribute.extend(a for a in proxy.attribute if a.name in schema.attributes)
        types = {}
        for i, name in enumerate(node.input):
            if name:
                allowed = schema.inputs[min(i, len(schema.inputs) - 1)].types if schema.inputs else set()
                dtype = TensorProto.FLOAT if "tensor(float)" in allowed or not allowed else TensorProto.INT64
                dims = moved(shapes[name], True) if i == 0 else list(shapes[name])
                types[name] = helper.make_tensor_type_proto(dtype, dims)
        data = {n: consts[n] for n in node.input[1:] if n in consts
                and consts[n].data_type == types[n].tensor_type.elem_type}
        out = shape_inference.infer_node_outputs(schema, node, types, data)
    except Exception:  # noqa: BLE001 - onnx raises its own errors for a node its rule rejects
        return {}
    got = {}
    for name, t in out.items():
        if t.HasField("tensor_type") and t.tensor_type.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else 0 for d in t.tensor_type.shape.dim]
            if dims and all(d > 0 for d in dims):
                got[name] = tuple(moved(tuple(dims), False) if name == node.output[0] else dims)
    return got


def named_outputs(model: Any, shapes: Mapping[str, tuple[int, ...]]
                  ) -> dict[str, tuple[str, list[tuple[int, ...] | None]]]:
    """node name → (op, its outputs' shapes where known) of a model's graphs: the file as given, whose tensors a host
    run shaped (hostpass.host_trace), for the nodes onnxruntime's optimised graph keeps by name but whose outputs it
    renamed (renamed_shapes)."""
    return {n.name: (n.op_type, [shapes.get(o) for o in n.output]) for g in graphs(model.graph) for n in g.node
            if n.name}


def renamed_shapes(node: Any, standard: str, named: Mapping[str, tuple[str, list[tuple[int, ...] | None]]],
                   shapes: Mapping[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    """The shapes of `node`'s outputs not in `shapes`, read from the node of its name in the file as given when that
    node is the same op (`standard`: the float op a QLinear kernel computes) with as many outputs. onnxruntime's
    int8 rewrites (QDQ to QLinear ops, int8 activations to uint8) keep a node's name and give its outputs new ones
    ("qdq_s8_to_u8_quant_token_75"), which the host run of the QDQ file never saw: a Reshape whose target shape the
    graph computes (Shape, Gather, Concat) then had no shape and took its input's (round 23: RETSim's attention-
    times-values product [512, 512] x [512, 256] was read as 512 x 512 x 512, twice its FLOPs)."""
    op, outs = named.get(node.name, ("", []))
    if op not in (node.op_type, standard) or len(outs) != len(node.output):
        return {}
    return {o: s for o, s in zip(node.output, outs, strict=True) if o and o not in shapes and s is not None}
