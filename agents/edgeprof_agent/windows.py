"""The sustained scenario: one long timed run cut into consecutive windows, with the board's state read during it.

Owns: the sustained loop (single-stream back to back, or fixed-rate at `rate`: query i due at t0 + i/rate), the
telemetry thread (thermal zones, cpufreq scaling_cur_freq, the GPU's devfreq clock and, where vcgencmd exists,
the Raspberry Pi's get_throttled and, where NVML answers, the first NVIDIA GPU's power, temperature, SM and
graphics clocks and clock event reasons, read every `period` seconds on clock.now_ns), cutting the run into windows of
window_s from t0, and each window's figures from the readings taken inside it (means of the readings, never
interpolated between them): temperatures, clocks, throttle flags, and mean power and energy from the power
sampler's readings in the window. A query belongs to the window its start (back to back) or its due time
(fixed-rate) falls in; a window holds the index range of its queries in the raw samples, which are sent whole.
The duration rules: no query count stops the loop (run.max_queries does not apply), and the loop holds its
latencies and issue times in array("q") (8 bytes a query; a Python list of ints would hold about 36: 1 GB for
30 M queries), sent packed (record.PackedInt64).
Does not own: latency percentiles, throughput, misses and the curve's figures (the host computes them from the
raw samples: edgeprof/sustained.py), the power probes (power.py), what thermal files mean (thermal.py).
Python 3.6-safe, standard library only.
"""

import array
import threading

from . import scenarios, thermal
from .probes import nvml
from .clock import now_ns
from .messages import SustainedReply, SustainedWindow
from .protocol import send_progress
from .vocab import SCENARIO_DEFAULTS

READ_PERIOD_MAX_S = 1.0  # telemetry is read at least once a second and at least 4 times a window
READ_PERIOD_MIN_S = 0.1


def read_period(window_s):
    return max(READ_PERIOD_MIN_S, min(READ_PERIOD_MAX_S, window_s / 4.0))


def read_state(root, tools, rpi, gpu=None):
    """One reading of the board's state: {zones: {zone: °C}, cpu_khz: {cpuN: kHz}, gpu_hz, throttled, nvml}, nvml
    the GpuTelemetry's reading (None without one)."""
    zones = dict((z, d["temp_c"]) for z, d in thermal.thermal_zones(root).items() if "ignored" not in d)
    cpus = dict((c, d["cur_khz"]) for c, d in thermal.cpufreq(root).items() if "cur_khz" in d)
    devfreq = thermal.gpu_devfreq(root)
    throttled = None
    if rpi:
        out = thermal._vcgencmd(tools, "get_throttled")
        if out:
            m = thermal._VC_THROTTLED.search(out)
            if m:
                throttled = int(m.group(1), 0) & 0xF  # the "now" bits 0-3 (decode_throttled names them)
    return {"zones": zones, "cpu_khz": cpus, "gpu_hz": devfreq["cur_hz"] if devfreq else None,
            "throttled": throttled, "nvml": gpu.read() if gpu is not None else None}


class Telemetry(object):
    """Reads read_state() every period_s on a daemon thread; each reading is (t_ns at its midpoint, state). gpu:
    a GpuTelemetry, or None to open NVML's GPU `gpu_index` (the run's --gpu, else the first) at start() when there
    is one (False: do not read NVML)."""

    def __init__(self, root, tools, period_s, clock=now_ns, gpu=None, gpu_index=None):
        self.root, self.tools, self.period_s, self.clock = root, tools, period_s, clock
        self.rpi = tools is not None and tools.which("vcgencmd") is not None
        self.readings = []
        self.errors = 0
        self._stop = threading.Event()
        self._thread = None
        self.gpu = gpu
        self.gpu_index = gpu_index or 0

    @property
    def gpu_name(self):
        return self.gpu.name if self.gpu else None

    def tick(self):
        t_a = self.clock()
        try:
            state = read_state(self.root, self.tools, self.rpi, self.gpu or None)
        except Exception:  # a sensor hiccup never ends the run
            self.errors += 1
            return
        self.readings.append(((t_a + self.clock()) // 2, state))

    def start(self):
        if self.gpu is None:
            self.gpu = nvml.GpuTelemetry.open(self.gpu_index)
        self.tick()
        self._thread = threading.Thread(target=self._loop, name="edgeprof-telemetry")
        self._thread.daemon = True
        self._thread.start()

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)
        self.tick()
        if self.gpu:
            self.gpu.close()

    def _loop(self):
        while not self._stop.wait(self.period_s):
            self.tick()

    def latest(self):
        return self.readings[-1][1] if self.readings else None


def _mean(values):
    return sum(values) / float(len(values)) if values else None


def state_figures(readings):
    """A window's board state from its readings: mean °C per zone, the hottest zone's mean, the CPUs' mean and
    lowest clock (MHz), the GPU's mean clock, the throttle bits seen in any reading."""
    zones = {}
    for _t, s in readings:
        for z, c in s["zones"].items():
            zones.setdefault(z, []).append(c)
    zones_c = dict((z, round(_mean(v), 3)) for z, v in zones.items())
    cpu_means = [_mean(list(s["cpu_khz"].values())) for _t, s in readings if s["cpu_khz"]]
    cpu_mins = [min(s["cpu_khz"].values()) for _t, s in readings if s["cpu_khz"]]
    gpu = [s["gpu_hz"] for _t, s in readings if s["gpu_hz"] is not None]
    bits = [s["throttled"] for _t, s in readings if s["throttled"] is not None]
    flags = 0
    for b in bits:
        flags |= b
    out = {
        "n_readings": len(readings), "zones_c": zones_c,
        "temp_c": max(zones_c.values()) if zones_c else None,
        "cpu_mhz": round(_mean(cpu_means) / 1000.0, 3) if cpu_means else None,
        "cpu_mhz_min": round(min(cpu_mins) / 1000.0, 3) if cpu_mins else None,
        "gpu_mhz": round(_mean(gpu) / 1e6, 3) if gpu else None,
        "throttled": flags if bits else None,
    }
    out.update(nvml_figures([s.get("nvml") for _t, s in readings]))
    return out


def nvml_figures(gpu_readings):
    """A window's NVML figures from the GPU readings taken in it (None: no NVML in that reading): mean W, °C, SM
    and graphics MHz, and the clock event reason bits seen in any reading."""
    got = [g for g in gpu_readings if g]
    out = {"n_nvml": len(got)}
    for key, name, nd in (("w", "nvml_w", 3), ("temp_c", "nvml_temp_c", 2), ("sm_mhz", "nvml_sm_mhz", 1),
                          ("graphics_mhz", "nvml_graphics_mhz", 1)):
        vs = [g[key] for g in got if key in g]
        out[name] = round(_mean(vs), nd) if vs else None
    bits = [g["reasons"] for g in got if "reasons" in g]
    flags = 0
    for b in bits:
        flags |= b
    out["nvml_reasons"] = flags if bits else None
    return out


def power_figures(samples, method, t0, t1):
    """Mean power (W) of a window from the power sampler's readings inside [t0, t1) only: the mean of the
    positive readings (trapezoid sources), or the counter's difference between its first and last reading in
    the window over their span (counter sources). (None, 0) with no usable reading."""
    inside = [s for s in samples if t0 <= s[0] < t1]
    if method == "trapezoid":
        ws = [s[1] for s in inside if s[1] > 0]
        return (_mean(ws), len(ws)) if ws else (None, 0)
    if len(inside) >= 2 and inside[-1][0] > inside[0][0]:
        return (inside[-1][1] - inside[0][1]) / ((inside[-1][0] - inside[0][0]) / 1e9), len(inside)
    ws = [s[3] for s in inside if s[3] is not None and s[3] > 0]
    return (_mean(ws), len(ws)) if ws else (None, 0)


def cut(t0, window_ns, n_windows, offsets, readings):
    """The windows of a run: offsets (ns from t0, sorted) place each query; readings (t_ns absolute, state)."""
    out = []
    i = 0
    j = 0
    for k in range(n_windows):
        lo, hi = k * window_ns, (k + 1) * window_ns
        first = i
        while i < len(offsets) and offsets[i] < hi:
            i += 1
        while j < len(readings) and readings[j][0] - t0 < lo:
            j += 1
        inside = []
        jj = j
        while jj < len(readings) and readings[jj][0] - t0 < hi:
            inside.append(readings[jj])
            jj += 1
        w = SustainedWindow(index=k, start_ns=lo, end_ns=hi, first=first, count=i - first, **state_figures(inside))
        out.append(w)
    return out


PROGRESS_P50_SAMPLES = 10000  # the progress line's p50 sorts at most this many of a window's samples


def _window_progress(k, n, lat_ns, first, telemetry, total_s, last=None):
    """One progress event when window k closes: its p50 (from its samples lat_ns[first:last], at most
    PROGRESS_P50_SAMPLES of them evenly spaced: sorting a fast model's million samples of a minute would stall the
    loop for a second at every window; the stored p50 is the host's, from every sample) and the latest
    reading."""
    last = len(lat_ns) if last is None else last
    step = max(1, (last - first) // PROGRESS_P50_SAMPLES)
    part = sorted(lat_ns[first:last:step])
    state = telemetry.latest() or {}
    temps = list((state.get("zones") or {}).values())
    cpus = list((state.get("cpu_khz") or {}).values())
    send_progress("measure", elapsed_s=round((k + 1) * total_s / float(n), 2), total_s=total_s, n=len(lat_ns),
                  window=k + 1, windows=n, p50_ms=round(part[len(part) // 2] / 1e6, 4) if part else None,
                  temp_c=max(temps) if temps else None,
                  cpu_mhz=round(sum(cpus) / float(len(cpus)) / 1000.0, 1) if cpus else None)


def _wait_alive(due, t0, n, total_s, clock, sleep, progress):
    """A slow rate: sleep towards `due`, telling the host every PROGRESS_NS that the loop is alive."""
    while due - clock() > scenarios.PROGRESS_NS:
        sleep(scenarios.PROGRESS_NS / 2e9)
        if progress:
            send_progress("measure", elapsed_s=round((clock() - t0) / 1e9, 2), total_s=total_s, n=n)


def sustained_loop(run, sc, root, tools, clock=now_ns, sleep=None, progress=True, gpu_index=None):
    """The sustained run: back to back (sc.rate None) or fixed-rate, for sc.duration_s whatever the query count;
    telemetry during it. Returns (Schedule with array("q") latencies, issue and due times, SustainedReply without
    power)."""
    import time
    sleep = sleep or time.sleep
    duration_s = sc.duration_s or SCENARIO_DEFAULTS["duration_s"]
    duration_ns = int(duration_s * 1e9)
    window_ns = int(sc.sustained_window_s * 1e9)
    n = max(1, -(-duration_ns // window_ns))
    tel = Telemetry(root, tools, read_period(sc.sustained_window_s), clock, gpu_index=gpu_index)
    tel.start()
    period = int(round(1e9 / sc.rate)) if sc.rate else None
    t0 = clock() + (2 * scenarios.SPIN_NS if period else 0)  # fixed-rate: a moment to get ready
    s = scenarios.Schedule("sustained", t0)
    s.latencies, s.issued = lat, iss = array.array("q"), array.array("q")
    misses, k, win_first, done = 0, 0, 0, t0
    next_alive = t0 + scenarios.PROGRESS_NS
    s.stopped_by = "duration reached"
    try:
        while True:
            due = t0 + len(lat) * period if period else clock()
            if due - t0 >= duration_ns:
                break
            if period:
                _wait_alive(due, t0, len(lat), duration_s, clock, sleep, progress)
            start = scenarios.wait_until(due, clock, sleep) if period and clock() < due else clock()
            if not period and start - t0 >= duration_ns:  # past the duration since `due` was read: in no window
                break
            run()
            done = clock()
            lat.append(done - (due if period else start))
            iss.append(start - t0)
            if period and done > due + period:
                misses += 1
            place = (due if period else start) - t0
            while k < n - 1 and place >= (k + 1) * window_ns:  # this query opens a later window: close k
                if progress:
                    _window_progress(k, n, lat, win_first, tel, duration_s, len(lat) - 1)
                win_first, k = len(lat) - 1, k + 1
            if not period and done - t0 >= duration_ns:
                break
            if progress and done >= next_alive:  # the host's silence timeout hears from the loop
                send_progress("measure", elapsed_s=round((done - t0) / 1e9, 2), total_s=duration_s, n=len(lat),
                              last_ms=round(lat[-1] / 1e6, 4))
                next_alive = done + scenarios.PROGRESS_NS
        while k < n:  # the last window (and any the run did not reach)
            if progress:
                _window_progress(k, n, lat, win_first, tel, duration_s)
            win_first, k = len(lat), k + 1
        s.t_end = max(done, t0 + duration_ns) if period else done
        if period and done < t0 + duration_ns:
            scenarios.wait_until(t0 + duration_ns, clock, sleep)  # the duty cycle's idle tail, as fixed-rate
    finally:
        tel.stop()
    offsets = array.array("q", range(0, len(lat) * period, period)) if period else iss
    s.scheduled = offsets if period else array.array("q")
    s.queries = len(lat)
    s.misses = misses if period else None
    s.mode = ("fixed-rate at %g/s" % sc.rate if period else "single stream, back to back") + \
        "; %d windows of %g s" % (n, sc.sustained_window_s)
    windows = cut(t0, window_ns, n, offsets, tel.readings)
    reply = SustainedReply(duration_s=duration_s, window_s=sc.sustained_window_s, read_period_s=tel.period_s,
                           telemetry_errors=tel.errors, throttle_source="vcgencmd get_throttled" if tel.rpi else None,
                           windows=windows, nvml_gpu=tel.gpu_name)
    return s, reply


def add_power(reply, monitor, t0):
    """Each window's mean power and energy from the power sampler's readings inside it (monitor: PowerMonitor)."""
    samples = list(monitor.sampler.samples)
    method = monitor.probe.method
    for w in reply.windows:
        mean_w, n = power_figures(samples, method, t0 + w.start_ns, t0 + w.end_ns)
        w.mean_w = round(mean_w, 5) if mean_w is not None else None
        w.n_power = n
        w.energy_j = round(mean_w * (w.end_ns - w.start_ns) / 1e9, 6) if mean_w is not None else None
    reply.power_source = monitor.probe.source
