"""The `generate` op's refusals (protocol 11), the real agent as a subprocess: each is one error reply naming what
is wrong, given before anything is waited for or loaded, and the agent serves on. (A generation measured end to end
is in the gen lane: tests/gen/test_generate_op.py.)"""

import json
import os
import subprocess
import sys

import pytest

from edgeprof_agent import PROTOCOL_VERSION
from edgeprof_agent.generation import GEN_BACKENDS
from edgeprof_agent.vocab import GEN_RUNTIMES, LITERT_LM

AGENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "agents")


class Agent:
    def __init__(self, workdir, python=sys.executable):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([AGENTS, os.environ.get("PYTHONPATH", "")]))
        self.p = subprocess.Popen([python, "-m", "edgeprof_agent", "serve", "--workdir", str(workdir)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env)
        self.next_id = 1

    def call(self, op, params=None):
        rid, self.next_id = self.next_id, self.next_id + 1
        self.p.stdin.write(json.dumps({"id": rid, "op": op, "params": params or {}}) + "\n")
        self.p.stdin.flush()
        while True:
            msg = json.loads(self.p.stdout.readline() or '{"agent": "exited"}')
            assert "agent" not in msg, self.p.stderr.read()
            if "event" not in msg:
                assert msg["id"] == rid
                return msg


@pytest.fixture
def agent(tmp_path):
    a = Agent(tmp_path / "work")
    assert a.call("hello", {"protocol": PROTOCOL_VERSION})["ok"]
    yield a
    a.p.stdin.close()
    assert a.p.wait(10) == 0


def _error(agent, params):
    r = agent.call("generate", dict({"power": {"source": "none"}, "idle_s": 0.0}, **params))
    assert not r["ok"], r
    return r["error"]


def test_the_generation_runtimes_have_one_home():
    """Each generation runtime has one agent backend: vocab.GEN_RUNTIMES (what sweeps run) and LiteRT-LM (deploy
    on a board; litert_lm_main on a phone)."""
    assert set(GEN_BACKENDS) == {*GEN_RUNTIMES, LITERT_LM}


def test_a_malformed_request_names_the_field(agent):
    e = _error(agent, {"runtime": "llama.cpp", "artifact": {"path": "m.gguf"}, "prompt_tokens": "many"})
    assert e["type"] == "protocol" and "generate.prompt_tokens" in e["message"]
    e = _error(agent, {"runtime": "llama.cpp"})
    assert e["type"] == "protocol" and "'artifact'" in e["message"]
    e = _error(agent, {"runtime": "llama.cpp", "artifact": {"path": "m.gguf"}, "batch": 2})
    assert e["type"] == "protocol" and "'batch'" in e["message"]
    assert agent.call("ping")["ok"]


def test_an_unknown_runtime_is_refused_with_the_known_ones(agent):
    e = _error(agent, {"runtime": "onnxruntime", "artifact": {"path": "m.onnx"}})
    assert e["type"] == "unknown_runtime" and "llama.cpp" in e["hint"] and "onnxruntime-genai" in e["hint"]


def test_counts_and_options_are_checked_before_the_model_is_looked_for(agent, tmp_path):
    pytest.importorskip("onnxruntime_genai")
    e = _error(agent, {"runtime": "onnxruntime-genai", "artifact": {"path": "nowhere"}, "gen_tokens": 0})
    assert e["type"] == "bad_request" and "gen_tokens" in e["message"]
    e = _error(agent, {"runtime": "onnxruntime-genai", "artifact": {"path": "nowhere"}, "threads": 2,
                       "runtime_options": {"threads": 4}})
    assert e["type"] == "bad_request" and "threads is given twice" in e["message"]
    e = _error(agent, {"runtime": "onnxruntime-genai", "artifact": {"path": "nowhere"}})
    assert e["type"] == "load_failed" and "no model at" in e["message"] and e["message"].endswith("nowhere")
    assert agent.call("ping")["ok"]


def test_onnxruntime_genai_cuda_without_cuda_is_refused_before_the_model_is_looked_for(agent):
    """provider cuda on this CPU wheel (is_cuda_available() False): one capability line naming the fix, before the
    cool-down, the idle baseline or the model (it is nowhere), and the agent serves on."""
    og = pytest.importorskip("onnxruntime_genai")
    if og.is_cuda_available():
        pytest.skip("this onnxruntime-genai has CUDA")
    e = _error(agent, {"runtime": "onnxruntime-genai", "artifact": {"path": "nowhere"}, "idle_s": 30.0,
                       "runtime_options": {"provider": "cuda"}})
    assert e["type"] == "capability" and "\n" not in e["message"], e
    assert e["message"] == f"onnxruntime-genai {og.__version__} here has no CUDA (is_cuda_available() is False)"
    assert "install onnxruntime-genai-cuda on the device" in e["hint"]
    e = _error(agent, {"runtime": "onnxruntime-genai", "artifact": {"path": "nowhere"},
                       "runtime_options": {"provider": "tensorrt"}})
    assert e["type"] == "bad_option" and "provider must be one of cpu, cuda, not 'tensorrt'" in e["message"]
    assert agent.call("ping")["ok"]


def test_a_gpu_this_machine_has_not_is_refused_before_the_runtime_is_imported(agent):
    """generate.gpu (NVML's index) that this machine does not have: one bad_request line from gpus.choose, before
    the runtime is imported or the model looked for, and the agent serves on."""
    from edgeprof_agent.gpus import nvidia_gpus
    from edgeprof_agent.sysfs import SysfsRoot

    if nvidia_gpus(SysfsRoot("/")):
        pytest.skip("this machine has an NVIDIA GPU")
    e = _error(agent, {"runtime": "onnxruntime-genai", "artifact": {"path": "nowhere"}, "gpu": 3,
                       "runtime_options": {"provider": "cuda"}})
    assert e["type"] == "bad_request" and e["message"] == "gpu 3: this device has 0 NVIDIA GPU(s)", e
    assert "leave out --gpu" in e["hint"]
    assert agent.call("ping")["ok"]


def test_the_op_is_served_under_python36(tmp_path):
    """The generate op's messages and its refusals on the agent's oldest Python (pyenv's 3.6, where present)."""
    from test_generation_loop import _python36

    py36 = _python36()
    if py36 is None:
        pytest.skip("no Python 3.6 interpreter here")
    a = Agent(tmp_path / "work36", python=py36)
    assert a.call("hello", {"protocol": PROTOCOL_VERSION})["result"]["python"].startswith("3.6")
    e = _error(a, {"runtime": "mlc", "artifact": {"path": "m"}})
    assert e["type"] == "unknown_runtime"
    e = _error(a, {"runtime": "llama.cpp", "artifact": {"path": "m"}, "gen_tokens": True})
    assert e["type"] == "protocol" and "generate.gen_tokens: expected an integer, got boolean" in e["message"]
    assert a.call("ping")["ok"]
    a.p.stdin.close()
    assert a.p.wait(10) == 0
