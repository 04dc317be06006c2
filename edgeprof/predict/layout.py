"""What onnxruntime's "all" level does to a graph beyond "extended", read from THIS host's onnxruntime.

Owns: `mark(path, ks, shapes, dtypes, inputs)`. graph.py reads the graph at "extended" (the level whose saved graph
any CPU can read); the device runs "all", which on x86 (AVX2, AVX-512) adds the NCHWc layout transform:
convolutions in onnxruntime's blocked layout, a following Add (a residual sum) or activation fused into them where
the convolution's output has no other reader, ReorderInput / ReorderOutput nodes around them (a quantised model's
NHWC nodes, "<node>_token_<n>", are read by the same names, where the graph holds NCHWc nodes too). This host's
onnxruntime saves its own "all" graph once more, and each kernel of the "extended" graph gets:
- `layout` "kept" when a node of the "all" graph stands for it — by the names a device's profile carries
  (graph.stands_for, as calibrate.py matches a profile), or for a node without a name by its op and what it
  reads, a blocked tensor traced back to the one it holds —, else
  "fused": its work went into another node. fit.py learns, per cost key, how often a kernel of each mark runs
  on the board (a table's kernels carry the marks of the host that calibrated it), instead of one rate per key
  that took a written-out HardSwish's Mul for a fused one;
- `reorder_bytes`: the bytes the "all" level's reorders at its output or input move (read and write of the
  tensor), which fit.py's model level costs.
A host whose "all" graph holds no node of the NCHWc domain marks nothing (layout ""), and fit.py keeps one rate
per key, as before. Apart from the marks, an 8-bit MaxPool the "all" graph runs channels-last (NhwcMaxPool) is keyed
"MaxPool/nhwc" (`_channels_last_pools`, round 22). The marks are this host's: a board whose NCHWc block differs
(AVX2's 8 channels, AVX-512's 16) fuses around a few other convolutions; an ARM board fuses none of them, which its
table's rates say.
Does not own: the "extended" graph and the kernels (graph.py), the rates (fit.py).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .graph import DTYPE_BYTES, Kernel, optimised_model, stands_for

__all__ = ["mark", "NCHWC_DOMAIN", "REORDERS"]

NCHWC_DOMAIN = "com.microsoft.nchwc"
REORDERS = frozenset({"ReorderInput", "ReorderOutput"})


def mark(path: str | Path, ks: Sequence[Kernel], shapes: Mapping[str, tuple[int, ...]],
         dtypes: Mapping[str, int], inputs: Mapping[str, Sequence[str]]) -> list[Kernel]:
    """`ks` (the main graph's kernels at "extended"; a kernel inside a control-flow body is left unmarked) with
    `layout` and `reorder_bytes` from this host's "all" graph; `ks` as they are when that graph has no NCHWc node
    or cannot be read. `inputs`: the "extended" graph's nodes' inputs by their first output (an unnamed node of the
    "all" graph is found by its op and its inputs, traced back through the blocked tensors)."""
    try:
        full = optimised_model(path, "host-all")
    except Exception:  # noqa: BLE001 - the graph was read at "extended" already: the marks are an addition
        return list(ks)
    nodes = list(full.graph.node)
    main = [k for k in ks if not k.branch]
    by_name = {k.name: k for k in main if k.named}
    by_output = {o: k for k in main for o in k.outputs}
    ks = _channels_last_pools(ks, nodes, by_name, by_output)  # names and outputs as they were: the maps still hold
    if not any(n.domain == NCHWC_DOMAIN for n in nodes):
        return list(ks)
    unnamed: dict[tuple[str, tuple[str, ...]], list[Kernel]] = {}
    for u in main:
        if not u.named and u.outputs:
            unnamed.setdefault((u.op, tuple(inputs.get(u.outputs[0], ()))), []).append(u)
    kept: set[str] = set()
    reorder: dict[str, float] = {}
    was: dict[str, str] = {}  # a tensor of the "all" graph → the tensor of the "extended" graph it holds
    first = main[0].name if main else ""
    for n in nodes:  # in graph (topological) order
        if n.op_type in REORDERS and n.domain == NCHWC_DOMAIN:
            tensor = n.output[0] if n.op_type == "ReorderOutput" else n.input[0]
            was[n.input[0] if n.op_type == "ReorderOutput" else n.output[0]] = tensor
            at = by_output.get(tensor)
            size = math.prod(shapes[tensor]) * DTYPE_BYTES.get(dtypes.get(tensor, 1), 4) if tensor in shapes else 0
            name = at.name if at is not None else first
            reorder[name] = reorder.get(name, 0.0) + 2.0 * size
            continue
        k = stands_for(n.name, by_name, by_output)
        if k is None and not n.name:  # by its op and what it reads (a blocked tensor stands for the one it holds)
            left = unnamed.get((n.op_type, tuple(was.get(t, t) for t in n.input)), [])
            k = left.pop(0) if left else None
        if k is not None:
            kept.add(k.name)
            was.update({o: orig for o, orig in zip(n.output, k.outputs, strict=False) if o and o != orig})
    return [dataclasses.replace(k, layout="kept" if k.name in kept else "fused",
                                reorder_bytes=reorder.get(k.name, 0.0)) if not k.branch else k for k in ks]


def _channels_last_pools(ks: Sequence[Kernel], nodes: Sequence[Any], by_name: Mapping[str, Kernel],
                         by_output: Mapping[str, Kernel]) -> Sequence[Kernel]:
    """`ks` with each 8-bit MaxPool that the "all" graph runs channels-last (the NHWC transformer's NhwcMaxPool,
    after a QLinearConv it made channels-last) keyed "MaxPool/nhwc" (family "pool/nhwc"): onnxruntime's uint8
    MaxPool in NCHW (one after a QuantizeLinear, which the transformer leaves as it is) ran 3.5–6 ns a byte here, the
    channels-last one about 0.1 (round 22: meter-digits-recognizer's three 2×2 pools, 36 µs, priced 546 by the
    generated CNNs' NCHW ones). Other kernels as they are."""
    nhwc = {k.name for n in nodes if n.op_type == "NhwcMaxPool"
            for k in [stands_for(n.name, by_name, by_output)] if k is not None and k.op == "MaxPool"}
    if not nhwc:
        return ks
    out = []
    for k in ks:
        if k.name in nhwc and not k.branch and "@" in k.key:
            base, dtype = k.key.split("@", 1)  # a 1-D pool's family too: the channels-last kernel is one
            k = dataclasses.replace(k, key=f"{base}/nhwc@{dtype}", family=f"pool/nhwc@{dtype}")
        out.append(k)
    return out
