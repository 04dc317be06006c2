"""The "rnn" kind of generated calibration model (kernels.py): recurrent networks as speech and text models ship them.

Owns `recurrent(g, max_flops)`, which writes one such network into kernels.py's graph under construction `g`. Two
shapes, each a model of its own:
- streaming (40 %): one step (a sequence of 1) through one or two stacked LSTMs or GRUs whose states are graph inputs
  and outputs, between a feature projection or none and a sigmoid mask (DTLN's two stages, a seq2seq decoder's
  step): a run of tens of µs whose weights stay in the cache from one run to the next, as in a real stream. The misc
  models' RNNs, each on its own input among a dozen other ops, never showed that: DTLN's 128-unit LSTM steps were
  priced 3.4× what they ran (round 9);
- sequence (60 %): 16 to 1000 steps of one to three stacked layers (bidirectional a third of the time) of 32 to 512
  units, a batch of 1 to 8, written as torch exports them (Squeeze between layers; Transpose and Reshape after a
  bidirectional one; batch-first input transposed), a projection in and a mask or a classifier out. The misc models'
  RNNs stop at 64 steps of 256 units, whose recurrent weights stay in the L2 cache: NSNet2's two 400-unit GRUs over 100
  frames ran at a quarter of the price those gave (round 9).
FLOPs are bounded by `max_flops` (the sequence is shortened to fit).
Does not own: the graph under construction (kernels._G), measuring (calibrate.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["recurrent"]


def _layer_flops(op: str, seq: int, batch: int, dirs: int, inp: int, hid: int) -> float:
    gates = 4 if op == "LSTM" else 3
    return 2.0 * seq * batch * dirs * gates * hid * (inp + hid)  # graph._rnn_flops's count


def recurrent(g: Any, max_flops: float) -> None:
    """One recurrent network into `g` (kernels._G): see the module docstring."""
    from onnx import helper

    rng: np.random.Generator = g.rng
    op = str(rng.choice(["LSTM", "GRU"]))
    gates = 4 if op == "LSTM" else 3
    stream = bool(rng.random() < 0.4)
    batch = 1 if stream or rng.random() < 0.7 else int(rng.choice([2, 4, 8]))
    feat = int(rng.choice([16, 28, 40, 64, 80, 128, 161, 257, 512]))
    hid = int(rng.choice([32, 64, 128, 200, 256, 400, 512]))
    layers = int(rng.choice([1, 2])) if stream else int(rng.choice([1, 2, 2, 3]))
    dirs = 1 if stream else int(rng.choice([1, 1, 2]))
    seq = 1 if stream else int(rng.choice([16, 32, 50, 100, 200, 500, 1000]))
    project = bool(rng.random() < 0.5)
    first = hid if project else feat

    def total(seq: int) -> float:
        f = 2.0 * seq * batch * feat * hid if project else 0.0
        f += 2.0 * seq * batch * dirs * hid * feat  # the head back to the features
        for i in range(layers):
            f += _layer_flops(op, seq, batch, dirs, first if i == 0 else dirs * hid, hid)
        return f

    while seq > 16 and total(seq) > max_flops:
        seq //= 2
    while layers > 1 and total(seq) > max_flops:
        layers -= 1
    if rng.random() < 0.3 and not stream:  # batch-first, as torch's batch_first=True exports it
        t = g.node("Transpose", [g.input([batch, seq, feat])], perm=[1, 0, 2])
    else:
        t = g.input([seq, batch, feat])
    if project:
        g.flops += 2.0 * seq * batch * feat * hid
        t = g.node("Relu", [g.node("Add", [g.node("MatMul", [t, g.const([feat, hid])]), g.const([hid])])])
    inp = first
    states = stream or rng.random() < 0.3
    axes1 = ""
    for _ in range(layers):
        ins = [t, g.const([dirs, gates * hid, inp]), g.const([dirs, gates * hid, hid]),
               g.const([dirs, 2 * gates * hid])]
        if states:
            ins += ["", g.input([dirs, batch, hid])] + ([g.input([dirs, batch, hid])] if op == "LSTM" else [])
        outs = [g.name("t") for _ in range(3 if op == "LSTM" else 2)]  # Y, Y_h (and Y_c)
        y = outs[0]
        attrs: dict[str, Any] = {"hidden_size": hid, "direction": "bidirectional" if dirs == 2 else "forward"}
        if op == "GRU":
            attrs["linear_before_reset"] = int(rng.random() < 0.7)  # torch's and Keras's reset_after GRUs: 1
        g.nodes.append(helper.make_node(op, ins, outs, name=g.name(op.lower() + "_"), **attrs))
        g.flops += _layer_flops(op, seq, batch, dirs, inp, hid)
        if states:  # the step's new states leave the graph, for the next call
            for s in outs[1:]:
                g.output(s, [dirs, batch, hid])
        if dirs == 1:
            axes1 = axes1 or g.const([1], np.int64, [1])
            t = g.node("Squeeze", [y, axes1])
        else:
            t = g.node("Reshape", [g.node("Transpose", [y], perm=[0, 2, 1, 3]),
                                   g.const([3], np.int64, [seq, batch, 2 * hid])])
        inp = dirs * hid
    mask = g.node("Sigmoid", [g.node("MatMul", [t, g.const([inp, feat])])])
    g.flops += 2.0 * seq * batch * inp * feat
    g.output(mask, [seq, batch, feat])
