"""Where a kernel's tensor shapes come from, before any run: ONNX shape inference on a model fed concrete input
shapes (`static_shapes`), every graph and subgraph's known dims and dtypes (`graphs`, `shapes_of`, `dtypes_of`), and a
standard op's own onnx shape rule applied to one node (`proxy_shapes`: a kernel after a contrib op onnx has no
schema for).
Does not own: the runs on this host that fill in what these miss (hostpass.py), the kernels (graph.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["static_shapes", "graphs", "shapes_of", "dtypes_of", "proxy_shapes"]


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


def proxy_shapes(proxy: Any, shapes: Mapping[str, tuple[int, ...]], opset: int) -> dict[str, tuple[int, ...]]:
    """The output shapes of `proxy` (a kernel written as its standard op, its data inputs only) by onnx's own shape
    rule for that op, from its inputs' known shapes (as float, or int64 for an op's index and shape inputs, whose
    values are not known here: an op whose output needs them gets nothing); {} when a shape is not fully known."""
    from onnx import TensorProto, defs, helper, shape_inference

    if not opset or any(i and i not in shapes for i in proxy.input):
        return {}
    try:
        schema = defs.get_schema(proxy.op_type, opset, "")
        types = {}
        for i, name in enumerate(proxy.input):
            if name:
                allowed = schema.inputs[min(i, len(schema.inputs) - 1)].types if schema.inputs else set()
                dtype = TensorProto.FLOAT if "tensor(float)" in allowed or not allowed else TensorProto.INT64
                types[name] = helper.make_tensor_type_proto(dtype, list(shapes[name]))
        out = shape_inference.infer_node_outputs(schema, proxy, types)
    except Exception:  # noqa: BLE001 - onnx raises its own errors for a node its rule rejects
        return {}
    got = {}
    for name, t in out.items():
        if t.HasField("tensor_type") and t.tensor_type.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else 0 for d in t.tensor_type.shape.dim]
            if dims and all(d > 0 for d in dims):
                got[name] = tuple(int(d) for d in dims)
    return got
