"""Power and energy of a measurement window: the API the measurement worker calls.

Owns: choosing a power source (devices.yaml `power:` block or auto-discovery), the idle baseline, starting and
stopping the sampler, and turning raw samples into a window summary: energy by trapezoid over exactly
[t0, t1] (interpolating at the edges) or by differencing an energy counter, mean/p95 power, per-rail means,
energy per inference, a downsampled trace. Every number says where it came from (source, rail, what it
covers, achieved rate, window, idle baseline).
Does not own: sensor details (probes/), the sampling thread (sampler.py), thermal state (thermal.py),
latency statistics (host side).

Conventions (MLPerf Power where it has one): samples <= 0 W are dropped and counted; only the timed window
counts; idle is NOT subtracted from energy. idle_w / dynamic_w are an edgeprof extension, labelled as such.
"""

import bisect

from .probes import external, hwmon, jetson, jtop, nvml, rapl, rpi
from .messages import MessageError, PowerConfig
from .sampler import Sampler

# name in devices.yaml -> (module, what a person would call it)
SOURCES = (
    ("jetson-ina3221", jetson, "INA3221 (i2c)"),
    ("jtop", jtop, "jtop service"),
    ("hwmon", hwmon, "hwmon ina2xx"),
    ("rpi5-pmic", rpi, "Pi 5 PMIC (vcgencmd)"),
    ("nvml", nvml, "NVML"),
    ("rapl", rapl, "RAPL"),
    ("command", external, "a power command"),
)
AUTO_ORDER = ("jetson-ina3221", "jtop", "hwmon", "rpi5-pmic", "nvml", "rapl")
SOURCE_NAMES = tuple(s[0] for s in SOURCES) + ("auto", "none")
DEFAULT_RATE_HZ = 50.0
TRACE_POINTS = 500
IDLE_NOTE = "idle_w is measured before the model loads; energy_j is NOT idle-subtracted (MLPerf convention)"


def _module(name):
    for n, mod, label in SOURCES:
        if n == name:
            return mod, label
    raise KeyError(name)


def _normalise_config(config):
    """The run's power configuration as the probes read it: a dict of the keys given, `source` lower-case (None =
    auto). A source name or a mapping (tests, `facts` discovery) is checked by messages.PowerConfig, the one
    check of a power block; a bad one raises ValueError naming the key."""
    if config is None:
        return {"source": "auto"}
    if isinstance(config, str):
        config = {"source": config}
    if isinstance(config, dict):
        data = dict(config)
        if isinstance(data.get("source"), str):
            data["source"] = data["source"].strip().lower()
        try:
            config = PowerConfig.from_dict(data, "power")
        except MessageError as e:
            raise ValueError(str(e))
    if not isinstance(config, PowerConfig):
        raise ValueError("power: expected a mapping like {source: auto, rail: VDD_IN, rate_hz: 50}, got %r"
                         % (config,))
    out = config.to_dict()
    out["source"] = config.source or "auto"
    return out


def discover_all(root, tools):
    """What every auto source finds on this machine (for `facts` / `devices check`); probes are closed again."""
    out = []
    for name in AUTO_ORDER:
        mod, label = _module(name)
        try:
            probe, reason = mod.discover(root, tools, {})
        except Exception as e:
            probe, reason = None, "%s: %s: %s" % (label, type(e).__name__, e)
        if probe is None:
            out.append({"source": name, "available": False, "reason": reason})
        else:
            d = probe.describe()
            d["available"] = True
            out.append(d)
            probe.close()
    return out


# ----------------------------------------------------------------------------------------------------------
# Pure functions over samples (no I/O): times in ns, sorted.

def interpolate(ts, vs, t):
    """Linear interpolation of vs at t; holds the first/last value outside the samples."""
    n = len(ts)
    if n == 0:
        raise ValueError("no samples")
    if t <= ts[0]:
        return vs[0]
    if t >= ts[-1]:
        return vs[-1]
    i = bisect.bisect_right(ts, t)
    t_a, t_b = ts[i - 1], ts[i]
    if t_b == t_a:
        return vs[i]
    return vs[i - 1] + (vs[i] - vs[i - 1]) * (t - t_a) / float(t_b - t_a)


def window_points(ts, vs, t0, t1):
    """Points of the piecewise-linear signal on exactly [t0, t1]: interpolated edges plus samples inside."""
    lo = bisect.bisect_right(ts, t0)
    hi = bisect.bisect_left(ts, t1)
    pts_t = [t0] + list(ts[lo:hi]) + [t1]
    pts_v = [interpolate(ts, vs, t0)] + list(vs[lo:hi]) + [interpolate(ts, vs, t1)]
    return pts_t, pts_v


def trapezoid_j(ts, ws, t0, t1):
    """Energy (J) of power samples (W at ns times) over exactly [t0, t1]."""
    pts_t, pts_w = window_points(ts, ws, t0, t1)
    e = 0.0
    for i in range(1, len(pts_t)):
        e += (pts_w[i] + pts_w[i - 1]) * 0.5 * (pts_t[i] - pts_t[i - 1])
    return e / 1e9


def counter_j(ts, es, t0, t1):
    """Energy (J) of an unwrapped cumulative counter (J at ns times) over exactly [t0, t1]."""
    return interpolate(ts, es, t1) - interpolate(ts, es, t0)


def percentile(values, q):
    """Linear-interpolated percentile (numpy's default method) of a non-empty list."""
    s = sorted(values)
    if not s:
        raise ValueError("no values")
    k = (len(s) - 1) * q / 100.0
    f = int(k)
    c = min(f + 1, len(s) - 1)
    return s[f] + (s[c] - s[f]) * (k - f)


def downsample(ts_s, vs, max_points=TRACE_POINTS):
    """Bucket means so a trace has at most max_points points; keeps the first and last point exactly."""
    n = len(ts_s)
    if n <= max_points:
        return {"t_s": [round(t, 5) for t in ts_s], "w": [round(v, 4) for v in vs]}
    inner = max_points - 2
    out_t, out_v = [ts_s[0]], [vs[0]]
    m = n - 2
    for b in range(inner):
        a, z = 1 + b * m // inner, 1 + (b + 1) * m // inner
        if z <= a:
            continue
        out_t.append(sum(ts_s[a:z]) / float(z - a))
        out_v.append(sum(vs[a:z]) / float(z - a))
    out_t.append(ts_s[-1])
    out_v.append(vs[-1])
    return {"t_s": [round(t, 5) for t in out_t], "w": [round(v, 4) for v in out_v]}


def _power_series(samples, method):
    """(ts, ws, n_dropped) of positive power readings; for counters inst_w or counter differences."""
    ts, ws, dropped = [], [], 0
    if method == "trapezoid":
        for t, total, _rails, _inst in samples:
            if total > 0:
                ts.append(t)
                ws.append(total)
            else:
                dropped += 1
        return ts, ws, dropped
    if samples and samples[0][3] is not None:
        for t, _total, _rails, inst in samples:
            if inst is not None and inst > 0:
                ts.append(t)
                ws.append(inst)
            else:
                dropped += 1
        return ts, ws, dropped
    for i in range(1, len(samples)):
        t_a, e_a = samples[i - 1][0], samples[i - 1][1]
        t_b, e_b = samples[i][0], samples[i][1]
        if t_b <= t_a:
            continue
        w = (e_b - e_a) / ((t_b - t_a) / 1e9)
        if w > 0:
            ts.append((t_a + t_b) // 2)
            ws.append(w)
        else:
            dropped += 1
    return ts, ws, dropped


def readings_of(samples, method):
    """(t_ns, W) of raw sampler samples, spanning the sampling window: the positive power readings as summary()
    integrates them (a trapezoid source's readings; a counter's instantaneous readings where it has them). A
    counter without them gives the power of each interval between consecutive values at the interval's midpoint;
    the first and the last of those are also held at the first and the last sample's time, so the readings span
    the window the counter covers (a window that reaches the sampling's edges is not left uncovered by half an
    interval; over equally spaced samples the trapezoid of these points is the counter's energy exactly)."""
    ts, ws, _dropped = _power_series(samples, method)
    if method != "trapezoid" and ts and samples[0][3] is None:
        if samples[0][0] < ts[0]:
            ts, ws = [samples[0][0]] + ts, [ws[0]] + ws
        if samples[-1][0] > ts[-1]:
            ts, ws = ts + [samples[-1][0]], ws + [ws[-1]]
    return ts, ws


def _quantized_counter_j(samples, p_ts, p_ws, t0, t1):
    """Energy of a counter that only updates every 20-100 ms (NVML), with power readings beside it.

    A counter value is placed at the first sample that shows it (the update happened within the tick before),
    repeats are dropped, so placement errs by at most one tick instead of one update period. The counter gives
    the energy between the first and last update inside [t0, t1]; the two edge pieces (shorter than one
    update) are integrated from the power readings. Returns (joules, "counter") or, when fewer than two updates
    fall inside the window, (trapezoid of power, "trapezoid").
    """
    changes = []
    for i in range(1, len(samples)):
        if samples[i][1] != samples[i - 1][1] and t0 <= samples[i][0] <= t1:
            changes.append((samples[i][0], samples[i][1]))
    if len(changes) >= 2 and p_ts:
        (t_a, e_a), (t_b, e_b) = changes[0], changes[-1]
        edges = (trapezoid_j(p_ts, p_ws, t0, t_a) if t_a > t0 else 0.0) + \
            (trapezoid_j(p_ts, p_ws, t_b, t1) if t1 > t_b else 0.0)
        return (e_b - e_a) + edges, "counter"
    if p_ts:
        return trapezoid_j(p_ts, p_ws, t0, t1), "trapezoid"
    return None, "counter"


def summarize(samples, method, t0, t1, rail_names=(), quantized_counter=False):
    """Energy and power over exactly [t0, t1] from raw sampler samples (t_ns, total, rails, inst_w).

    quantized_counter: the counter updates far slower than the sampling (NVML): see _quantized_counter_j.
    """
    if t1 <= t0:
        raise ValueError("empty power window: t1 (%d) <= t0 (%d)" % (t1, t0))
    window_s = (t1 - t0) / 1e9
    warnings = []
    in_window = [s for s in samples if t0 <= s[0] <= t1]
    out = {"window_s": window_s, "n_samples": len(in_window), "method": method, "rate_hz": None}
    p_ts, p_ws, _ = _power_series(samples, method)
    _, _, dropped = _power_series(in_window, method)
    out["n_dropped_nonpositive"] = dropped
    if method == "trapezoid":
        if not p_ts:
            out.update({"energy_j": None, "mean_w": None, "p95_w": None, "rails": {}, "trace": None})
            warnings.append("no positive power sample: energy unknown")
            out["warnings"] = warnings
            return out
        energy = trapezoid_j(p_ts, p_ws, t0, t1)
        kept = [s for s in samples if s[1] > 0]
        k_ts = [s[0] for s in kept]
        rails = {}
        for i, name in enumerate(rail_names):
            rails[name] = trapezoid_j(k_ts, [s[2][i] for s in kept], t0, t1) / window_s
        edge_ts = p_ts
    else:
        if not samples:
            out.update({"energy_j": None, "mean_w": None, "p95_w": None, "rails": {}, "trace": None})
            warnings.append("no counter sample: energy unknown")
            out["warnings"] = warnings
            return out
        c_ts = [s[0] for s in samples]
        if quantized_counter:
            energy, how = _quantized_counter_j(samples, p_ts, p_ws, t0, t1)
            if how != "counter":
                out["method"] = how
                warnings.append("the %.3f s window holds fewer than two energy-counter updates: power readings "
                                "were integrated instead; lengthen the run" % window_s)
            rails = dict((name, energy / window_s) for name in rail_names) if energy is not None else {}
            if energy is None:
                out.update({"energy_j": None, "mean_w": None, "p95_w": None, "rails": {}, "trace": None})
                warnings.append("no usable counter or power sample: energy unknown")
                out["warnings"] = warnings
                return out
        else:
            energy = counter_j(c_ts, [s[1] for s in samples], t0, t1)
            rails = {}
            for i, name in enumerate(rail_names):
                rails[name] = counter_j(c_ts, [s[2][i] for s in samples], t0, t1) / window_s
        edge_ts = c_ts
    out["energy_j"] = energy
    out["mean_w"] = energy / window_s
    out["rails"] = rails
    if edge_ts[0] > t0 or edge_ts[-1] < t1:
        warnings.append("the samples do not cover the whole window (%.3f s of %.3f s): the edge values were held"
                        % ((min(edge_ts[-1], t1) - max(edge_ts[0], t0)) / 1e9, window_s))
    w_in = [w for t, w in zip(p_ts, p_ws) if t0 <= t <= t1]
    out["p95_w"] = percentile(w_in, 95) if w_in else (interpolate(p_ts, p_ws, (t0 + t1) // 2) if p_ts else None)
    if len(in_window) >= 2:
        span = (in_window[-1][0] - in_window[0][0]) / 1e9
        out["rate_hz"] = (len(in_window) - 1) / span if span > 0 else None
    else:
        out["rate_hz"] = None
        warnings.append("fewer than 2 power samples inside a %.3f s window: lengthen the run or raise rate_hz"
                        % window_s)
    if p_ts:
        pts_t, pts_w = window_points(p_ts, p_ws, t0, t1)
        out["trace"] = downsample([(t - t0) / 1e9 for t in pts_t], pts_w)
    else:
        out["trace"] = None
    out["warnings"] = warnings
    return out


# ----------------------------------------------------------------------------------------------------------

class PowerMonitor(object):
    """One power source for one measurement: idle baseline, sampling during the timed window, summary."""

    def __init__(self, probe=None, rate_hz=None, reason=None, log=None):
        self.probe = probe
        self.available = probe is not None
        self.reason = reason
        self.log = log or (lambda msg: None)
        self.rate_hz = rate_hz
        self.sampler = Sampler(probe, rate_hz) if probe is not None else None
        self.idle = None
        self._idle_samples = []

    @classmethod
    def create(cls, config, root, tools, log=None):
        """config: the devices.yaml `power:` block (None = auto). Never raises for a missing sensor."""
        log = log or (lambda msg: None)
        try:
            cfg = _normalise_config(config)
        except ValueError as e:
            return cls(reason=str(e), log=log)
        source = cfg["source"]
        if source == "none":
            return cls(reason="power measurement is off for this device (power: {source: none})", log=log)
        names = AUTO_ORDER if source == "auto" else (source,)
        reasons = []
        probe = None
        for name in names:
            mod, label = _module(name)
            try:
                probe, reason = mod.discover(root, tools, cfg)
            except Exception as e:  # a broken sensor is a reason, not a crash
                probe, reason = None, "%s: %s: %s" % (label, type(e).__name__, e)
            if probe is not None:
                break
            reasons.append(reason)
        if probe is None:
            if source == "auto":
                reason = ("no power sensor found: looked for %s (%s). For an external meter set "
                          "power: {source: command, command: ..., unit: W} in devices.yaml"
                          % (", ".join(_module(n)[1] for n in AUTO_ORDER), "; ".join(reasons)))
            else:
                reason = "power source %s not usable: %s" % (source, reasons[0])
            return cls(reason=reason, log=log)
        wanted = float(cfg.get("rate_hz") or probe.default_rate_hz)  # a number > 0: PowerConfig checked it
        rate = min(wanted, probe.max_rate_hz)
        if rate < wanted:
            log("power: rate %.0f Hz capped to %.1f Hz by %s" % (wanted, rate, probe.source))
        monitor = cls(probe, rate, log=log)
        log("power: %s, rail %s, %.1f Hz, %s: %s" % (probe.source, probe.rail, rate, probe.method, probe.covers))
        return monitor

    def describe(self):
        if not self.available:
            return {"source": None, "available": False, "reason": self.reason}
        d = self.probe.describe()
        d["available"] = True
        d["rate_hz"] = self.rate_hz
        d["idle_note"] = IDLE_NOTE
        return d

    def measure_idle(self, seconds):
        """Blocks for `seconds`, sampling the idle baseline (before the model loads). Returns the idle dict."""
        if not self.available:
            return None
        self.sampler.reset()
        self.sampler.run_for(seconds)
        samples = list(self.sampler.samples)
        self._idle_samples = samples
        self.idle = self._idle_from(samples)
        self.sampler.reset()
        if self.idle.get("idle_w") is not None:
            self.log("power: idle %.3f W over %.1f s (%d samples)"
                     % (self.idle["idle_w"], self.idle["window_s"], self.idle["n_samples"]))
        return self.idle

    def _idle_from(self, samples):
        out = {"idle_w": None, "window_s": 0.0, "n_samples": len(samples), "note": IDLE_NOTE}
        method = self.probe.method
        if method == "trapezoid":
            usable = [s for s in samples if s[1] > 0]
        else:
            usable = samples
        if len(usable) >= 2 and usable[-1][0] > usable[0][0]:
            s = summarize(usable, method, usable[0][0], usable[-1][0], self.probe.rails,
                          self.probe.counter_update_s > 0)
            out["idle_w"] = s["mean_w"]
            out["window_s"] = s["window_s"]
            out["trace"] = s["trace"]
        elif len(usable) == 1 and method == "trapezoid":
            out["idle_w"] = usable[0][1]
        return out

    def start(self):
        """Start background sampling; the first sample is taken before this returns (it precedes t0)."""
        if not self.available:
            return
        self.sampler.reset()
        self.sampler.tick()
        self.sampler.start()

    def stop(self):
        """Stop sampling; one more sample is taken after the thread ends (it follows t1)."""
        if not self.available:
            return
        self.sampler.stop()
        self.sampler.tick()

    def readings(self):
        """(t_ns, W) lists of the last sampling window (start() .. stop()): readings_of its samples. Raw: no
        downsampling, so a caller can cut windows of its own from them (a generation's prefill and decode)."""
        if not self.available:
            return [], []
        return readings_of(list(self.sampler.samples), self.probe.method)

    def close(self):
        if self.sampler is not None:
            self.sampler.stop()
        if self.probe is not None:
            self.probe.close()

    def summary(self, t0_ns, t1_ns, inferences, duration_s=None):
        """Power and energy over exactly [t0_ns, t1_ns] (clock.now_ns() times) for `inferences` inferences."""
        if not self.available:
            return {"source": None, "available": False, "reason": self.reason}
        probe = self.probe
        s = summarize(list(self.sampler.samples), probe.method, int(t0_ns), int(t1_ns), probe.rails,
                      probe.counter_update_s > 0)
        energy, mean_w = s["energy_j"], s["mean_w"]
        idle_w = self.idle.get("idle_w") if self.idle else None
        duration = float(duration_s) if duration_s else s["window_s"]
        out = {
            "source": probe.source, "rail": probe.rail, "total_kind": probe.total_kind, "covers": probe.covers,
            "method": s["method"], "rate_hz": s["rate_hz"], "rate_hz_requested": self.rate_hz,
            "window_s": s["window_s"], "t0_ns": int(t0_ns), "t1_ns": int(t1_ns), "n_samples": s["n_samples"],
            "n_dropped_nonpositive": s["n_dropped_nonpositive"], "n_read_errors": self.sampler.n_errors,
            "mean_w": mean_w, "p95_w": s["p95_w"], "idle_w": idle_w,
            "dynamic_w": (mean_w - idle_w) if (mean_w is not None and idle_w is not None) else None,
            "energy_j": energy,
            "energy_mj_per_inference": (energy * 1000.0 / inferences) if (energy is not None and inferences)
            else None,
            "inferences_per_joule": (inferences / energy) if (energy and inferences) else None,
            "perf_per_watt": (inferences / duration / mean_w) if (mean_w and inferences and duration) else None,
            "rails": s["rails"], "trace": s["trace"],
            "idle_trace": self.idle.get("trace") if self.idle else None,
            "idle_note": IDLE_NOTE, "warnings": list(s["warnings"]),
        }
        if self.sampler.n_errors:
            out["warnings"].append("%d sensor reads failed (last: %s)" % (self.sampler.n_errors,
                                                                        self.sampler.last_error))
        if s["rate_hz"] and s["rate_hz"] < 0.8 * self.rate_hz:
            out["warnings"].append("achieved %.1f Hz of the %.1f Hz asked: the sensor or tool is slower; energy is "
                                   "still integrated over the samples taken" % (s["rate_hz"], self.rate_hz))
        if probe.source == "nvml" and probe.method == "counter" and s["window_s"] < 1.0:
            out["warnings"].append("NVML's energy counter updates every 20-100 ms: a %.2f s window is too short "
                                   "for a precise difference; raise --min-duration" % s["window_s"])
        if probe.source == "nvml":
            out["note"] = ("nvmlDeviceGetPowerUsage is a 1 s average on Ampere and newer (except GA100): p95_w "
                           "is smoothed there")
        return out
