"""The agent's NVML helpers against the REAL nvidia-ml-py of the x86-t4 stack, over a stand-in driver library.

tests/stacks/data/fake_nvml.c is compiled as libnvidia-ml.so.1 in two generations: like an R535 driver, and like
an R470 driver that lacks nvmlDeviceGetCurrentClocksEventReasons and nvmlDeviceGetComputeRunningProcesses_v3.
On the old one the real module raises NVMLError_FunctionNotFound / NVMLLibraryMismatchError, and the agent must
still read clock reasons (…ThrottleReasons) and per-process GPU memory (`_v2`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.stacks

SCRIPT = r"""
import json, os
from edgeprof_agent.probes import nvml
from edgeprof_agent import memory
nv, reason = nvml.load()
assert nv is not None, reason
h = nv.nvmlDeviceGetHandleByIndex(0)
raw = {}
for name in ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetComputeRunningProcesses"):
    try:
        getattr(nv, name)(h)
        raw[name] = "ok"
    except Exception as e:
        raw[name] = type(e).__name__
out = {"module": nv.__name__, "raw": raw, "reasons": nvml.clock_reasons(nv, h),
       "state": nvml.device_state(nv)[0].get("clock_reasons")}
nvml.shutdown(nv)
out["gpu_memory"] = memory.gpu_memory(os.getpid())
print(json.dumps(out))
"""


@pytest.mark.parametrize("driver, raw", [
    ("R470", {"nvmlDeviceGetCurrentClocksEventReasons": "NVMLError_FunctionNotFound",
              "nvmlDeviceGetComputeRunningProcesses": "NVMLLibraryMismatchError"}),
    ("R535", {"nvmlDeviceGetCurrentClocksEventReasons": "ok", "nvmlDeviceGetComputeRunningProcesses": "ok"}),
])
def test_real_pynvml_on_old_and_new_drivers(driver: str, raw: dict[str, str], tmp_path: Path,
                                            stack_entry: Callable[[str], dict[str, object]]) -> None:
    python = str(stack_entry("x86-t4")["python"])
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "a C compiler (build-essential) is needed to build the stand-in libnvidia-ml.so.1"
    lib = tmp_path / "libnvidia-ml.so.1"
    flags = ["-DDRIVER_R535"] if driver == "R535" else []
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), *flags, str(Path(__file__).parent / "data" / "fake_nvml.c")],
                   check=True, capture_output=True, timeout=120)
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path))
    p = subprocess.run([python, "-c", SCRIPT], cwd=REPO / "agents", env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout)
    assert out["module"] == "pynvml" and out["raw"] == raw  # the real module's behaviour on this driver
    assert out["reasons"] == 0x21 and out["state"] == ["GpuIdle", "SwThermalSlowdown"]
    assert out["gpu_memory"] == 512 * 2 ** 20
