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


@pytest.mark.alone  # real sleeps must be steady within 5 %: a parallel suite's other workers jitter them past it
def test_warm_up_stops_when_steady_with_a_window_that_fits_the_budget():
    """The steadiness rule: the median of the last k runs within 5 % of the k before, k = 10 for a fast model,
    fewer (at least 3) when 2 x 10 runs would not fit half the warm-up; the record says which rule stopped it."""
    import time

    from edgeprof_agent.worker import STEADY_MIN_WINDOW, steady_window

    assert steady_window(1.0, 0.001) == 10 and steady_window(1.0, 0.06) == 4
    assert steady_window(1.0, 0.5) == STEADY_MIN_WINDOW and steady_window(1.0, 0.0) == 10
    fast = warm_up(lambda: None, 1.0)
    assert fast.steady and fast.iterations >= 20 and fast.duration_s < 1.0
    assert "median of last 10 within 5 % of the 10 before" in fast.reason
    slow = warm_up(lambda: time.sleep(0.06), 1.0)  # 60 ms a run: 20 runs would take 1.2 s
    assert slow.steady and 8 <= slow.iterations < 16 and slow.duration_s < 1.0, slow.to_dict()
    assert "last 4 within 5 % of the 4 before" in slow.reason

    def drifting(state={"n": 0}):  # noqa: B006 - a counter across calls
        state["n"] += 1
        time.sleep(0.001 * state["n"])  # 1 ms more every run: never steady

    capped = warm_up(drifting, 0.3)
    assert not capped.steady and capped.reason == "warm-up time limit reached before latency was steady"
    assert capped.duration_s >= 0.3
