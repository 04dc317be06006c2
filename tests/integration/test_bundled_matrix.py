"""Every bundled model × runtime × precision the capability matrix allows on this machine deploys and measures.

Issue 14 found `bert_tiny --precision fp16` failing to load on onnxruntime (a converter Cast/type mismatch); this
test keeps every combination honest: the run is ok, its samples are real, and the artifact's fidelity was checked
against torch. TensorRT needs an NVIDIA GPU: it is asserted to be refused in one line, not skipped silently.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from edgeprof import capability
from edgeprof.errors import CapabilityError
from edgeprof.records import RunSpec, local_device
from edgeprof.session import deploy
from edgeprof_models import names

RUNTIMES = ("onnxruntime", "tflite")
COMBOS = [(m, rt, p) for m in names() for rt in RUNTIMES for p in capability.RUNTIME_PRECISIONS[rt]]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.mark.parametrize(("model", "runtime", "precision"), COMBOS, ids=["-".join(c) for c in COMBOS])
def test_bundled_model_runtime_precision_deploys(model: str, runtime: str, precision: str,
                                                 bundled_onnx: Callable[[str], Any]) -> None:
    if runtime == "onnxruntime":
        bundled_onnx(model)  # the session's one export of the model (tests/conftest.py), in the default cache
    spec = RunSpec(device="local", model=model, runtime=runtime, precision=precision, min_duration_s=0.2,
                   min_queries=5, warmup_s=0, idle_s=0)
    r = deploy(spec, local_device())
    assert r.status == "ok" and r.runtime == runtime and r.precision == precision
    assert len(r.samples_ms) >= 5 and all(math.isfinite(s) and s > 0 for s in r.samples_ms)
    assert r.fidelity is not None, r.null_reasons
    assert r.fidelity.cosine_similarity is not None and r.fidelity.cosine_similarity > 0.9, r.fidelity


def test_tensorrt_is_refused_in_one_line_on_a_machine_without_a_gpu() -> None:
    spec = RunSpec(device="local", model="resnet18", runtime="tensorrt", precision="fp16", min_duration_s=0.2,
                   warmup_s=0, idle_s=0)
    with pytest.raises(CapabilityError) as e:
        deploy(spec, local_device())
    assert "tensorrt needs an NVIDIA GPU; device local has none" in e.value.one_line()
    assert "\n" not in e.value.one_line()
