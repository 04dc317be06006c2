"""memory.py: /proc/meminfo through SysfsRoot, the system-wide peak watcher (Jetson unified memory), NVML
per-process GPU memory; a vermin check that the telemetry modules stay Python-3.6-safe, and, where a
Python 3.6 interpreter exists (pyenv), an end-to-end run of the telemetry on every board tree under it."""

import glob
import os
import pwd
import shutil
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes"))

import boardkit as bk  # noqa: E402

from edgeprof_agent import memory, power  # noqa: E402
from edgeprof_agent.sysfs import SysfsRoot  # noqa: E402

AGENT = os.path.join(bk.AGENTS, "edgeprof_agent")
MINE = ["sysfs.py", "tools.py", "sampler.py", "power.py", "thermal.py", "memory.py", "probes"]


def test_meminfo_in_bytes(tmp_path):
    d = bk.board(tmp_path, "orin-nano-jp6")
    info = memory.meminfo(SysfsRoot(d))
    assert info["MemTotal"] == 7802112 * 1024
    assert memory.system_used_bytes(SysfsRoot(d)) == (7802112 - 6120340) * 1024


def test_system_memory_watch_sees_the_peak(tmp_path):
    d = bk.board(tmp_path, "orin-nano-jp6")
    path = os.path.join(d, "proc", "meminfo")
    with open(path) as f:
        original = f.read()
    w = memory.SystemMemoryWatch(SysfsRoot(d), rate_hz=100)
    w.start()
    bk.write_atomic(path, original.replace("6120340", "5096340"))    # 1000 MiB more in use (model load)
    time.sleep(0.15)
    bk.write_atomic(path, original)                                   # freed again before the end
    r = w.stop()
    assert r["before_bytes"] == (7802112 - 6120340) * 1024
    assert r["peak_delta_bytes"] == 1024000 * 1024
    assert "system-wide" in r["method"] and r["n_samples"] >= 2


def test_gpu_memory_of_a_process(monkeypatch):
    nv = bk.use_fake_module(monkeypatch, "pynvml")
    nv.fake_reset([nv.FakeGpu(processes=[(4242, 512 * 2 ** 20), (7, 1)]),
                   nv.FakeGpu(processes=[(4242, 2 ** 20)])])
    assert memory.gpu_memory(4242) == 513 * 2 ** 20
    assert memory.gpu_memory(99) is None
    assert nv.fake_state().init_depth == 0


# (nvidia-ml-py, driver): an old module calls `_v2`; a new one calls `_v3`, which a driver before R510 lacks
NVML_GENERATIONS = [("11.495.46", "470.256.02"), ("11.495.46", "535.183.01"), ("12.575.51", "470.256.02"),
                    ("12.575.51", "535.183.01")]


@pytest.mark.parametrize("module_version, driver_version", NVML_GENERATIONS)
def test_gpu_memory_on_both_api_generations(monkeypatch, module_version, driver_version):
    nv = bk.use_fake_module(monkeypatch, "pynvml")
    nv.fake_reset([nv.FakeGpu(processes=[(4242, 512 * 2 ** 20)])], module_version=module_version,
                  driver_version=driver_version)
    assert memory.gpu_memory(4242) == 512 * 2 ** 20
    assert nv.fake_state().init_depth == 0


def test_gpu_memory_without_nvml(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    assert memory.gpu_memory(os.getpid()) is None


def test_telemetry_modules_are_python36_safe():
    vermin = shutil.which("vermin") or os.path.join(os.path.dirname(sys.executable), "vermin")
    if not os.path.exists(vermin):
        pytest.skip("vermin is not installed")
    out = subprocess.run([vermin, "-t=3.6-", "--no-tips", "--violations"] + [os.path.join(AGENT, m) for m in MINE],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def _python36():
    home = pwd.getpwuid(os.getuid()).pw_dir     # HOME is redirected for tests
    cands = sorted(glob.glob(os.path.join(home, ".pyenv", "versions", "3.6*", "bin", "python3.6")))
    cands.append(shutil.which("python3.6"))
    for exe in reversed([c for c in cands if c]):
        try:
            out = subprocess.run([exe, "-c", "import sys; print(sys.version_info[:2] == (3, 6))"],
                                 capture_output=True, text=True, timeout=30)
        except OSError:
            continue
        if out.stdout.strip() == "True":    # a pyenv shim without 3.6 selected fails here
            return exe
    return None


def test_telemetry_runs_under_python36():
    py36 = _python36()
    if py36 is None:
        pytest.skip("no Python 3.6 interpreter here")
    out = subprocess.run([py36, os.path.join(bk.HERE, "smoke36.py"), bk.REPO], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0 and out.stdout.strip().endswith("OK"), out.stdout + out.stderr


def test_the_power_sources_the_record_accepts_are_the_monitors():
    from edgeprof_agent.vocab import POWER_SOURCES

    assert set(POWER_SOURCES) == set(power.SOURCE_NAMES)


def test_a_bad_power_block_is_a_reason_named_by_the_record():
    mon = power.PowerMonitor.create({"source": "jtop", "unit": "kW"}, None, None)
    assert not mon.available and mon.reason.startswith("power.unit: must be W or mW")


def test_the_memory_baseline_note_names_what_the_process_holds():
    note = memory.baseline_note({"numpy": object()})
    assert note.startswith("Python ") and note.endswith("runtimes imported before load: numpy")
