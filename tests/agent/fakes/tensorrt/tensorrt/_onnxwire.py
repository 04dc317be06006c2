"""The few facts the TensorRT doubles need from an ONNX file, read from its protobuf wire format with the standard
library only (the JetPack 4.6 stand-in venv has no `onnx`): inputs (name, element type, dims; -1 = dynamic) that
are not initializers, outputs, and nodes (name, op type). Field numbers from onnx/onnx.proto (ModelProto.graph = 7;
GraphProto node = 1, initializer = 5, input = 11, output = 12; NodeProto name = 3, op_type = 4; TensorProto
name = 8; ValueInfoProto name = 1, type = 2; TypeProto.tensor_type = 1 → elem_type = 1, shape = 2 → dim = 1 →
dim_value = 1 / dim_param = 2). Raises ValueError on bytes that are not a protobuf message.
"""

# ruff: noqa: UP031, B905 - runs under Python 3.6 too (the JetPack 4.6 stack): %-format, zip without strict


def _varint(buf, i):
    shift = result = 0
    while True:
        if i >= len(buf):
            raise ValueError("truncated varint")
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def fields(buf):
    """[(field number, wire type, value)]: value is an int (varint/fixed) or bytes (length-delimited)."""
    out = []
    i = 0
    buf = bytes(buf)
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wt = key >> 3, key & 7
        if num == 0:
            raise ValueError("field number 0")
        if wt == 0:
            val, i = _varint(buf, i)
        elif wt == 1:
            val, i = int.from_bytes(buf[i:i + 8], "little"), i + 8
        elif wt == 2:
            n, i = _varint(buf, i)
            if i + n > len(buf):
                raise ValueError("truncated field %d" % num)
            val, i = buf[i:i + n], i + n
        elif wt == 5:
            val, i = int.from_bytes(buf[i:i + 4], "little"), i + 4
        else:
            raise ValueError("wire type %d" % wt)
        out.append((num, wt, val))
    return out


def _get(msg, num):
    return [v for n, _w, v in fields(msg) if n == num]


def _text(msg, num, default=""):
    vals = _get(msg, num)
    return vals[0].decode("utf-8") if vals else default


def _value_info(vi):
    name = _text(vi, 1)
    elem, dims = 1, []
    for tp in _get(vi, 2):
        for tt in _get(tp, 1):
            elem = (_get(tt, 1) or [1])[0]
            for shape in _get(tt, 2):
                for dim in _get(shape, 1):
                    values = _get(dim, 1)
                    dims.append(int(values[0]) if values else -1)
    return {"name": name, "elem_type": int(elem), "dims": dims}


def read_model(data):
    """{"inputs": [...], "outputs": [...], "nodes": [(name, op_type)], "casts": {node: to}, "opset": int or None}."""
    graphs = _get(data, 7)
    if not graphs:
        raise ValueError("no graph in the model")
    g = graphs[0]
    init = set(_text(t, 8) for t in _get(g, 5))
    inputs = [_value_info(vi) for vi in _get(g, 11)]
    nodes = []
    casts = {}  # node name -> the `to` of a Cast (AttributeProto name = 1, i = 3)
    for i, n in enumerate(_get(g, 1)):
        op = _text(n, 4)
        name = _text(n, 3) or "%s_%d" % (op, i)
        nodes.append((name, op))
        if op == "Cast":
            for a in _get(n, 5):
                if _text(a, 1) == "to" and _get(a, 3):
                    casts[name] = int(_get(a, 3)[0])
    opsets = [_get(o, 2) for o in _get(data, 8) if _text(o, 1) in ("", "ai.onnx")]  # the default domain's version
    return {"inputs": [x for x in inputs if x["name"] not in init],
            "outputs": [_value_info(vi) for vi in _get(g, 12)], "nodes": nodes, "casts": casts,
            "opset": int(opsets[0][0]) if opsets and opsets[0] else None}
