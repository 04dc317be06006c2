"""The lab's decision core as tables: exception class → action, and a cell's capability with or without facts.
No threads, no processes, no devices."""

from __future__ import annotations

import pytest

from edgeprof import capability, vocab
from edgeprof.agentlink.lease import Interrupted, LeaseBusy, LeaseLost
from edgeprof.errors import (
    AgentError,
    DeviceError,
    HostKeyError,
    MeasurementError,
    ModelError,
    RuntimeMissingError,
    StoreError,
    TransportError,
)
from edgeprof.lab.cell_decisions import (
    FAIL,
    MAX_BACKOFF_S,
    MEASURE,
    RETRY,
    SETUP,
    SKIP,
    STOP,
    cell_decision,
    on_error,
)
from edgeprof.lab.spec import Cell
from edgeprof.run import CapabilityError
from edgeprof_agent.messages import Facts

# (exception, phase, expected kind, device unusable afterwards)
TABLE = [
    (TransportError("connection refused"), SETUP, RETRY, False),
    (TransportError("connection lost"), MEASURE, RETRY, False),
    (HostKeyError("host key changed"), SETUP, RETRY, False),  # a TransportError: its class decides
    (LeaseLost("lease expired"), MEASURE, RETRY, False),
    (RuntimeMissingError("no onnxruntime"), MEASURE, SKIP, False),
    (RuntimeMissingError("no onnxruntime"), SETUP, SKIP, False),
    (CapabilityError("no GPU"), MEASURE, SKIP, False),
    (MeasurementError("the model raised"), MEASURE, FAIL, False),
    (AgentError("load failed"), MEASURE, FAIL, False),
    (ModelError("no input named 'x'"), MEASURE, FAIL, False),
    (AgentError("agent did not start"), SETUP, FAIL, True),
    (DeviceError("no disk"), SETUP, FAIL, True),
    (StoreError("database locked"), SETUP, FAIL, True),
    (LeaseBusy("device nano is leased by ci-1; waited 5 s"), SETUP, FAIL, True),
    (RuntimeError("a bug"), MEASURE, FAIL, False),
    (OverflowError("Python int too large to convert to SQLite INTEGER"), SETUP, FAIL, True),
    (Interrupted("stopped"), MEASURE, STOP, False),
]


@pytest.mark.parametrize("exc, phase, kind, unusable", TABLE, ids=[f"{type(t[0]).__name__}-{t[1]}" for t in TABLE])
def test_action_by_exception_class(exc: Exception, phase: str, kind: str, unusable: bool) -> None:
    action = on_error(exc, 1, 2, 5.0, device="nano", phase=phase)
    assert action.kind == kind
    assert bool(action.unusable) == unusable
    if kind in (FAIL, SKIP):
        assert action.reason  # every row says why
    if unusable:
        assert "nano" in (action.unusable or "")


def test_the_message_text_never_decides() -> None:
    # a measurement failure whose text reads like a transport problem is still not retried, and vice versa
    assert on_error(MeasurementError("connection refused, timed out"), 1, 5, 1.0).kind == FAIL
    assert on_error(AgentError("Connection reset by peer"), 1, 5, 1.0, phase=MEASURE).kind == FAIL
    assert on_error(TransportError("model failed to load"), 1, 5, 1.0).kind == RETRY


def test_transport_errors_back_off_exponentially_then_give_up() -> None:
    waits = [on_error(TransportError("refused"), a, 3, 5.0).wait_s for a in (1, 2, 3)]
    assert waits == [5.0, 10.0, 20.0]
    last = on_error(TransportError("refused"), 4, 3, 5.0, device="pi5")
    assert last.kind == FAIL and "gave up after 4 attempts" in last.reason
    assert last.unusable == "device pi5 unreachable: refused"
    assert on_error(TransportError("refused"), 1, 0, 5.0).kind == FAIL  # retries: 0
    # the largest settings a sweep file allows (retries 100, retry_backoff_s 3600) give a wait a timer can take
    assert on_error(TransportError("refused"), 100, 100, 3600.0).wait_s == MAX_BACKOFF_S


def test_internal_errors_carry_the_traceback() -> None:
    try:
        raise KeyError("oops")
    except KeyError as e:
        action = on_error(e, 1, 2, 1.0, phase=MEASURE)
    assert action.kind == FAIL and action.reason.startswith("internal error in edgeprof: KeyError")
    assert action.detail and "Traceback" in action.detail and "test_decide.py" in action.detail


def test_user_errors_keep_their_detail_and_hint() -> None:
    e = AgentError("device nano: load failed", hint="check the model", detail="stderr tail")
    action = on_error(e, 1, 2, 1.0, phase=MEASURE)
    assert action.reason == "device nano: load failed — check the model" and action.detail == "stderr tail"


def cell(runtime: str = "onnxruntime", precision: str = "fp32", model: str = "ds_cnn",
         options: dict[str, object] | None = None) -> Cell:
    return Cell(model=model, model_label=model, device="nano", runtime=runtime, precision=precision, batch=1,
                threads=None, settings={"runtime_options": options or {}})


def facts(**fields: object) -> Facts:
    """A device's typed facts (what the agent's `facts` op answers), with the fields a test cares about."""
    base: dict[str, object] = {"hostname": "nano", "arch": "aarch64", "cpu": "ARMv8", "os": "Ubuntu 18.04",
                               "kernel": "4.9.253-tegra", "python": "3.6.9", "python_executable": "/usr/bin/python3",
                               "agent_version": "0.1.0", "protocol": 2}
    base.update(fields)
    return Facts.from_dict(base)


def test_cell_decision_static_and_with_facts() -> None:
    assert cell_decision(cell(), None).ok
    bf16 = cell_decision(cell(precision="bf16"), None)
    assert not bf16.ok and "bf16" in (bf16.reason or "")
    assert not cell_decision(cell(runtime="tflite", model="/m.onnx"), None).ok  # tflite does not run onnx files
    no_ort = facts(python="3.8.10", runtimes={"onnxruntime": {"error": "No module named onnxruntime"}})
    d = cell_decision(cell(), no_ort)
    assert not d.ok and "onnxruntime is not installed on nano" in (d.reason or "")
    no_gpu = facts(gpus=[], runtimes={"onnxruntime": {"version": "1.17", "providers": ["CPUExecutionProvider"]}})
    assert cell_decision(cell(), no_gpu).ok
    # the cell's runtime_options take part (they did not in the scheduler's own check before)
    cuda = cell_decision(cell(options={"providers": ["CUDAExecutionProvider"]}), no_gpu)
    assert not cuda.ok and "needs an NVIDIA GPU" in (cuda.reason or "")


def test_capability_tables_cover_the_vocabulary() -> None:
    for table in (capability.RUNTIME_FORMATS, capability.RUNTIME_PRECISIONS, capability.NATIVE_FORMAT):
        assert set(table) == set(vocab.RUNTIMES)
    for precisions in capability.RUNTIME_PRECISIONS.values():
        assert set(precisions) <= set(vocab.PRECISIONS)
