"""A float Conv onnxruntime's MLAS runs image by image (edgeprof/predict/images.py; round 26, after its run):
MlasConvPrepare (onnxruntime/core/mlas/lib/convolve.cpp) picks GemmDirect for a pointwise convolution and
ExpandThenGemm for one with more filters than output positions an image, and MlasConv walks the images and groups of
both one after another, splitting each image's GEMM over the thread pool again; only the segmented algorithm is threaded
over images. Such a kernel records its calls and one call's bytes; at more than one thread it is priced as that many
one-image kernels and a calibration sample of one is fitted as one image's; at one thread, as one kernel."""

import dataclasses

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from test_predict_fit import _k, _table  # tests/unit is on sys.path

from edgeprof.predict.fit import fit
from edgeprof.predict.graph import Kernel, kernels
from edgeprof.predict.images import image_calls, image_sample, one_image


def _node(**attrs):
    return helper.make_node("Conv", ["x", "w"], ["y"], **attrs)


@pytest.mark.parametrize("x, w, y, attrs, calls", [
    # Remora's Conv_19: 1000 chunks, 128 channels of 24 positions, 64 filters of 5 taps → 20 positions: 64 > 20
    ((1000, 128, 24), (64, 128, 5), (1000, 64, 20), {}, 1000.0),
    # its Conv_12: 32 filters over 80 positions: segmented, threaded over the images (convolve.cpp)
    ((1000, 16, 90), (32, 16, 11), (1000, 32, 80), {}, 0.0),
    # a pointwise 1-D convolution, stride 1, no padding: GemmDirect on each image, whatever its filters
    ((8, 64, 500), (16, 64, 1), (8, 16, 500), {}, 8.0),
    # ... but strided it is expanded, and 16 filters over 250 positions are segmented
    ((8, 64, 500), (16, 64, 1), (8, 16, 250), {"strides": [2]}, 0.0),
    # one image: nothing walked
    ((1, 128, 24), (64, 128, 5), (1, 64, 20), {}, 0.0),
    # groups count as calls: 2 images × 4 groups of 16 filters over 10 positions
    ((2, 32, 12), (64, 8, 3), (2, 64, 10), {"group": 4}, 8.0),
    # a 2-D one of 16 output channels: NCHWc blocks it (not MLAS's unblocked path), whatever its shape
    ((4, 16, 3, 3), (16, 16, 3, 3), (4, 16, 1, 1), {}, 0.0),
    # a 2-D one of 6 output channels is unblocked: 6 filters over 4 positions an image
    ((4, 16, 4, 4), (6, 16, 3, 3), (4, 6, 2, 2), {}, 4.0),
])
def test_image_calls_follow_mlas_choice_of_algorithm(x, w, y, attrs, calls):
    from edgeprof.predict.variants import variant

    shapes = {"x": x, "w": w, "y": y}
    v = variant("Conv", 1, _node(**attrs), shapes, frozenset({"w"}))
    assert image_calls(_node(**attrs), x, w, y, v) == calls


def _conv_model(path, batch, cin, length, cout, k):
    wt = numpy_helper.from_array(np.random.default_rng(0).standard_normal((cout, cin, k)).astype(np.float32), "w")
    graph = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, cin, length])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [wt])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def test_a_batched_conv_of_more_filters_than_positions_reads_its_calls_and_one_calls_bytes(tmp_path):
    path = str(tmp_path / "c.onnx")
    _conv_model(path, 1000, 128, 24, 64, 5)
    (k,) = [k for k in kernels(path, {}) if k.op in ("Conv", "FusedConv")]
    assert k.images == 1000
    one = (128 * 24 + 64 * 20) * 4 + 64 * 128 * 5 * 4  # one image in and out, and the whole weight
    assert k.image_bytes == pytest.approx(one, rel=0.01)
    assert k.bytes == pytest.approx(1000 * (128 * 24 + 64 * 20) * 4 + 64 * 128 * 5 * 4, rel=0.01)
    assert Kernel.from_dict(k.to_dict()) == k  # the table keeps both
    _conv_model(path, 1000, 16, 90, 32, 11)  # segmented: MLAS threads over the images, one kernel as before
    (k,) = [k for k in kernels(path, {}) if k.op in ("Conv", "FusedConv")]
    assert k.images == 0 and "images" not in k.to_dict()


def test_at_two_threads_such_a_kernel_is_priced_as_its_calls_one_image_kernels_and_fitted_as_one():
    p = fit(dataclasses.replace(_table(), key=dataclasses.replace(_table().key, threads=2)))
    whole = dataclasses.replace(_k("Conv/kxk", 1.6e9, 1.8e7, i=7), images=1000.0, image_bytes=1.8e5)
    one = one_image(whole, 2)
    assert (one.flops, one.bytes, one.images) == (pytest.approx(1.6e6), 1.8e5, 0.0)
    plain = dataclasses.replace(whole, images=0.0, image_bytes=0.0)
    us, how = p.cost(whole)
    assert us == pytest.approx(1000 * p.cost(one)[0]) and how == p.cost(one)[1]
    assert us > 2 * p.cost(plain)[0]  # 1000 calls of 1.6 MFLOP cost more than one GEMM of 1.6 GFLOP
    # the out-of-domain warning asks of what is priced: a call of 1.6 MFLOP lies inside the samples (1-100 MFLOP)
    assert p._outside(plain) and not p._outside(whole)
    assert one_image(plain, 2) is None and image_sample(plain, 5.0, 2) == (plain, 5.0)
    grouped = dataclasses.replace(whole, spans=8000.0, images=8000.0)  # 1000 images x 8 groups: one call each
    assert one_image(grouped, 2).spans == 1.0
    k, t = image_sample(whole, 3000.0, 2)
    assert k == one and t == pytest.approx(3.0)


def test_at_one_thread_such_a_kernel_is_priced_and_fitted_as_one_kernel():
    """A call inside MLAS's loop pays no pool dispatch at one thread and finds its weight cached; a whole node of that
    size cost 1.4-2.5x a call there (Remora, round 26): the kernel stays one kernel."""
    p = fit(_table())
    whole = dataclasses.replace(_k("Conv/kxk", 1.6e9, 1.8e7, i=7), images=1000.0, image_bytes=1.8e5)
    plain = dataclasses.replace(whole, images=0.0, image_bytes=0.0)
    assert one_image(whole, 1) is None and image_sample(whole, 3000.0, 1) == (whole, 3000.0)
    assert p.cost(whole) == p.cost(plain)
