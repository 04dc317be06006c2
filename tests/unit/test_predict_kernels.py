"""The generated calibration models (edgeprof/predict/kernels.py): valid ONNX that onnxruntime loads, every kind,
deterministic for a seed, FLOPs bounded so a 2-core board's timed loop stays short."""

import onnx
import onnxruntime as ort

from edgeprof.export.flops import count_flops
from edgeprof.predict.kernels import KINDS, MAX_FLOPS, calibration_models


def test_calibration_models_are_valid_bounded_and_deterministic():
    first = list(calibration_models(seed=3, count=14))
    again = list(calibration_models(seed=3, count=14))
    assert [m.SerializeToString() for _, m in first] == [m.SerializeToString() for _, m in again]
    assert {name.rsplit("-", 1)[1] for name, _ in first} == set(KINDS)
    for name, m in first:
        onnx.checker.check_model(m, full_check=True)
        ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        flops = count_flops(m, {i.name: tuple(d.dim_value for d in i.type.tensor_type.shape.dim)
                                for i in m.graph.input})
        assert flops is not None and flops <= 3 * MAX_FLOPS, name  # a chain stops once past MAX_FLOPS
    other = [m.SerializeToString() for _, m in calibration_models(seed=4, count=14)]
    assert other != [m.SerializeToString() for _, m in first]
