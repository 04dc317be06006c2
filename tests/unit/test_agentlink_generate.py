"""AgentLink.generate (protocol 11) against the real agent over the local transport: a refused generation is
the one-line error of its kind (ErrorKind, never its text), the agent serves on, and a generation's silence is
the caller's (its progress events). The measurement itself: tests/gen/test_generate_op.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from edgeprof.agentlink import AgentLink
from edgeprof.errors import AgentError, MeasurementFailed
from edgeprof.records import Device
from edgeprof.transport.local import LocalTransport
from edgeprof_agent.messages import ArtifactRef, GenerateRequest, PowerConfig
from edgeprof_agent.vocab import ErrorKind


def _device(tmp_path: Path) -> Device:
    return Device(name="bench-1", kind="local", workdir=str(tmp_path / "wd"), python=sys.executable)


def _request(runtime: str, path: str, **kw: object) -> GenerateRequest:
    return GenerateRequest(runtime=runtime, artifact=ArtifactRef(path=path), power=PowerConfig(source="none"),
                           idle_s=0.0, **kw)


def test_a_refused_generation_is_one_line_of_its_kind_and_the_agent_serves_on(tmp_path):
    with AgentLink.open(LocalTransport(), _device(tmp_path), agent_cache=tmp_path / "ac") as link:
        with pytest.raises(AgentError) as e:
            link.generate(_request("mlc", "m"))
        assert e.value.kind == ErrorKind.UNKNOWN_RUNTIME and "unknown generation runtime 'mlc'" in e.value.one_line()
        pytest.importorskip("onnxruntime_genai")
        with pytest.raises(MeasurementFailed) as m:
            link.generate(_request("onnxruntime-genai", "nowhere"))
        assert m.value.kind == ErrorKind.LOAD_FAILED and "device bench-1: generate: no model at" in m.value.one_line()
        assert "push the model" in m.value.one_line()
        assert link.call("ping")["pong"] is True
