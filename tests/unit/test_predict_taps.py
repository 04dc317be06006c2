"""A convolution's kernel carries the work that runs: its taps inside the input (taps.py, round 13). onnxruntime
skips the taps that fall in the padding, so a 3×3 convolution padded by 1 on a 1×1 map costs what a 1×1 one does
(512 channels here: 27.6 against 21.9 µs, where the FLOPs convention counts nine times the work); mb-capcha-ocr's
ResNet-18 runs eleven of its convolutions on 2×2 and 1×1 maps and was priced +131 % by the convention's FLOPs."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from edgeprof.export.flops import flop_breakdown
from edgeprof.predict.graph import kernels
from edgeprof.predict.taps import conv_taps


def _node(**attrs):
    return helper.make_node("Conv", ["x", "w"], ["y"], **attrs)


def test_taps_inside_the_input_per_output_position():
    # a 1×1 map, 3×3 kernel padded by 1: the centre tap alone, of the weight a ninth
    assert conv_taps(_node(pads=[1, 1, 1, 1]), [1, 512, 1, 1], [512, 512, 3, 3], [1, 512, 1, 1]) == \
        pytest.approx((1 / 9, 1 / 9))
    # 2×2: each output position reaches 2 of 3 taps per axis; every tap is reached by some position
    assert conv_taps(_node(pads=[1, 1, 1, 1]), [1, 64, 2, 2], [64, 64, 3, 3], [1, 64, 2, 2]) == \
        pytest.approx(((4 / 6) ** 2, 1.0))
    # a large map: only its border loses taps
    pairs, taps = conv_taps(_node(pads=[1, 1, 1, 1]), [1, 8, 56, 56], [8, 8, 3, 3], [1, 8, 56, 56])
    assert pairs == pytest.approx((1 - 2 / (56 * 3)) ** 2) and taps == 1.0
    # no padding: every tap of every position is inside
    assert conv_taps(_node(), [1, 8, 9, 9], [8, 8, 3, 3], [1, 8, 7, 7]) == (1.0, 1.0)
    # SAME_UPPER at stride 2 on 5 → 3: total padding 2, 1 before and 1 after (onnx's rule)
    pairs, _ = conv_taps(_node(auto_pad="SAME_UPPER", strides=[2, 2]), [1, 4, 5, 5], [4, 4, 3, 3], [1, 4, 3, 3])
    assert pairs == pytest.approx((7 / 9) ** 2)
    # dilation 2 on 3×3 with padding 2: the outer taps land in the padding
    assert conv_taps(_node(pads=[2, 2, 2, 2], dilations=[2, 2]), [1, 4, 3, 3], [4, 4, 3, 3], [1, 4, 3, 3])[0] == \
        pytest.approx((5 / 9) ** 2)
    # a 1-D convolution runs every tap, the padding's too (round 15; the module docstring's timings): pulsevad's
    # 29-wide depthwise kernel dilated by 2 over 21 frames, and a 29-wide one on a single frame
    assert conv_taps(_node(pads=[28, 28], dilations=[2], group=64), [1, 64, 21], [64, 1, 29], [1, 64, 21]) == \
        (1.0, 1.0)
    assert conv_taps(_node(pads=[14, 14]), [1, 64, 1], [64, 64, 29], [1, 64, 1]) == (1.0, 1.0)
    # shapes that do not say: no correction
    assert conv_taps(_node(), [1, 8, 0, 9], [8, 8, 3, 3], [1, 8, 7, 7]) == (1.0, 1.0)


def test_a_kernel_on_a_one_by_one_map_carries_its_centre_taps_work_and_the_convention_stays(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 256, 1, 1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 256, 1, 1])
    w = numpy_helper.from_array(np.ones((256, 256, 3, 3), np.float32), "w")
    m = helper.make_model(helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1],
                                                               name="c")], "g", [x], [y], [w]),
                          opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    path = tmp_path / "c.onnx"
    onnx.save(m, str(path))
    (k,) = kernels(path, {}, "disabled")
    assert k.flops == pytest.approx(2 * 256 * 256)  # the centre tap: a 1×1 convolution's work
    assert k.bytes == pytest.approx(4 * (256 + 256 * 256 + 256))  # its input, a ninth of the weight, its output
    assert flop_breakdown(str(path), {}).total == 2 * 256 * 256 * 9  # the reported convention counts every tap
