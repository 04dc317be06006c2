"""What the board's "all" level does beyond the graph predict reads (edgeprof/predict/layout.py), profile nodes
without a name (calibrate.pair_unnamed), and the fit's run rate per layout mark (fit.py, FitOptions.layout) —
on real onnxruntime graphs and real onnxruntime profiles."""

import dataclasses

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from edgeprof.predict.calibrate import pair_unnamed
from edgeprof.predict.fit import FitOptions, fit
from edgeprof.predict.graph import Kernel, kernels, optimised_model, stands_for
from edgeprof.predict.layout import NCHWC_DOMAIN
from edgeprof.predict.table import CalibrationModel, CalibrationTable, MeasuredKernel, TableKey
from edgeprof_agent.opprof import profile_onnxruntime


def _conv(name, x, cin, cout, rng, out=None):
    w = numpy_helper.from_array(rng.standard_normal((cout, cin, 3, 3)).astype(np.float32) * 0.1, f"{name}_w")
    return helper.make_node("Conv", [x, w.name], [out or f"{name}_y"], name=name, pads=[1, 1, 1, 1]), w


def _model(tmp_path):
    """x (16 ch) → conv a (32 ch) → HardSwish → conv b (32) → Add(residual: HardSwish's output) → conv c (5 ch,
    not a multiple of the NCHWc block) → HardSwish → y. HardSwish at opset 14: onnxruntime inlines it as an
    unnamed HardSigmoid and Mul."""
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    for args in (("a", "x", 16, 32), ("b", "h1", 32, 32), ("c", "s", 32, 5)):
        n, w = _conv(*args, rng)
        nodes.append(n)
        inits.append(w)
    nodes[1:1] = [helper.make_node("HardSwish", ["a_y"], ["h1"], name="hs1")]
    nodes.insert(3, helper.make_node("Add", ["b_y", "h1"], ["s"], name="residual"))
    nodes.append(helper.make_node("HardSwish", ["c_y"], ["y"], name="hs2"))
    g = helper.make_graph(nodes, "layout", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 20, 20])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5, 20, 20])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    p = tmp_path / "layout.onnx"
    onnx.save(m, str(p))
    return p


def _host_has_nchwc(path):
    return any(n.domain == NCHWC_DOMAIN for n in optimised_model(path, "host-all").graph.node)


def test_an_inlined_hardswish_reads_as_unnamed_kernels_and_each_is_marked_by_what_the_hosts_all_level_fused(
        tmp_path):
    p = _model(tmp_path)
    ks = kernels(p, {"x": (1, 16, 20, 20)})
    unnamed = [k for k in ks if not k.named]
    assert sorted(k.op for k in unnamed) == ["HardSigmoid", "HardSigmoid", "Mul", "Mul"]
    assert all(k.name in k.outputs for k in unnamed)  # named after their output
    by = {k.name: k for k in ks}
    if not _host_has_nchwc(p):  # an ARM or pre-AVX2 host: no mark, and the fit keeps one rate per key
        assert all(k.layout == "" and k.reorder_bytes == 0.0 for k in ks)
        return
    # conv a (32 channels) takes its HardSwish; the residual Add goes into conv b; conv c (5 channels) is not
    # blocked, so its HardSwish runs as two kernels of their own
    at_b = [k.name for k in ks].index("b")
    hs1 = [k for k in ks[:at_b] if not k.named]  # the graph's order: hs1's two kernels come before conv b
    hs2 = [k for k in ks[at_b:] if not k.named]
    assert {k.layout for k in hs1} == {"fused"} and {k.layout for k in hs2} == {"kept"}
    assert by["residual"].layout == "fused"
    assert {k.layout for k in ks if k.op in ("Conv", "FusedConv")} == {"kept"}
    # reorders: x into the blocked layout (16·20·20 floats, read and written) and y (5·20·20) back out; the
    # tensors between the convolutions stay blocked
    assert sum(k.reorder_bytes for k in ks) == 2 * 4 * 16 * 20 * 20 + 2 * 4 * 5 * 20 * 20
    # a kernel's dict carries the new fields only when set: an unmarked, named kernel reads as tables before them
    assert Kernel.from_dict(hs1[0].to_dict()) == hs1[0]
    plain = dataclasses.replace(by["residual"], layout="", reorder_bytes=0.0)
    assert not {"named", "layout", "reorder_bytes"} & set(plain.to_dict())


def test_a_real_profiles_unnamed_nodes_are_paired_with_the_unnamed_kernels_and_no_time_is_left_over(tmp_path):
    p = _model(tmp_path)
    ks = kernels(p, {"x": (1, 16, 20, 20)})
    x = np.random.default_rng(1).random((1, 16, 20, 20), dtype=np.float32)
    prof = profile_onnxruntime(str(p), {"x": x}, {"threads": 1}, iterations=3, warmup=1, workdir=str(tmp_path))
    nodes = [{"name": n[0], "op_type": n[1], "ms_per_run": n[3] / 3e3} for n in prof["nodes"]]
    by_name = {k.name: k for k in ks}
    by_output = {o: k for k in ks for o in k.outputs}
    left = [n for n in nodes if stands_for(n["name"], by_name, by_output) is None]
    left = [n for n in left if n["op_type"] not in ("ReorderInput", "ReorderOutput")]
    # onnxruntime names a node without a name "<op type>_<node index>" in its profile: nothing else matches them
    assert left and all(n["name"].startswith(n["op_type"] + "_") for n in left)
    paired = pair_unnamed(left, ks)
    assert len(paired) == len(left)  # every one of them is a kernel now, none is "unmatched" time
    got = sorted((n["op_type"], paired[id(n)]) for n in left)
    assert all(by_name[name].op == op and not by_name[name].named for op, name in got)
    assert len({name for _, name in got}) == len(got)  # one profile node per kernel
    # a count that differs (a node the board fused, a profile of another graph): none is paired, time stays unmatched
    extra = {"name": f"{left[0]['op_type']}_99999", "op_type": left[0]["op_type"], "ms_per_run": 0.001}
    again = pair_unnamed([*left, extra], ks)
    assert not {id(n) for n in (*left, extra) if n["op_type"] == extra["op_type"]} & set(again)
    assert pair_unnamed(left, [k for k in ks if k.named]) == {}


KEY = TableKey(device_name="b", device={}, runtime="onnxruntime", runtime_version="1.32.0", precision="fp32",
               threads=1)


def _mul(i, layout, nbytes):
    return Kernel(name=f"mul{i}", op="Mul", key="Mul", family="binary", dtype="float32", flops=nbytes / 12,
                  bytes=float(nbytes), out_elems=nbytes / 12, layout=layout)


def test_the_fit_keeps_a_run_rate_per_layout_mark_so_a_kept_kernel_costs_in_full_and_a_fused_one_nothing():
    # the board: a Mul costs 1 µs + 1 µs per 100 kB where it runs; the host's "all" level folds half of them into
    # a convolution, and the board's profile shows none of those
    rng = np.random.default_rng(3)
    models = []
    for m in range(14):
        mks, total = [], 8.0
        for i in range(8):
            nbytes = float(rng.uniform(1e4, 1e6))
            fused = bool(i % 2)
            us = None if fused else 1.0 + nbytes * 1e-5
            total += us or 0.0
            mks.append(MeasuredKernel(_mul(i, "fused" if fused else "kept", nbytes), us))
        models.append(CalibrationModel(name=f"m{m}", role="kernels", p50_ms=total / 1e3, profiled_run_ms=None,
                                       unmatched_us=0.0, kernels=tuple(mks)))
    table = CalibrationTable(key=KEY, models=tuple(models), created_at="")
    p = fit(table)
    kept, fused = _mul(0, "kept", 5e5), _mul(1, "fused", 5e5)
    full = p.cost(kept)[0]
    assert full > 5.0  # the Mul's own cost as its per-key model fits it (the board: 6 µs at 500 kB), at a rate of 1
    assert p.cost(fused)[0] == 0.0
    assert p.cost(dataclasses.replace(kept, layout=""))[0] == pytest.approx(full / 2)  # unmarked: one rate, ½
    old = fit(table, FitOptions(layout=False))  # the method up to the fifth round: one rate per key
    assert old.cost(kept)[0] == pytest.approx(old.cost(fused)[0]) == pytest.approx(full / 2)
