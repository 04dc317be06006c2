"""The model's own refusal of its inputs is ErrorKind.MODEL_INPUT (never an agent exception): onnxruntime's first
run at load, the first warm-up query, and a later failed query as RUN_FAILED; data inputs read with numpy only."""

import numpy as np
import pytest
from onnx_fixtures import sample_rate_model  # tests/ is on sys.path via its conftest

from edgeprof_agent.backends.ort import Backend
from edgeprof_agent.inputs import make_inputs
from edgeprof_agent.messages import InputSpec
from edgeprof_agent.protocol import OpError
from edgeprof_agent.vocab import ErrorKind
from edgeprof_agent.worker import warm_up


def test_onnxruntime_refusing_the_inputs_at_load_is_model_input(tmp_path):
    path = sample_rate_model(tmp_path / "sr.onnx", x_dim0=1)
    b = Backend(workdir=str(tmp_path))
    b.require()
    x = np.ones((1, 4), np.float32)
    with pytest.raises(OpError) as e:
        b.load(path, [("x", x), ("sr", np.array(0, np.int64))], {})
    assert e.value.type == ErrorKind.MODEL_INPUT and e.value.message.startswith("the model rejected these inputs: ")
    assert "Reshape" in e.value.message
    b2 = Backend(workdir=str(tmp_path))
    b2.require()
    b2.load(path, [("x", x), ("sr", np.array(16000, np.int64))], {})
    assert b2.first_run_s is not None and b2.first_run_s > 0
    assert [o.shape for o in b2.outputs()] == [(4, 1)]


def test_a_runtime_error_at_the_first_warmup_query_is_the_models_later_a_failed_run():
    def refuses():
        raise RuntimeError("Got invalid dimensions for input: x\nindex: 0 Got: 2 Expected: 1")

    with pytest.raises(OpError) as e:
        warm_up(refuses, 1.0)
    assert e.value.type == ErrorKind.MODEL_INPUT
    assert e.value.message == "the model rejected these inputs: Got invalid dimensions for input: x"
    calls = []

    def fails_later():
        calls.append(1)
        if len(calls) > 3:
            raise RuntimeError("out of memory")

    with pytest.raises(OpError) as e:
        warm_up(fails_later, 5.0)
    assert e.value.type == ErrorKind.RUN_FAILED and "out of memory" in e.value.message
    assert ErrorKind.MODEL_INPUT in ErrorKind.ALL and ErrorKind.MODEL_INPUT in ErrorKind.MEASUREMENT


def test_data_inputs_are_checked_against_the_request(tmp_path):
    npz = tmp_path / "d.npz"
    np.savez(npz, x=np.zeros((2, 3), np.float32))
    ok = make_inputs([InputSpec(name="x", shape=[2, 3], data="x")], 0, str(npz))
    assert ok[0][1].shape == (2, 3)
    with pytest.raises(OpError) as e:
        make_inputs([InputSpec(name="x", shape=[1, 3], data="x")], 0, str(npz))
    assert e.value.type == ErrorKind.BAD_INPUTS and "float32[2, 3]" in e.value.message
    with pytest.raises(OpError, match="no array 'y'"):
        make_inputs([InputSpec(name="y", shape=[2, 3], data="y")], 0, str(npz))
    with pytest.raises(OpError, match="no input data file"):
        make_inputs([InputSpec(name="x", shape=[2, 3], data="x")], 0, None)
