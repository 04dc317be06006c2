"""onnxruntime-genai on CUDA through the generate op's measurement (genworker.run_generate, in this process), with
doubles only: no GPU is here. onnxruntime_genai is the og double built with CUDA (tests/agent/fakes/og_double.py,
which follows the binding, src/python/python.cpp), NVML the pynvml double (tests/agent/fakes/modules/pynvml.py)
with two Tesla T4s, and the board the two-T4 tree (tests/data/boards/x86-2xt4: the driver's
/proc/driver/nvidia/gpus).

- The request's gpu (devices.yaml gpu: / --gpu, NVML's index) pins CUDA to that GPU's UUID before
  onnxruntime_genai is imported, as a run's does (gpus.py), and the CUDA provider gets device_id "0" (the pinned
  GPU, CUDA's only device then) through set_provider_option before og.Model is made; the reply's runtime names the
  GPU and the options record device_id; the process's environment is as it was afterwards.
- A GPU this machine has not: one BAD_REQUEST line before anything is imported or loaded.
- Without a gpu: nothing pinned, no device_id set (CUDA's device 0).
- GPU memory (NVML, as the forward pass reads it): the process's usedGpuMemory on the request's GPU right after the
  load and after the last token (the og double allocates its weights at og.Model and each generator's KV cache
  on the pinned GPU of the NVML double); without a gpu, summed over the GPUs; on the CPU, or without NVML, none,
  with the reason.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes"))

import boardkit as bk  # noqa: E402
from og_double import FakeOg, model_folder  # noqa: E402

from edgeprof_agent import genworker  # noqa: E402
from edgeprof_agent.messages import GenerateRequest  # noqa: E402
from edgeprof_agent.protocol import OpError  # noqa: E402
from edgeprof_agent.sysfs import SysfsRoot  # noqa: E402
from edgeprof_agent.vocab import ErrorKind  # noqa: E402

BOARD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "boards", "x86-2xt4")
U = ("GPU-6a5f0e44-21c4-9b3e-1f0d-3c0a4b5e6f70", "GPU-6a5f0e44-21c4-9b3e-1f0d-3c0a4b5e6f71")
MIB = 2 ** 20


class Lab:
    """The two T4s behind the pynvml double, the og double built with CUDA as onnxruntime_genai (what it
    allocates on "the GPU" lands in the NVML double's per-process memory of the GPU CUDA is pinned to, GPU 0 when
    nothing is pinned), and a model folder in a workdir."""

    def __init__(self, monkeypatch, tmp_path):
        self.nv = bk.use_fake_module(monkeypatch, "pynvml")
        self.gpus = [self.nv.FakeGpu(uuid=U[0], bus_id="00000000:3B:00.0", power_fn=lambda t: 30.0, processes=[]),
                     self.nv.FakeGpu(uuid=U[1], bus_id="00000000:AF:00.0", power_fn=lambda t: 55.0, processes=[])]
        self.nv.fake_reset(self.gpus)
        self.og = FakeOg(cuda=True, on_cuda_alloc=self.alloc)
        monkeypatch.setitem(sys.modules, "onnxruntime_genai", self.og)
        for name in ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER"):
            monkeypatch.delenv(name, raising=False)
        self.workdir = str(tmp_path / "work")
        model_folder(os.path.join(self.workdir, "artifacts", "m"))
        self.tools = bk.no_tools(tmp_path)

    def alloc(self, nbytes):
        pinned = os.environ.get("CUDA_VISIBLE_DEVICES")
        g = next((g for g in self.gpus if g.uuid == pinned), self.gpus[0])
        used = dict(g.processes).get("self", 0)
        g.processes[:] = [("self", used + nbytes)]

    def used(self, index):
        return dict(self.gpus[index].processes).get("self")

    def generate(self, **fields):
        req = GenerateRequest.from_dict(dict({
            "runtime": "onnxruntime-genai", "artifact": {"path": "artifacts/m"}, "precision": "int4",
            "prompt_tokens": 8, "gen_tokens": 4, "repetitions": 2, "power": {"source": "none"}, "idle_s": 0.0,
            "runtime_options": {"provider": "cuda"}}, **fields))
        return genworker.run_generate(req, self.workdir, SysfsRoot(BOARD), self.tools)


@pytest.fixture
def lab(monkeypatch, tmp_path):
    return Lab(monkeypatch, tmp_path)


def test_the_requests_gpu_pins_cuda_and_the_cuda_provider_gets_device_0(lab):
    before = dict(os.environ)
    reply = lab.generate(gpu=1)
    names = [c[0] for c in lab.og.calls]
    assert names == ["Config", "clear_providers", "append_provider", "set_provider_option", "Model"]
    _, providers, provider_options, cuda_env = lab.og.calls[-1]
    assert cuda_env == {"CUDA_VISIBLE_DEVICES": U[1]}  # pinned before og.Model, by UUID
    assert (providers, provider_options) == (("cuda",), {"cuda": {"device_id": "0"}})
    assert reply.runtime.gpu == {"index": 1, "name": "Tesla T4", "uuid": U[1], "pci_bus_id": "00000000:AF:00.0",
                                 "source": "NVML", "kind": "discrete", "cuda_env": {"CUDA_VISIBLE_DEVICES": U[1]}}
    opts = reply.runtime.options
    assert (opts["provider"], opts["device_id"], opts["device_type"]) == ("cuda", 0, "CUDA")
    assert len(reply.repetitions) == 2 and all(len(r.token_ns) == 4 for r in reply.repetitions)
    assert dict(os.environ) == before  # the pin is the measurement's alone


def test_a_gpu_this_machine_has_not_is_one_line_before_anything_loads(lab):
    with pytest.raises(OpError) as e:
        lab.generate(gpu=2)
    assert e.value.type == ErrorKind.BAD_REQUEST
    assert e.value.message == "gpu 2: this device has 2 NVIDIA GPU(s) (indices 0-1, as nvidia-smi numbers them)"
    assert lab.og.calls == [] and "CUDA_VISIBLE_DEVICES" not in os.environ


def test_without_a_gpu_nothing_is_pinned_and_no_device_id_is_set(lab):
    reply = lab.generate()
    assert [c[0] for c in lab.og.calls] == ["Config", "clear_providers", "append_provider", "Model"]
    assert lab.og.calls[-1][3] == {}  # no CUDA variable set
    assert reply.runtime.gpu is None and reply.runtime.options["device_id"] is None


def test_gpu_memory_is_read_on_the_pinned_gpu_after_the_load_and_after_the_last_token(lab):
    ends = []
    lab.og.on_cuda_alloc = lambda n: (lab.alloc(n), ends.append(lab.used(1)))
    reply = lab.generate(gpu=1)
    g = reply.memory.gpu
    assert g.after_load_bytes == lab.og.weights_bytes == 300 * MIB  # the weights alone: no generator yet
    kv = 2 * 2 * 4 * (8 + 4) * 16 * 2  # 2 x layers x KV heads x max_length (prompt + generated) x head size x fp16
    assert g.end_bytes == lab.used(1) == ends[-1] == lab.og.weights_bytes + 3 * kv  # warm-up + 2 repetitions
    assert g.gpu == 1 and lab.used(0) is None  # GPU 0 was not touched nor read
    assert "on GPU 1 (the request's gpu), read after the load and after the last token" in g.source
    assert "NVML" in g.source and reply.memory.gpu_reason is None


def test_without_a_gpu_the_memory_is_summed_over_the_gpus(lab):
    lab.gpus[1].processes[:] = [("self", 5 * MIB)]  # something of this process's on the other GPU
    g = lab.generate().memory.gpu
    assert g.gpu is None and "every GPU, summed" in g.source
    assert g.after_load_bytes == lab.og.weights_bytes + 5 * MIB and g.end_bytes == lab.used(0) + 5 * MIB


def test_no_gpu_memory_on_the_cpu_or_without_nvml_and_the_reason_says_why(lab, monkeypatch):
    reply = lab.generate(runtime_options={"provider": "cpu"})
    assert reply.memory.gpu is None and reply.memory.gpu_reason == "not read: onnxruntime-genai ran on the CPU"
    assert reply.runtime.options["device_type"] == "CPU"
    monkeypatch.setitem(sys.modules, "pynvml", None)  # no nvidia-ml-py on the board
    reply = lab.generate(runtime_options={"provider": "cuda"})
    assert reply.memory.gpu is None
    assert reply.memory.gpu_reason == "not read: NVML: python module pynvml (nvidia-ml-py) is not installed"
