"""Sampler and PowerMonitor: energy over a window against a known P(t), idle, summaries, the real thread.

Energy tests drive the sampler on a fake clock (no sleeping, jittered tick spacing) while tests/agent/fakes
rewrite the board's sensor files (or a tool's captured output) to show P(t) = base + amp sin(...); the exact
energy of the window is known analytically and the integrated one must be within 1 %.
"""

import json
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes"))

import boardkit as bk  # noqa: E402

from edgeprof_agent import clock, power  # noqa: E402
from edgeprof_agent.sampler import Sampler  # noqa: E402
from edgeprof_agent.sysfs import SysfsRoot  # noqa: E402

SUMMARY_KEYS = {"source", "rail", "total_kind", "covers", "rate_hz", "window_s", "n_samples",
                "n_dropped_nonpositive", "mean_w", "p95_w", "idle_w", "dynamic_w", "energy_j",
                "energy_mj_per_inference", "inferences_per_joule", "perf_per_watt", "method", "rails", "trace",
                "idle_trace"}


@pytest.fixture(autouse=True)
def _no_gpu_libs(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    monkeypatch.setitem(sys.modules, "jtop", None)


def monitor_on(tmp_path, monkeypatch, name, config=None, wave=None):
    d = bk.board(tmp_path, name)
    bw = bk.BoardWave(d, name, wave or bk.Wave())
    bw.set_time(1000.0)
    mon = power.PowerMonitor.create(config, SysfsRoot(d), bk.fake_tools(tmp_path, d, monkeypatch))
    assert mon.available, mon.reason
    return mon, bw


def run_window(mon, bw, idle_s=2.0, lead_s=0.5, window_s=4.0, tail_s=0.5, t_start=1000.0):
    """idle, then sampling from t_start through a window [t0, t1] that is not aligned to any tick."""
    fc = bk.FakeClock(t_start)
    mon.sampler.clock = fc.now_ns
    mon.sampler.wait = bk.fake_wait(fc, bw, seed=3)
    bw.set_time(fc.s)
    mon.measure_idle(idle_s)
    idle_span = (t_start, fc.s)
    mon.sampler.reset()
    t_run = fc.s
    mon.sampler.tick()                            # what start() does before the thread
    mon.sampler.run_for(lead_s + window_s + tail_s)
    t0 = t_run + lead_s + 0.0123
    t1 = t0 + window_s
    return t0, t1, idle_span


@pytest.mark.parametrize("name,config", [
    ("jetson-nano-jp4", None),
    ("orin-nano-jp6", None),
    ("agx-orin-jp6", None),
    ("rpi4-ina219", None),
    ("rpi5", None),
    ("x86-rapl", None),
])
def test_energy_within_1_percent_of_truth(tmp_path, monkeypatch, name, config):
    wave = bk.Wave(base=5.0, amp=1.5, period=0.5 if name not in ("rpi5",) else 2.0)
    mon, bw = monitor_on(tmp_path, monkeypatch, name, config, wave)
    t0, t1, idle = run_window(mon, bw, window_s=4.0 if name != "rpi5" else 6.0)
    n = 1234
    s = mon.summary(int(t0 * 1e9), int(t1 * 1e9), n, t1 - t0)
    truth = wave.energy(t0, t1)
    assert s["energy_j"] == pytest.approx(truth, rel=0.01)
    assert s["method"] == ("counter" if name == "x86-rapl" else "trapezoid")
    assert SUMMARY_KEYS <= set(s)
    json.dumps([s, mon.describe()])               # goes over the JSON-lines protocol as is
    assert s["window_s"] == pytest.approx(t1 - t0)
    assert s["mean_w"] == pytest.approx(truth / (t1 - t0), rel=0.01)
    assert s["idle_w"] == pytest.approx(wave.energy(*idle) / (idle[1] - idle[0]), rel=0.02)
    assert s["dynamic_w"] == pytest.approx(s["mean_w"] - s["idle_w"])
    assert s["energy_mj_per_inference"] == pytest.approx(s["energy_j"] * 1000.0 / n)
    assert s["inferences_per_joule"] == pytest.approx(n / s["energy_j"])
    assert s["perf_per_watt"] == pytest.approx(n / (t1 - t0) / s["mean_w"])
    assert s["n_dropped_nonpositive"] == 0
    assert s["p95_w"] == pytest.approx(wave.base + wave.amp * 0.95, abs=0.35)
    tr = s["trace"]
    assert len(tr["t_s"]) <= 500 and tr["t_s"][0] == 0.0
    assert tr["t_s"][-1] == pytest.approx(t1 - t0, abs=1e-4)
    assert s["idle_trace"] and s["idle_trace"]["t_s"][0] == 0.0
    expected_rate = mon.rate_hz
    assert 0.7 * expected_rate < s["rate_hz"] < 1.3 * expected_rate
    assert not [w for w in s["warnings"] if "cover" in w]


def test_rails_are_kept_beside_the_total(tmp_path, monkeypatch):
    wave = bk.Wave(base=6.0, amp=1.0, period=0.7)
    mon, bw = monitor_on(tmp_path, monkeypatch, "orin-nano-jp6", None, wave)
    t0, t1, _ = run_window(mon, bw)
    s = mon.summary(int(t0 * 1e9), int(t1 * 1e9), 10)
    mean = wave.energy(t0, t1) / (t1 - t0)
    assert s["rail"] == "VDD_IN"
    assert s["rails"]["VDD_IN"] == pytest.approx(mean, rel=0.01)
    assert s["rails"]["VDD_CPU_GPU_CV"] == pytest.approx(0.3 * mean, rel=0.01)
    assert s["rails"]["VDD_SOC"] == pytest.approx(0.4 * mean, rel=0.01)
    assert s["mean_w"] == pytest.approx(s["rails"]["VDD_IN"])      # never VDD_IN + sub-rails


def test_agx_sum_total_and_label(tmp_path, monkeypatch):
    wave = bk.Wave(base=9.0, amp=2.0, period=1.0)
    mon, bw = monitor_on(tmp_path, monkeypatch, "agx-orin-jp6", None, wave)
    t0, t1, _ = run_window(mon, bw)
    s = mon.summary(int(t0 * 1e9), int(t1 * 1e9), 10)
    assert s["rail"] == "sum(VDD_GPU_SOC,VDD_CPU_CV,VIN_SYS_5V0,VDDQ_VDD2_1V8AO)"
    assert s["total_kind"] == "sum-of-rails"
    assert sum(s["rails"].values()) == pytest.approx(s["mean_w"], rel=1e-6)


def test_command_source_within_1_percent(tmp_path, monkeypatch):
    d = bk.board(tmp_path, "rpi4-ina219")
    wave = bk.Wave(base=4.0, amp=0.8, period=3.0)
    bw = bk.BoardWave(d, "powermeter", wave)
    bw.set_time(1000.0)
    mon = power.PowerMonitor.create({"source": "command", "command": "powermeter read", "unit": "mW"},
                                    SysfsRoot(d), bk.fake_tools(tmp_path, d, monkeypatch))
    assert mon.available, mon.reason
    t0, t1, _ = run_window(mon, bw, idle_s=1.0, window_s=6.0)
    s = mon.summary(int(t0 * 1e9), int(t1 * 1e9), 100)
    assert s["source"] == "command" and s["rate_hz"] < 12
    assert s["energy_j"] == pytest.approx(wave.energy(t0, t1), rel=0.01)


def test_rapl_energy_through_a_wrap(tmp_path, monkeypatch):
    # package-0 starts 3 J below max_energy_range_uj: at 5 W it wraps within the first second
    wave = bk.Wave(base=5.0, amp=1.0, period=0.8)
    mon, bw = monitor_on(tmp_path, monkeypatch, "x86-rapl", None, wave)
    bw.t_origin = 1000.0
    t0, t1, _ = run_window(mon, bw, idle_s=0.2, lead_s=0.1, window_s=3.0)
    with open(os.path.join(bw.dir, "sys/class/powercap/intel-rapl:0/energy_uj")) as f:
        assert int(f.read()) < 30 * 10 ** 6            # it did wrap
    s = mon.summary(int(t0 * 1e9), int(t1 * 1e9), 10)
    assert s["energy_j"] == pytest.approx(wave.energy(t0, t1), rel=0.01)
    assert s["rails"]["package-0:core"] == pytest.approx(0.6 * s["mean_w"], rel=0.01)


def _nvml_monitor(monkeypatch, fc, wave, update_s):
    monkeypatch.delitem(sys.modules, "pynvml")
    nv = bk.use_fake_module(monkeypatch, "pynvml")
    nv.fake_reset([nv.FakeGpu("Tesla T4", power_fn=wave.power, energy_fn=wave.energy, energy_update_s=update_s)],
                  clock=lambda: fc.s)
    mon = power.PowerMonitor.create({"source": "nvml"}, None, None)
    assert mon.available, mon.reason
    return mon


class _NoFiles:
    def set_time(self, t):
        pass


@pytest.mark.parametrize("update_s", [0.0, 0.1])
def test_nvml_counter_within_1_percent(monkeypatch, update_s):
    """The counter updates every 100 ms like the real one: edges come from the power readings."""
    wave = bk.Wave(base=40.0, amp=12.0, period=1.3)
    fc = bk.FakeClock(1000.0)
    mon = _nvml_monitor(monkeypatch, fc, wave, update_s)
    mon.sampler.clock = fc.now_ns
    mon.sampler.wait = bk.fake_wait(fc, _NoFiles(), seed=11)
    mon.sampler.tick()
    mon.sampler.run_for(7.0)
    for t0, t1 in ((1000.237, 1006.651), (1001.01, 1002.07), (1002.33, 1003.95)):
        s = mon.summary(int(t0 * 1e9), int(t1 * 1e9), 500)
        assert s["method"] == "counter" and s["source"] == "nvml"
        assert s["energy_j"] == pytest.approx(wave.energy(t0, t1), rel=0.01)
    assert "1 s average" in s["note"]
    short = mon.summary(int(1003.0 * 1e9), int(1003.05 * 1e9), 5)
    assert short["method"] == ("trapezoid" if update_s else "counter")
    assert short["energy_j"] == pytest.approx(wave.energy(1003.0, 1003.05), rel=0.02)
    assert any("too short" in w for w in short["warnings"])


# ------------------------------------------------------------------------------------------------ pure

def test_trapezoid_integrates_exactly_the_window_with_interpolated_edges():
    ts = [0, 10 ** 9, 2 * 10 ** 9, 3 * 10 ** 9]
    ws = [1.0, 3.0, 3.0, 5.0]
    # piecewise linear: exact for trapezoid; window [0.5 s, 2.5 s]
    assert power.trapezoid_j(ts, ws, 5 * 10 ** 8, 25 * 10 ** 8) == pytest.approx(1.25 + 3.0 + 3.5 * 0.5 + 0.25 * 0)
    assert power.trapezoid_j(ts, ws, 0, 3 * 10 ** 9) == pytest.approx(2.0 + 3.0 + 4.0)
    # outside the samples the edge value is held
    assert power.trapezoid_j(ts, ws, -10 ** 9, 0) == pytest.approx(1.0)


def test_counter_difference_interpolates():
    ts = [0, 10 ** 9, 2 * 10 ** 9]
    es = [100.0, 105.0, 115.0]
    assert power.counter_j(ts, es, 5 * 10 ** 8, 15 * 10 ** 8) == pytest.approx(2.5 + 5.0)


def test_nonpositive_samples_dropped_and_counted():
    g = 10 ** 9
    samples = [(0, 2.0, (2.0,), None), (g // 2, 0.0, (0.0,), None), (g, -1.0, (-1.0,), None),
               (2 * g, 2.0, (2.0,), None), (5 * g, 9.0, (9.0,), None)]
    s = power.summarize(samples, "trapezoid", 0, 2 * g, ("R",))
    assert s["n_dropped_nonpositive"] == 2
    assert s["n_samples"] == 4
    assert s["energy_j"] == pytest.approx(4.0)
    assert s["mean_w"] == pytest.approx(2.0)


def test_percentile_matches_numpy():
    np = pytest.importorskip("numpy")
    vals = [3.1, 9.0, 0.5, 2.2, 7.7, 7.7, 1.0]
    for q in (50, 90, 95, 99):
        assert power.percentile(vals, q) == pytest.approx(float(np.percentile(vals, q)))


def test_downsample_caps_points_and_keeps_ends():
    ts = [i / 1000.0 for i in range(5001)]
    ws = [1.0 + (i % 7) for i in range(5001)]
    tr = power.downsample(ts, ws)
    assert len(tr["t_s"]) <= 500 and len(tr["t_s"]) == len(tr["w"])
    assert tr["t_s"][0] == 0.0 and tr["t_s"][-1] == 5.0
    assert tr["t_s"] == sorted(tr["t_s"])
    assert sum(tr["w"]) / len(tr["w"]) == pytest.approx(sum(ws) / len(ws), rel=0.01)


def test_summary_rejects_an_empty_window():
    with pytest.raises(ValueError):
        power.summarize([(0, 1.0, (), None)], "trapezoid", 5, 5)


def test_window_beyond_samples_warns():
    g = 10 ** 9
    s = power.summarize([(g, 2.0, (), None), (2 * g, 2.0, (), None)], "trapezoid", 0, 3 * g)
    assert s["energy_j"] == pytest.approx(6.0)
    assert any("do not cover the whole window" in w for w in s["warnings"])


# ------------------------------------------------------------------------------------------------ sampler

class FlakyProbe:
    def __init__(self):
        self.n = 0

    def read(self):
        self.n += 1
        if self.n % 3 == 0:
            raise OSError("EIO")
        return 1.0, (), None


def test_read_errors_are_counted_not_raised():
    s = Sampler(FlakyProbe(), 50)
    for _ in range(9):
        s.tick()
    assert s.n_errors == 3 and len(s.samples) == 6 and "EIO" in s.last_error


def test_a_sensor_that_never_reads_gives_an_honest_empty_summary(tmp_path):
    d = bk.board(tmp_path, "orin-nano-jp6")
    mon = power.PowerMonitor.create(None, SysfsRoot(d), None)
    os.remove(os.path.join(d, "sys/class/hwmon/hwmon1/curr1_input"))   # VDD_IN unreadable from now on
    mon.start()
    t0 = clock.now_ns()
    time.sleep(0.05)
    t1 = clock.now_ns()
    mon.stop()
    s = mon.summary(t0, t1, 10, 0.05)
    assert s["energy_j"] is None and s["mean_w"] is None and s["energy_mj_per_inference"] is None
    assert s["n_read_errors"] >= 2
    assert any("sensor reads failed" in w for w in s["warnings"])


def test_overrun_resynchronises_instead_of_bursting():
    fc = bk.FakeClock(0.0)

    class SlowProbe:
        def read(self):
            fc.advance(0.05)    # 50 ms per read at a 100 Hz schedule
            return 1.0, (), None

    s = Sampler(SlowProbe(), 100, clock=fc.now_ns)
    s.wait = lambda sec: fc.advance(sec)
    s.run_for(1.0)
    gaps = [b[0] - a[0] for a, b in zip(s.samples, s.samples[1:], strict=False)]
    assert min(gaps) >= int(0.05 * 1e9) - 1
    assert 18 <= len(s.samples) <= 22


def test_timestamps_are_midpoints_of_the_read():
    fc = bk.FakeClock(0.0)

    class Tool:
        def read(self):
            fc.advance(0.030)   # a 30 ms vcgencmd call
            return 2.0, (), None

    s = Sampler(Tool(), 10, clock=fc.now_ns)
    s.tick()
    assert s.samples[0][0] == int(0.015 * 1e9)


# ------------------------------------------------------------------------------------------------ real thread

def test_real_thread_energy_and_rate(tmp_path, monkeypatch):
    """The real sampler thread on a tree rewritten in real time (a slow P(t): robust to scheduling hiccups)."""
    d = bk.board(tmp_path, "orin-nano-jp6")
    wave = bk.Wave(base=7.0, amp=2.0, period=4.0)
    bw = bk.BoardWave(d, "orin-nano-jp6", wave)
    logs = []
    with bk.WaveWriter(bw, clock.now_ns):
        mon = power.PowerMonitor.create({"source": "jetson-ina3221", "rate_hz": 50}, SysfsRoot(d), None,
                                        log=logs.append)
        idle = mon.measure_idle(0.3)
        assert idle["idle_w"] is not None and idle["n_samples"] >= 3
        mon.start()
        t0 = clock.now_ns()
        time.sleep(1.2)
        t1 = clock.now_ns()
        mon.stop()
    s = mon.summary(t0, t1, 60, (t1 - t0) / 1e9)
    assert s["energy_j"] == pytest.approx(wave.energy(t0 / 1e9, t1 / 1e9), rel=0.01)
    assert s["n_samples"] >= 10
    assert s["rate_hz"] > 5
    assert not any("do not cover" in w for w in s["warnings"])    # start()/stop() bracket the window
    assert not mon.sampler.running
    assert any("jetson-ina3221" in m for m in logs)
