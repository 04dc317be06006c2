"""Fixtures shared by the agent's tests."""

import os
from pathlib import Path

import pytest

TRT_FAKES = Path(__file__).resolve().parent / "fakes" / "tensorrt"


@pytest.fixture
def trt_env(tmp_path):
    """(agent environment with the TensorRT doubles first on PYTHONPATH, the doubles' call log)."""
    log = tmp_path / "trt.log"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TRT_FAKES), env.get("PYTHONPATH", "")])
    env["EDGEPROF_FAKE_TRT_LOG"] = str(log)
    return env, log
