"""The measurement pipeline's seams (edgeprof/run/): check() finds the flag problems before anything connects,
errors carry declared fields that model_rejected reads (never parsing its own text), and a StartedAgent is a small
protocol a fake device can implement."""

from __future__ import annotations

import pytest

from edgeprof.errors import ConfigError, MeasurementFailed
from edgeprof.export.inputs import plan_inputs
from edgeprof.records import BoardFacts, RunSpec, TensorSpec
from edgeprof.run import Options, check
from edgeprof.run.execute import model_rejected
from edgeprof_agent.vocab import ErrorKind


def spec(**kw):
    kw.setdefault("runtime", "null")
    kw.setdefault("model", "none")
    return RunSpec(device="local", **kw)


def test_check_refuses_the_flags_a_deploy_cannot_use_in_one_line():
    with pytest.raises(ConfigError, match="--cooldown-timeout needs --cooldown C"):
        check(spec(), Options(given=frozenset({"--cooldown-timeout"})))
    with pytest.raises(ConfigError, match="--find-max-rate searches a rate"):
        check(spec(), Options(find_max_rate=True))
    with pytest.raises(ConfigError, match="--calibration with --runtime null"):
        check(spec(calibration="samples/"))
    with pytest.raises(ConfigError, match="--opset 17: applies to a bundled or builder model"):
        check(spec(model="m.onnx", runtime="onnxruntime", opset=17))
    check(spec(model="mobilenet_v2", runtime="onnxruntime", opset=17))  # the default runtime exports
    check(spec(cooldown_c=40.0), Options(given=frozenset({"--cooldown-timeout"})))


def test_model_rejected_reads_the_errors_fields_and_says_what_was_fed():
    e = MeasurementFailed("device pi: the model rejected these inputs: bad dims", hint="check the shape",
                          kind=ErrorKind.MODEL_INPUT, device="pi", reason="the model rejected these inputs: bad dims")
    assert (e.device, e.reason, e.message) == ("pi", "the model rejected these inputs: bad dims",
                                              "device pi: the model rejected these inputs: bad dims")
    plan = plan_inputs((TensorSpec("x", (1, 4)),), batch=1, seed=0)
    out = model_rejected(e, plan, "pi")
    assert out.message.startswith("the model rejected these inputs: bad dims — check the shape (on pi; fed: x: float32[1, 4]")
    # an error raised without the fields keeps its whole text
    bare = model_rejected(MeasurementFailed("inputs refused"), plan, "pi")
    assert bare.message.startswith("inputs refused (on pi; fed: x: float32[1, 4]")


class FakeSession:
    """A device of another kind: no agent, no Transport — only what execute() talks to (run.StartedAgent)."""

    def __init__(self, reply: dict) -> None:
        self.bytes_moved = 7
        self.reply = reply
        self.requests: list = []

    def push_artifact(self, local_path: str, sha256: str, ext: str) -> tuple[str, int]:
        raise AssertionError("the null runtime pushes nothing")

    def run(self, req, *, on_event=None, timeout=120.0, silence_by_phase=None, deadline=None):
        from edgeprof_agent.messages import RunReply

        self.requests.append(req)
        assert deadline is not None and silence_by_phase and silence_by_phase["measure"] > 0
        return RunReply.from_dict(self.reply)

    def close(self) -> None:
        pass


def test_any_session_can_be_executed_on_and_the_result_is_assembled_once_and_frozen():
    import dataclasses

    from edgeprof.records import Device
    from edgeprof.run import assemble, execute, plan
    from edgeprof_agent.messages import Facts

    facts = Facts.from_dict({"hostname": "phone", "arch": "aarch64", "cpu": "x", "os": "Android 14", "kernel": "6.1",
                             "python": "3.11.2", "python_executable": "/bin/python3", "agent_version": "0.1.0",
                             "protocol": 4, "gpus": []})
    planned = plan(spec(), Device(name="phone", kind="local"), facts)
    session = FakeSession({"clock": "monotonic_ns", "samples_ns": [2_000_000] * 30, "t_first_ns": 0,
                           "t_last_ns": 60_000_000, "window_s": 0.06, "stopped_by": "min_duration and min_queries met",
                           "warmup": {"iterations": 0, "duration_s": 0.0, "steady": True, "reason": "off"},
                           "load_s": 0.0, "memory": {"peak_source": "getrusage"}, "runtime": {"runtime": "null"},
                           "finished_at_unix": 1.0})
    executed = execute(planned, session)
    assert session.requests[0].runtime == "null" and executed.transfer.agent_bytes == 7
    r = assemble(planned, executed)
    assert r.status == "ok" and r.device == "phone" and r.latency_ms is not None and r.latency_ms.p50 == 2.0
    assert r.environment.device == BoardFacts.from_record(facts) and r.null_reasons.fidelity == "no fidelity check was made " \
        "for this run"
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.fidelity = None  # type: ignore[misc]
