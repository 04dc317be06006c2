"""gpus.py's choice of the GPU a run uses, against the pynvml double (tests/agent/fakes/modules/pynvml.py) and the
two-T4 board tree (tests/data/boards/x86-2xt4: the driver's /proc/driver/nvidia/gpus): NVML's index N names the
GPU (its name, UUID and PCI bus id), the driver's list in PCI bus order stands in without NVML, an index beyond
the GPUs is one BAD_REQUEST line, CUDA is pinned by UUID (or by PCI order without one); the NVML probe, the
per-process memory and the sustained telemetry read GPU N."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes"))

import boardkit as bk  # noqa: E402

from edgeprof_agent import gpus, memory, power  # noqa: E402
from edgeprof_agent.probes import nvml  # noqa: E402
from edgeprof_agent.protocol import OpError  # noqa: E402
from edgeprof_agent.sysfs import SysfsRoot  # noqa: E402
from edgeprof_agent.vocab import ErrorKind  # noqa: E402

BOARD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "boards", "x86-2xt4")
U = ("GPU-6a5f0e44-21c4-9b3e-1f0d-3c0a4b5e6f70", "GPU-6a5f0e44-21c4-9b3e-1f0d-3c0a4b5e6f71")


def two_t4(nv):
    nv.fake_reset([nv.FakeGpu(uuid=U[0], bus_id="00000000:3B:00.0", power_fn=lambda t: 30.0,
                              processes=[(4242, 100 * 2 ** 20)], temp_c=41),
                   nv.FakeGpu(uuid=U[1], bus_id="00000000:AF:00.0", power_fn=lambda t: 55.0,
                              processes=[(4242, 700 * 2 ** 20)], temp_c=63)])


def test_the_driver_list_is_in_pci_order_with_uuids():
    found = gpus.nvidia_gpus(SysfsRoot(BOARD))
    assert found == [{"name": "Tesla T4", "kind": "discrete", "bus": "0000:3b:00.0", "uuid": U[0]},
                     {"name": "Tesla T4", "kind": "discrete", "bus": "0000:af:00.0", "uuid": U[1]}]


def test_choose_reads_nvml_index_n(monkeypatch):
    nv = bk.use_fake_module(monkeypatch, "pynvml")
    two_t4(nv)
    assert gpus.choose(SysfsRoot(BOARD), 1) == {"index": 1, "name": "Tesla T4", "uuid": U[1],
                                                "pci_bus_id": "00000000:AF:00.0", "source": "NVML",
                                                "kind": "discrete"}
    assert nv.fake_state().init_depth == 0
    with pytest.raises(OpError) as e:
        gpus.choose(SysfsRoot(BOARD), 2)
    assert e.value.type == ErrorKind.BAD_REQUEST
    assert e.value.message == "gpu 2: this device has 2 NVIDIA GPU(s) (indices 0-1, as nvidia-smi numbers them)"


def test_choose_without_nvml_takes_the_driver_list(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    got = gpus.choose(SysfsRoot(BOARD), 1)
    assert (got["index"], got["uuid"], got["pci_bus_id"]) == (1, U[1], "0000:af:00.0")
    assert got["source"].startswith("/proc/driver/nvidia/gpus")
    with pytest.raises(OpError) as e:
        gpus.choose(SysfsRoot(str(tmp_path)), 0)
    assert e.value.message.startswith("gpu 0: this device has 0 NVIDIA GPU(s)") and "leave out --gpu" in e.value.hint


def test_pin_cuda_by_uuid_else_pci_order():
    env = {"CUDA_VISIBLE_DEVICES": "0,1"}
    assert gpus.pin_cuda({"index": 1, "uuid": U[1], "kind": "discrete"}, env) == {"CUDA_VISIBLE_DEVICES": U[1]}
    assert env == {"CUDA_VISIBLE_DEVICES": U[1]}
    env = {}
    assert gpus.pin_cuda({"index": 1, "kind": "discrete"}, env) == {"CUDA_DEVICE_ORDER": "PCI_BUS_ID",
                                                                      "CUDA_VISIBLE_DEVICES": "1"}
    assert gpus.pin_cuda({"index": 0, "kind": "integrated"}, {}) == {}


def test_power_memory_and_telemetry_read_gpu_n(monkeypatch, tmp_path):
    nv = bk.use_fake_module(monkeypatch, "pynvml")
    two_t4(nv)
    root = SysfsRoot(str(tmp_path))
    mon = power.PowerMonitor.create({"source": "nvml", "device": 1}, root, bk.no_tools(tmp_path))
    assert mon.available and mon.probe.rail == "gpu1"
    total, _rails, w = mon.probe.read()
    assert w == 55.0
    mon.close()
    assert memory.gpu_memory(4242, 1) == 700 * 2 ** 20
    assert memory.gpu_memory(4242, 0) == 100 * 2 ** 20
    assert memory.gpu_memory(4242) == 800 * 2 ** 20  # no GPU named: summed, as before
    tel = nvml.GpuTelemetry.open(1)
    assert tel.read()["w"] == 55.0 and tel.read()["temp_c"] == 63.0
    tel.close()
    assert nv.fake_state().init_depth == 0


def test_a_run_naming_a_gpu_pins_cuda_while_it_runs_and_says_which(monkeypatch, tmp_path):
    """worker.run_measurement with gpu=1 (the null runtime, whose load sees the run's environment): CUDA is pinned
    to GPU 1's UUID while the run loads, NVML's power is GPU 1's, the reply's runtime.gpu names it, and the
    process's environment is as it was afterwards."""
    from edgeprof_agent import worker
    from edgeprof_agent.backends import null as null_backend
    from edgeprof_agent.messages import RunRequest
    from edgeprof_agent.tools import ToolRunner

    nv = bk.use_fake_module(monkeypatch, "pynvml")
    two_t4(nv)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    seen = []
    real_load = null_backend.Backend.load

    def load(self, path, inputs, options):
        seen.append(os.environ.get("CUDA_VISIBLE_DEVICES"))
        return real_load(self, path, inputs, options)

    monkeypatch.setattr(null_backend.Backend, "load", load)
    req = RunRequest(runtime="null", min_duration_s=0.05, min_queries=5, warmup_s=0, idle_s=0, gpu=1,
                     power={"source": "nvml"})
    reply = worker.run_measurement(req, str(tmp_path), SysfsRoot(BOARD), ToolRunner())
    assert seen == [U[1]]
    assert reply.runtime.gpu["uuid"] == U[1] and reply.runtime.gpu["cuda_env"] == {"CUDA_VISIBLE_DEVICES": U[1]}
    assert reply.power.rail == "gpu1" and reply.power.mean_w == pytest.approx(55.0, rel=1e-3)  # mJ counter over 0.05 s
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "0,1"
    with pytest.raises(OpError) as e:
        worker.run_measurement(RunRequest(runtime="null", gpu=3), str(tmp_path), SysfsRoot(BOARD), ToolRunner())
    assert e.value.message.startswith("gpu 3: this device has 2 NVIDIA GPU(s)")
