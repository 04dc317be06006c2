"""Fourier transforms (export/flops.py's STFT and DFT count, variants.py's keys, spectral.py's calibration models):
onnxruntime's CPU kernel (signal/dft.cc) runs a radix-2 FFT at a power-of-2 length and Bluestein's chirp-z (two
FFTs of the next power of 2 at or past 2n − 1) at any other, so the count follows the algorithm, the key says which,
and the tables measure both (round 10: the kaldi front end's STFT, unmeasured, was predicted at a tenth)."""

import math

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from edgeprof.export.flops import count_flops, fft_flops
from edgeprof.predict.graph import kernels
from edgeprof.predict.kernels import calibration_models


def _stft_model(path, win, hop, frames, with_window=True):
    n = win + hop * (frames - 1)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n, 1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    inits = [numpy_helper.from_array(np.array(hop, np.int64), "step")]
    ins = ["x", "step"]
    if with_window:
        inits.append(numpy_helper.from_array(np.hanning(win).astype(np.float32), "window"))
        ins.append("window")
    else:
        inits.append(numpy_helper.from_array(np.array(win, np.int64), "length"))
        ins += ["", "length"]
    node = helper.make_node("STFT", ins, ["y"], onesided=1, name="stft")
    m = helper.make_model(helper.make_graph([node], "g", [x], [y], inits), opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return m


def test_fft_flops_follow_onnxruntimes_two_algorithms():
    assert fft_flops(512) == 5 * 512 * 9  # radix-2
    m = 1024  # 400: Bluestein over the power of 2 at or past 799
    assert fft_flops(400) == int(10 * m * math.log2(m) + 6 * m + 24 * 400)
    assert fft_flops(1000) > 4 * fft_flops(1024)  # another length costs several times a power of 2 near it
    assert fft_flops(1) == 0


def test_an_stfts_flops_key_and_family_say_which_algorithm_runs(tmp_path):
    for win, variant in ((512, "pow2"), (400, "bluestein")):
        m = _stft_model(tmp_path / f"s{win}.onnx", win, win // 2, 50)
        assert count_flops(m, {"x": (1, win + win // 2 * 49, 1)}) == 50 * fft_flops(win)
        (k,) = kernels(tmp_path / f"s{win}.onnx", {}, "all")
        assert (k.key, k.family, k.flops) == (f"STFT/{variant}", f"fft/{variant}", 50 * fft_flops(win))
    # no window: the length is read back from the onesided output's bins
    _stft_model(tmp_path / "nw.onnx", 256, 128, 20, with_window=False)
    (k,) = kernels(tmp_path / "nw.onnx", {}, "all")
    assert (k.key, k.flops) == ("STFT/pow2", 20 * fft_flops(256))


def test_a_dft_takes_the_stfts_family(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 400, 1])
    node = helper.make_node("DFT", ["x"], ["y"], axis=1, onesided=0, name="dft")
    m = helper.make_model(helper.make_graph([node], "g", [x], [helper.make_tensor_value_info("y", 1, None)]),
                          opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "d.onnx"))
    (k,) = kernels(tmp_path / "d.onnx", {}, "all")
    assert (k.key, k.family, k.flops) == ("DFT/bluestein", "fft/bluestein", 8 * fft_flops(400))


def test_the_tables_models_measure_stfts_of_both_lengths_and_none_below_opset_17(tmp_path):
    keys, front = [], 0
    for name, m in calibration_models(seed=0, count=11 * 24):
        if not any(n.op_type == "STFT" for n in m.graph.node):
            continue
        ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        onnx.save(m, str(tmp_path / "m.onnx"))
        keys += [k.key for k in kernels(tmp_path / "m.onnx", {}, "all") if k.op == "STFT"]
        front += name.endswith("-cnn1d")  # a log-mel front end before a 1-D CNN, as well as single STFTs (misc)
    # a table of ~250 models: enough of each for its family ("fft/..."), most often for its own key
    assert keys.count("STFT/pow2") >= 4 and keys.count("STFT/bluestein") >= 4 and len(keys) >= 12, keys
    assert front >= 1
    for _, m in calibration_models(seed=0, count=11 * 6, opset=15):
        assert not any(n.op_type == "STFT" for n in m.graph.node)
