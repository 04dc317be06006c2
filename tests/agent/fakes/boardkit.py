"""Test kit for the agent's telemetry: board trees, fake tools, fake clocks and a known power function.

- board(tmp, name): a writable copy of tests/data/boards/<name> (symlinks kept, as in sysfs).
- fake_tools(tmp, board_dir, monkeypatch): a ToolRunner that finds only the board's captured tools
  (tests/agent/fakes/bin/replay) and nothing from the real PATH.
- Wave: P(t) = base + amp * sin(2 pi t / period + phase) watts, with its exact integral energy(t0, t1).
- BoardWave(board_dir, name, wave).set_time(t): rewrites the board's sensor files (or a tool's captured output)
  so they show P(t): power registers for INA3221 / INA219 / Pi 5 PMIC / command, energy counters for RAPL.
- FakeClock: a clock.now_ns() stand-in; fake_wait(clock, board_wave) replaces Sampler.wait so the sampler loop
  runs on it deterministically, with jittered tick spacing, updating the sensors as time advances.
- WaveWriter keeps a tree current in real time (threaded tests).
- StepWave + drive(config): a separate driver process for end-to-end tests (tests/integration/test_power_e2e.py):
  the tree shows a constant idle level until a "go" file appears (the test creates it when the agent reports
  the model load, i.e. after the idle baseline), then P(t) of a Wave on the shared monotonic clock
  (time.perf_counter, CLOCK_MONOTONIC: the same clock as the agent's on this machine); it can also cool a
  thermal zone over time and rewrite files (e.g. a captured get_throttled) at go.
  Run: `python boardkit.py CONFIG.json` (see drive()).
"""

import json
import math
import os
import random
import shutil
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
BOARDS = os.path.join(REPO, "tests", "data", "boards")
FAKE_BIN = os.path.join(HERE, "bin")
MODULES = os.path.join(HERE, "modules")
AGENTS = os.path.join(REPO, "agents")

if AGENTS not in sys.path:
    sys.path.insert(0, AGENTS)

from edgeprof_agent.sysfs import SysfsRoot  # noqa: E402
from edgeprof_agent.tools import ToolRunner  # noqa: E402

RAPL_RANGE = 262143328850


def board(tmp_path, name):
    dst = os.path.join(str(tmp_path), name)
    shutil.copytree(os.path.join(BOARDS, name), dst, symlinks=True)
    return dst


def fake_tools(tmp_path, board_dir, monkeypatch, extra=()):
    """ToolRunner over a bin dir holding replay links for the tools captured in board_dir/tools (plus extra)."""
    bindir = os.path.join(str(tmp_path), "bin-" + os.path.basename(board_dir))
    if not os.path.isdir(bindir):
        os.makedirs(bindir)
    names = set(extra)
    tools_dir = os.path.join(board_dir, "tools")
    if os.path.isdir(tools_dir):
        names.update(os.listdir(tools_dir))
    for name in names:
        link = os.path.join(bindir, name)
        if not os.path.lexists(link):
            os.symlink(os.path.join(FAKE_BIN, "replay"), link)
    monkeypatch.setenv("EDGEPROF_FAKE_BOARD", board_dir)
    return ToolRunner([bindir], search_path=False)


def no_tools(tmp_path):
    empty = os.path.join(str(tmp_path), "bin-empty")
    if not os.path.isdir(empty):
        os.makedirs(empty)
    return ToolRunner([empty], search_path=False)


def use_fake_module(monkeypatch, name):
    """Import tests/agent/fakes/modules/<name>.py as the top-level module `name` for this test only."""
    monkeypatch.syspath_prepend(MODULES)
    monkeypatch.delitem(sys.modules, name, raising=False)
    import importlib
    return importlib.import_module(name)


def write_atomic(path, text):
    tmp = path + f".tmp-{threading.get_ident()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


class Wave:
    def __init__(self, base=5.0, amp=1.5, period=0.5, phase=0.3):
        self.base, self.amp, self.period, self.phase = base, amp, period, phase

    def power(self, t):
        return self.base + self.amp * math.sin(2 * math.pi * t / self.period + self.phase)

    def energy(self, t0, t1):
        w = 2 * math.pi / self.period
        return self.base * (t1 - t0) - self.amp / w * (math.cos(w * t1 + self.phase) - math.cos(w * t0 + self.phase))


class StepWave:
    """`idle_w` until t_go (set when the run starts), then `active` (a Wave). energy() is exact for both parts."""

    def __init__(self, idle_w, active):
        self.idle_w = idle_w
        self.active = active
        self.t_go = None

    def power(self, t):
        if self.t_go is None or t < self.t_go:
            return self.idle_w
        return self.active.power(t)

    def energy(self, t0, t1):
        if self.t_go is None or t1 <= self.t_go:
            return self.idle_w * (t1 - t0)
        if t0 >= self.t_go:
            return self.active.energy(t0, t1)
        return self.idle_w * (self.t_go - t0) + self.active.energy(self.t_go, t1)


class FakeClock:
    def __init__(self, t_s=1000.0):
        self.t_ns = int(t_s * 1e9)

    def now_ns(self):
        return self.t_ns

    @property
    def s(self):
        return self.t_ns / 1e9

    def set(self, t_s):
        self.t_ns = int(round(t_s * 1e9))

    def advance(self, dt_s):
        self.t_ns += int(round(dt_s * 1e9))



class BoardWave:
    """Makes a board tree show P(t). Sub-rails get fixed shares of P; the total rail shows P itself."""

    def __init__(self, board_dir, name, wave, t_origin=0.0):
        self.dir = board_dir
        self.name = name
        self.wave = wave
        self.t_origin = t_origin
        self._set = getattr(self, "_" + name.replace("-", "_"))

    def p(self, rel):
        return os.path.join(self.dir, rel.lstrip("/"))

    def set_time(self, t):
        self._set(t, self.wave.power(t))

    def energy(self, t0, t1):
        return self.wave.energy(t0, t1)

    def _jetson_nano_jp4(self, t, w):
        iio = "/sys/bus/i2c/drivers/ina3221x/6-0040/iio:device0"
        for k, share in ((0, 1.0), (1, 0.25), (2, 0.35)):
            write_atomic(self.p(f"{iio}/in_power{k}_input"), f"{round(w * share * 1000)}\n")

    def _ina3221(self, hwmon, k, w):
        write_atomic(self.p(f"{hwmon}/in{k}_input"), "5000\n")
        write_atomic(self.p(f"{hwmon}/curr{k}_input"), f"{round(w * 1000 / 5.0)}\n")

    def _orin_nano_jp6(self, t, w):
        hw = "/sys/class/hwmon/hwmon1"
        self._ina3221(hw, 1, w)
        self._ina3221(hw, 2, 0.3 * w)
        self._ina3221(hw, 3, 0.4 * w)

    def _agx_orin_jp6(self, t, w):
        self._ina3221("/sys/class/hwmon/hwmon2", 1, 0.4 * w)
        self._ina3221("/sys/class/hwmon/hwmon2", 2, 0.2 * w)
        self._ina3221("/sys/class/hwmon/hwmon2", 3, 0.3 * w)
        self._ina3221("/sys/class/hwmon/hwmon3", 2, 0.1 * w)

    def _rpi4_ina219(self, t, w):
        write_atomic(self.p("/sys/class/hwmon/hwmon2/power1_input"), f"{round(w * 1e6)}\n")

    def _rpi5(self, t, w):
        """Rewrite the pmic_read_adc capture: VDD_CORE's current carries whatever the other rails do not."""
        from edgeprof_agent.probes.rpi import parse_pmic_read_adc
        path = self.p("/tools/vcgencmd/pmic_read_adc.txt")
        if not hasattr(self, "_pmic"):
            with open(path) as f:
                self._pmic = f.read()
            rails = parse_pmic_read_adc(self._pmic)
            self._others = sum(d["a"] * d["v"] for n, d in rails if "a" in d and "v" in d and n != "VDD_CORE")
            self._vcore = dict(rails)["VDD_CORE"]["v"]
        amps = (w - self._others) / self._vcore
        lines = []
        for line in self._pmic.splitlines():
            if line.strip().startswith("VDD_CORE_A "):
                line = f"  VDD_CORE_A current(7)={amps:.8f}A"
            lines.append(line)
        write_atomic(path, "\n".join(lines) + "\n")

    def _x86_rapl(self, t, w):
        e = self.wave.energy(self.t_origin, t)
        for zone, share, start in (("intel-rapl:0", 1.0, RAPL_RANGE - 3000000),
                                   ("intel-rapl:0:0", 0.6, 81723554320)):
            uj = int(start + e * share * 1e6) % RAPL_RANGE
            write_atomic(self.p(f"/sys/class/powercap/{zone}/energy_uj"), f"{uj}\n")

    def _powermeter(self, t, w):
        d = self.p("/tools/powermeter")
        if not os.path.isdir(d):
            os.makedirs(d)
        write_atomic(os.path.join(d, "read.txt"), f"{w * 1000:.1f} mW\n")


def fake_wait(clock, board_wave, jitter=0.3, seed=7):
    """A Sampler.wait stand-in: advances the fake clock (jittered) and updates the sensors; never stops early."""
    rng = random.Random(seed)

    def wait(seconds):
        clock.advance(seconds * (1.0 + jitter * (rng.random() - 0.5)))
        board_wave.set_time(clock.s)
        return False
    return wait


class WaveWriter:
    """Keeps a board tree showing P(now) in real time (clock.now_ns seconds) from a background thread."""

    def __init__(self, board_wave, clock_ns, period_s=0.001):
        self.bw = board_wave
        self.clock_ns = clock_ns
        self.period_s = period_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run)
        self._thread.daemon = True

    def _run(self):
        while not self._stop.is_set():
            self.bw.set_time(self.clock_ns() / 1e9)
            time.sleep(self.period_s)

    def __enter__(self):
        self.bw.set_time(self.clock_ns() / 1e9)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(5)


def root_of(board_dir):
    return SysfsRoot(board_dir)


def drive(config):
    """Drive a board tree in real time until config["stop_file"] exists. Keys:

    board_dir, name (BoardWave method), idle_w, wave {base, amp, period, phase}: the power shown;
    go_file: when it appears the wave starts; its time is written to go_file + ".t" (repr of perf_counter s);
    ready_file: written once the tree shows the idle level; stop_file; period_s (default 0.002);
    on_go: {relative path: text} written at go (e.g. tools/vcgencmd/get_throttled.txt);
    cool: {files: [relative paths of thermal zone temp files], start_c, c_per_s, floor_c, measure_temp: bool}
      a zone that cools from start_c (at driver start) at c_per_s down to floor_c (m°C written; with
      measure_temp the Pi's `vcgencmd measure_temp` capture follows it).
    """
    try:  # the board's sensors are hardware: they do not stall when the test machine is busy (root only)
        os.nice(-10)
    except OSError:
        pass
    t_start = time.perf_counter()
    w = config.get("wave") or {}
    step = StepWave(float(config.get("idle_w", 3.0)),
                    Wave(w.get("base", 5.0), w.get("amp", 1.5), w.get("period", 1.0), w.get("phase", 0.3)))
    bw = BoardWave(config["board_dir"], config["name"], step, t_origin=t_start) if config.get("name") else None
    period = float(config.get("period_s", 0.002))
    go, stop = config.get("go_file"), config["stop_file"]
    cool = config.get("cool")
    ready = config.get("ready_file")

    def apply_cool(t):
        temp = max(cool["floor_c"], cool["start_c"] + cool["c_per_s"] * (t - t_start))
        for rel in cool.get("files") or []:
            write_atomic(os.path.join(config["board_dir"], rel), f"{round(temp * 1000)}\n")
        if cool.get("measure_temp"):
            write_atomic(os.path.join(config["board_dir"], "tools/vcgencmd/measure_temp.txt"), f"temp={temp:.1f}'C\n")

    while not os.path.exists(stop):
        t = time.perf_counter()
        if step.t_go is None and go and os.path.exists(go):
            step.t_go = t
            for rel, text in (config.get("on_go") or {}).items():
                write_atomic(os.path.join(config["board_dir"], rel), text)
            write_atomic(go + ".t", repr(t))
        if bw is not None:
            bw.set_time(t)
        if cool:
            apply_cool(t)
        if ready and not os.path.exists(ready):
            write_atomic(ready, repr(t))
        time.sleep(period)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        drive(json.load(f))
