"""Thermal and clock snapshots on each board tree, compare() warnings with advice, wait_cool()."""

import copy
import os
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes"))

import boardkit as bk  # noqa: E402

from edgeprof_agent import thermal  # noqa: E402
from edgeprof_agent.sysfs import SysfsRoot  # noqa: E402


@pytest.fixture(autouse=True)
def _no_gpu_libs(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)


def snap(tmp_path, monkeypatch, name):
    d = bk.board(tmp_path, name)
    return d, thermal.snapshot(SysfsRoot(d), bk.fake_tools(tmp_path, d, monkeypatch))


def codes(warnings):
    return [w["code"] for w in warnings]


def test_nano_snapshot(tmp_path, monkeypatch):
    d, s = snap(tmp_path, monkeypatch, "jetson-nano-jp4")
    assert s["zones"]["thermal_zone1"] == {"type": "CPU-therm", "temp_c": 41.5}
    assert "ignored" in s["zones"]["thermal_zone4"]          # PMIC-Die: a fixed 100 C
    assert s["max_temp_c"] == 41.5
    assert s["cpufreq"]["cpu0"]["governor"] == "schedutil"
    assert s["cpufreq"]["cpu3"]["cur_khz"] == 1479000
    assert s["governors"] == ["schedutil"]
    assert s["nvpmodel"] == {"name": "MAXN", "id": 0}
    assert s["gpu_freq"] == {"name": "57000000.gpu", "cur_hz": 921600000, "min_hz": 76800000,
                             "max_hz": 921600000}
    assert s["jetson_clocks"]["locked"] is False and "inferred" in s["jetson_clocks"]["how"]
    assert s["fan"] == {"target_pwm": 0, "cur_pwm": 0}
    for absent in ("rpi", "nvml", "emc_hz"):
        assert absent not in s
    assert isinstance(s["t_ns"], int)


def test_orin_snapshots(tmp_path, monkeypatch):
    d, s = snap(tmp_path, monkeypatch, "orin-nano-jp6")
    assert s["zones"]["thermal_zone2"]["temp_c"] == -256.0 and "ignored" in s["zones"]["thermal_zone2"]
    assert s["max_temp_c"] == 45.5
    assert s["nvpmodel"] == {"name": "15W", "id": 0}
    assert s["fan"] == {"pwm1": 120}
    assert sorted(s["cpufreq"]) == ["cpu0", "cpu1", "cpu2", "cpu3", "cpu4", "cpu5"]
    d, s = snap(tmp_path, monkeypatch, "agx-orin-jp6")
    assert s["jetson_clocks"]["locked"] is True     # min == max on CPUs and GPU, as jetson_clocks leaves them


def test_rpi5_snapshot_decodes_vcgencmd(tmp_path, monkeypatch):
    d, s = snap(tmp_path, monkeypatch, "rpi5")
    assert s["rpi"]["throttled"] == {"bits": 0, "raw": "0x0", "now": [], "has_occurred": []}
    assert s["rpi"]["temp_c"] == 52.7
    assert s["rpi"]["arm_hz"] == 2400000000
    assert s["governors"] == ["ondemand"]
    assert "nvpmodel" not in s and "jetson_clocks" not in s and "gpu_freq" not in s
    assert s["max_temp_c"] == 52.7


def test_x86_snapshot_has_only_what_exists(tmp_path, monkeypatch):
    d, s = snap(tmp_path, monkeypatch, "x86-rapl")
    assert s["governors"] == ["powersave"]
    assert s["max_temp_c"] == 47.0
    for absent in ("rpi", "nvpmodel", "gpu_freq", "fan", "nvml", "jetson_clocks"):
        assert absent not in s


def test_decode_throttled_bits():
    t = thermal.decode_throttled(0x50005)
    assert t["now"] == ["under-voltage", "throttled"]
    assert t["has_occurred"] == ["under-voltage", "throttled"]
    assert t["raw"] == "0x50005"
    t = thermal.decode_throttled(0xF000F)
    assert len(t["now"]) == 4 and len(t["has_occurred"]) == 4


def test_parse_nvpmodel_q_variants():
    assert thermal.parse_nvpmodel_q("NV Power Mode: MAXN\n0\n") == {"name": "MAXN", "id": 0}
    assert thermal.parse_nvpmodel_q("NV Fan Mode:quiet\nNV Power Mode: 7W\n1\n") == {"name": "7W", "id": 1}
    assert thermal.parse_nvpmodel_q("garbage") is None


def _set(d, rel, text):
    with open(os.path.join(d, rel), "w") as f:
        f.write(text)


def test_compare_rpi_throttling_during_run(tmp_path, monkeypatch):
    d = bk.board(tmp_path, "rpi5")
    root, tools = SysfsRoot(d), bk.fake_tools(tmp_path, d, monkeypatch)
    before = thermal.snapshot(root, tools)
    _set(d, "tools/vcgencmd/get_throttled.txt", "throttled=0x50005\n")
    after = thermal.snapshot(root, tools)
    w = thermal.compare(before, after)
    assert codes(w) == ["rpi_throttled_now", "rpi_throttled_during_run"]
    assert "under-voltage" in w[0]["message"] and "power supply" in w[0]["message"]
    assert "heatsink" in w[1]["message"]


def test_compare_sticky_bits_from_before_the_run(tmp_path, monkeypatch):
    d = bk.board(tmp_path, "rpi4-ina219")     # get_throttled=0x50000: happened since boot, not now
    root, tools = SysfsRoot(d), bk.fake_tools(tmp_path, d, monkeypatch)
    s = thermal.snapshot(root, tools)
    w = thermal.compare(s, copy.deepcopy(s))
    assert codes(w) == ["rpi_throttle_history"]
    assert "reboot" in w[0]["message"]


def test_compare_temperature_rise(tmp_path, monkeypatch):
    d = bk.board(tmp_path, "orin-nano-jp6")
    root, tools = SysfsRoot(d), bk.fake_tools(tmp_path, d, monkeypatch)
    before = thermal.snapshot(root, tools)
    _set(d, "sys/class/thermal/thermal_zone1/temp", "63500\n")       # gpu-thermal +19.5 C
    _set(d, "sys/class/thermal/thermal_zone0/temp", "55000\n")       # cpu-thermal +10 C: below threshold
    after = thermal.snapshot(root, tools)
    w = thermal.compare(before, after)
    assert codes(w) == ["temperature_rise"]
    assert "gpu-thermal" in w[0]["message"] and "19.5" in w[0]["message"] and "--cooldown" in w[0]["message"]
    assert codes(thermal.compare(before, after, temp_rise_c=5.0)) == ["temperature_rise", "temperature_rise"]


def test_compare_mode_and_governor_changes():
    before = {"nvpmodel": {"name": "MAXN", "id": 0}, "governors": ["schedutil"]}
    after = {"nvpmodel": {"name": "5W", "id": 1}, "governors": ["performance"]}
    assert codes(thermal.compare(before, after)) == ["nvpmodel_changed", "governor_changed"]
    assert thermal.compare(before, before) == []
    assert thermal.compare(None, {}) == []


def test_nvml_clock_reasons_in_snapshot_and_compare(tmp_path, monkeypatch):
    monkeypatch.delitem(sys.modules, "pynvml")
    nv = bk.use_fake_module(monkeypatch, "pynvml")
    nv.fake_reset([nv.FakeGpu("Tesla T4", temp_c=52, reasons=nv.nvmlClocksEventReasonGpuIdle)])
    d = bk.board(tmp_path, "x86-rapl")
    root = SysfsRoot(d)
    before = thermal.snapshot(root, bk.no_tools(tmp_path))
    assert before["nvml"][0]["clock_reasons"] == ["GpuIdle"]
    assert before["nvml"][0]["temp_c"] == 52.0 and before["nvml"][0]["sm_mhz"] == 1590
    assert before["max_temp_c"] == 52.0
    nv.fake_state().gpus[0].reasons = nv.nvmlClocksEventReasonHwSlowdown | nv.nvmlClocksEventReasonSwThermalSlowdown
    nv.fake_state().gpus[0].temp_c = 83
    after = thermal.snapshot(root, bk.no_tools(tmp_path))
    w = thermal.compare(before, after)
    assert codes(w) == ["gpu_clock_reasons", "temperature_rise"]
    assert "HwSlowdown, SwThermalSlowdown" in w[0]["message"] and "cooling" in w[0]["message"]
    assert nv.fake_state().init_depth == 0


def test_wait_cool_returns_at_once_when_cool_and_ignores_pmic_die(tmp_path):
    d = bk.board(tmp_path, "jetson-nano-jp4")     # PMIC-Die says 100 C forever
    r = thermal.wait_cool(SysfsRoot(d), bk.no_tools(tmp_path), 50.0, 5.0)
    assert r["cooled"] is True and r["waited_s"] < 5.0 and r["start_c"] == 41.5


def test_wait_cool_times_out(tmp_path):
    d = bk.board(tmp_path, "x86-rapl")
    logs = []
    r = thermal.wait_cool(SysfsRoot(d), bk.no_tools(tmp_path), 40.0, 0.3, log=logs.append, poll_s=0.05)
    assert r["cooled"] is False and r["end_c"] == 47.0
    assert any("measuring anyway" in m for m in logs)


def test_wait_cool_waits_until_cool(tmp_path):
    d = bk.board(tmp_path, "x86-rapl")

    def cool_down():
        time.sleep(0.2)
        _set(d, "sys/class/thermal/thermal_zone1/temp", "38000\n")

    th = threading.Thread(target=cool_down)
    th.start()
    r = thermal.wait_cool(SysfsRoot(d), bk.no_tools(tmp_path), 40.0, 30.0, poll_s=0.05)
    th.join()
    assert r["cooled"] is True and r["end_c"] == 38.0 and r["start_c"] == 47.0


def test_wait_cool_without_sensors(tmp_path):
    (tmp_path / "empty" / "sys").mkdir(parents=True)
    r = thermal.wait_cool(SysfsRoot(str(tmp_path / "empty")), bk.no_tools(tmp_path), 40.0, 1.0)
    assert r["cooled"] is None


def test_wait_cool_uses_vcgencmd_when_no_zone(tmp_path, monkeypatch):
    d = bk.board(tmp_path, "rpi5")
    os.remove(os.path.join(d, "sys/class/thermal/thermal_zone0"))
    r = thermal.wait_cool(SysfsRoot(d), bk.fake_tools(tmp_path, d, monkeypatch), 60.0, 1.0)
    assert r["cooled"] is True and r["start_c"] == 52.7


@pytest.mark.parametrize("name", ["jetson-nano-jp4", "orin-nano-jp6", "agx-orin-jp6", "rpi4-ina219", "rpi5",
                                  "x86-rapl"])
def test_a_snapshot_is_its_record_on_every_board(tmp_path, monkeypatch, name):
    """What each probe reports is a record of messages.py (ThermalZone, CpuFreq, GpuFreq, FanState, NvpModel,
    JetsonClocks, RpiState, NvmlGpu): the snapshot parses strictly and its wire form is the snapshot itself
    (absent values absent; only the snapshot's own top-level None fields are written out)."""
    from edgeprof_agent import messages as m

    _, s = snap(tmp_path, monkeypatch, name)
    rec = m.ThermalSnapshot.from_dict(copy.deepcopy(s))
    assert {k: v for k, v in rec.to_dict().items() if v is not None} == s
    assert all(isinstance(z, m.ThermalZone) for z in (rec.zones or {}).values())


def test_a_snapshot_with_an_nvidia_gpu_is_its_record(tmp_path, monkeypatch):
    from edgeprof_agent import messages as m

    nv = bk.use_fake_module(monkeypatch, "pynvml")
    nv.fake_reset([nv.FakeGpu(reasons=0x1 | 0x20)])
    _, s = snap(tmp_path, monkeypatch, "x86-rapl")
    assert s["nvml"][0]["clock_reasons"] == ["GpuIdle", "SwThermalSlowdown"]
    rec = m.ThermalSnapshot.from_dict(copy.deepcopy(s))
    assert rec.nvml[0].clock_reasons_bits == 0x21 and rec.nvml[0].index == 0
    assert {k: v for k, v in rec.to_dict().items() if v is not None} == s
