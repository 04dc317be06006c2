"""NVML per window of a sustained run (windows.py, probes/nvml.py GpuTelemetry): the telemetry thread reads the
first NVIDIA GPU's power, temperature, SM and graphics clocks and clock event reasons each tick, and each window
carries the figures of the readings taken inside it only. Driven through the pynvml double
(tests/agent/fakes/modules/pynvml.py, written from nvidia-ml-py 12.575.51's pynvml.py) with a GPU that throttles
at a known time (the host's onset from these fields: tests/unit/test_report_sustained.py)."""

import os
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes"))

import boardkit as bk  # noqa: E402

from edgeprof_agent import windows  # noqa: E402
from edgeprof_agent.messages import ScenarioSpec  # noqa: E402
from edgeprof_agent.probes import nvml  # noqa: E402
from edgeprof_agent.sysfs import SysfsRoot  # noqa: E402

S = 1000000000
TRIP_S = 1.5  # the GPU hits its thermal limit 1.5 s into the run: window 1 of 1 s windows


def _throttling_gpu(nv, t0, **kw):
    """650 W at 1980 MHz, heating 62 -> 86 °C; from TRIP_S: 1410 MHz, SwThermalSlowdown | SwPowerCap, 500 W."""
    def after(t):
        return t - t0 >= TRIP_S
    return nv.FakeGpu("NVIDIA H200", power_fn=lambda t: 500.0 if after(t) else 650.0,
                      temp_c=lambda t: min(86.0, 62.0 + 8.0 * (t - t0)),
                      sm_mhz=lambda t: 1410 if after(t) else 1980,
                      reasons=lambda t: (0x20 | 0x4) if after(t) else 0, **kw)


def test_each_window_carries_the_nvml_readings_taken_inside_it(tmp_path, monkeypatch):
    nv = bk.use_fake_module(monkeypatch, "pynvml")
    t0 = time.perf_counter()
    nv.fake_reset([_throttling_gpu(nv, t0)])
    sc = ScenarioSpec(name="sustained", duration_s=4.0, sustained_window_s=1.0)
    sched, reply = windows.sustained_loop(lambda: time.sleep(0.005), sc, SysfsRoot(str(tmp_path)), None,
                                          progress=False)
    assert reply.nvml_gpu == "NVIDIA H200" and len(reply.windows) == 4
    assert nv.fake_state().init_depth == 0  # nvmlInit paired with nvmlShutdown
    w = reply.windows
    assert all(x.n_nvml == x.n_readings >= 3 for x in w)  # read every 0.25 s
    # before the trip and after it, every reading agrees: nothing from a neighbouring window leaks in
    assert (w[0].nvml_sm_mhz, w[0].nvml_graphics_mhz, w[0].nvml_reasons, w[0].nvml_w) == (1980.0, 1980.0, 0, 650.0)
    for x in w[2:]:
        assert (x.nvml_sm_mhz, x.nvml_reasons, x.nvml_w) == (1410.0, 0x24, 500.0)
    assert 1410.0 < w[1].nvml_sm_mhz < 1980.0 and w[1].nvml_reasons == 0x24  # the trip's window: both kinds
    assert w[0].nvml_temp_c < 70.0 and w[3].nvml_temp_c == 86.0
    assert all(x.temp_c is None and x.cpu_mhz is None for x in w)  # this tree has no zones or cpufreq

    assert sum(x.count for x in w) == sched.queries


def test_window_figures_are_the_means_of_the_readings_inside_it():
    """cut() on readings placed by hand: a window's NVML figures are those of its own readings, never
    interpolated; a reading without NVML (None) is not counted; the reason bits are the OR of its readings."""
    def r(t_s, **g):
        return (int(t_s * S), {"zones": {}, "cpu_khz": {}, "gpu_hz": None, "throttled": None, "nvml": g or None})

    readings = [r(0.1, w=100.0, temp_c=50.0, sm_mhz=1900.0, reasons=0), r(0.6, w=200.0, temp_c=52.0, sm_mhz=1700.0,
                                                                           reasons=0x1),
                r(1.2), r(1.7, w=90.0, sm_mhz=1200.0, reasons=0x40)]
    w0, w1, w2 = windows.cut(0, S, 3, [0, int(1.5 * S)], readings)
    assert (w0.n_nvml, w0.nvml_w, w0.nvml_temp_c, w0.nvml_sm_mhz, w0.nvml_reasons) == (2, 150.0, 51.0, 1800.0, 1)
    assert (w1.n_readings, w1.n_nvml, w1.nvml_w, w1.nvml_temp_c, w1.nvml_reasons) == (2, 1, 90.0, None, 0x40)
    assert (w2.n_nvml, w2.nvml_w, w2.nvml_reasons) == (0, None, None)


def test_a_gpu_without_power_readings_still_gives_clocks_and_reasons(monkeypatch):
    nv = bk.use_fake_module(monkeypatch, "pynvml")
    nv.fake_reset([nv.FakeGpu("Tesla T4", power_supported=False, sm_mhz=1590, reasons=0x1)],
                  module_version="11.495.46", driver_version="470.57.02")  # ...ClocksThrottleReasons only
    gpu = nvml.GpuTelemetry.open()
    try:
        assert gpu is not None and gpu.name == "Tesla T4"
        assert gpu.read() == {"temp_c": 45.0, "sm_mhz": 1590.0, "graphics_mhz": 1590.0, "reasons": 1}
    finally:
        gpu.close()
    assert nv.fake_state().init_depth == 0


@pytest.mark.parametrize("how", ["not installed", "no driver", "no GPU"])
def test_no_nvml_no_gpu_fields(tmp_path, monkeypatch, how):
    if how == "not installed":
        monkeypatch.setitem(sys.modules, "pynvml", None)
    else:
        nv = bk.use_fake_module(monkeypatch, "pynvml")
        nv.fake_reset([] if how == "no GPU" else None, driver_loaded=how != "no driver")
    assert nvml.GpuTelemetry.open() is None
    sc = ScenarioSpec(name="sustained", duration_s=0.4, sustained_window_s=0.2)
    _sched, reply = windows.sustained_loop(lambda: time.sleep(0.01), sc, SysfsRoot(str(tmp_path)), None,
                                           progress=False)
    assert reply.nvml_gpu is None
    assert [(x.n_nvml, x.nvml_w, x.nvml_sm_mhz, x.nvml_reasons) for x in reply.windows] == [(0, None, None, None)] * 2
