"""Thermal and clock state before and after a run, what changed, and waiting for a board to cool down.

Owns: snapshot() of thermal zones, cpufreq governors and current frequencies, Jetson nvpmodel mode, an inferred
jetson_clocks state, GPU/EMC frequencies and fan, Raspberry Pi get_throttled (decoded, including the sticky
"has occurred" bits 16-19), NVML clock event reasons; compare() turning two snapshots into warnings with
advice; wait_cool() for --cooldown. Absent things are simply absent from a snapshot.
Does not own: changing any device state (no nvpmodel -m, no jetson_clocks, no governor writes), power.
Only reads: every file through SysfsRoot, every program through ToolRunner.
"""

import os
import re
import time

from . import clock as _clock
from .probes import nvml as _nvml

# Zones whose value is not a temperature one can cool below: Jetson Nano / TX2 "PMIC-Die" reads a fixed
# 100 C; Orin reports -256 C for sensors of powered-off blocks (CV/DLA).
IGNORED_ZONE_TYPES = ("PMIC-Die",)
MIN_VALID_C = -40.0

RPI_FLAGS = ((0, "under-voltage"), (1, "arm-frequency-capped"), (2, "throttled"), (3, "soft-temperature-limit"))
RPI_ADVICE = {
    "under-voltage": "use the official power supply (5 V 5 A for a Pi 5, 5 V 3 A for a Pi 4) and a short cable",
    "arm-frequency-capped": "add a heatsink or fan, or run with --cooldown",
    "throttled": "add a heatsink or fan, or run with --cooldown",
    "soft-temperature-limit": "add a heatsink or fan, or run with --cooldown",
}
NVML_ADVICE = {
    "SwPowerCap": "the GPU hit its power limit: results are power-bound; check nvidia-smi -q -d POWER",
    "HwSlowdown": "hardware slowdown (temperature or power brake): check cooling and the power supply",
    "SwThermalSlowdown": "the driver lowered clocks for temperature: improve cooling or run with --cooldown",
    "HwThermalSlowdown": "the GPU throttled for temperature: improve cooling or run with --cooldown",
    "HwPowerBrakeSlowdown": "an external power brake slowed the GPU: check the power supply",
}
_NVP_MODE = re.compile(r"NV Power Mode\s*:\s*(.+?)\s*$")
_VC_TEMP = re.compile(r"temp=([-0-9.]+)")
_VC_THROTTLED = re.compile(r"throttled=(0x[0-9a-fA-F]+|\d+)")
_VC_FREQ = re.compile(r"frequency\(\d+\)=(\d+)")


# ---------------------------------------------------------------------------------------------- readers

def thermal_zones(root):
    """{zone: {"type", "temp_c"[, "ignored"]}} from /sys/class/thermal/thermal_zone*/{type,temp} (m°C)."""
    out = {}
    for zdir in root.glob("/sys/class/thermal/thermal_zone*"):
        raw = root.try_read_int(zdir + "/temp")
        if raw is None:
            continue
        ztype = (root.try_read_text(zdir + "/type") or "").strip()
        d = {"type": ztype, "temp_c": raw / 1000.0}
        if ztype in IGNORED_ZONE_TYPES:
            d["ignored"] = "fixed value on this board, not a real temperature"
        elif d["temp_c"] <= MIN_VALID_C:
            d["ignored"] = "sensor offline (block powered off)"
        out[os.path.basename(zdir)] = d
    return out


def cpufreq(root):
    """{cpuN: {"governor", "cur_khz", "min_khz", "max_khz"}} for CPUs with cpufreq."""
    out = {}
    for cdir in root.glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq"):
        cpu = os.path.basename(os.path.dirname(cdir))
        d = {}
        gov = root.try_read_text(cdir + "/scaling_governor")
        if gov is not None:
            d["governor"] = gov.strip()
        for key, name in (("cur_khz", "scaling_cur_freq"), ("min_khz", "scaling_min_freq"),
                          ("max_khz", "scaling_max_freq"), ("hw_max_khz", "cpuinfo_max_freq")):
            v = root.try_read_int(cdir + "/" + name)
            if v is not None:
                d[key] = v
        if d:
            out[cpu] = d
    return out


def gpu_devfreq(root):
    """Jetson GPU devfreq ({name, cur_hz, min_hz, max_hz}) or None."""
    for ddir in root.glob("/sys/class/devfreq/*"):
        name = os.path.basename(ddir)
        if not any(k in name for k in ("gpu", "ga10b", "gv11b", "gp10b", "gb10b")):
            continue
        d = {"name": name}
        for key, fname in (("cur_hz", "cur_freq"), ("min_hz", "min_freq"), ("max_hz", "max_freq")):
            v = root.try_read_int(ddir + "/" + fname)
            if v is not None:
                d[key] = v
        if "cur_hz" in d:
            return d
    return None


def emc_hz(root):
    """Jetson EMC (memory) clock from debugfs (root only); None when not readable."""
    for path in ("/sys/kernel/debug/bpmp/debug/clk/emc/rate", "/sys/kernel/debug/clk/emc/clk_rate"):
        v = root.try_read_int(path)
        if v is not None:
            return v
    return None


def fan(root):
    out = {}
    for key, path in (("target_pwm", "/sys/devices/pwm-fan/target_pwm"), ("cur_pwm", "/sys/devices/pwm-fan/cur_pwm")):
        v = root.try_read_int(path)
        if v is not None:
            out[key] = v
    for hdir in root.glob("/sys/class/hwmon/hwmon*"):
        if (root.try_read_text(hdir + "/name") or "").strip() == "pwmfan":
            v = root.try_read_int(hdir + "/pwm1")
            if v is not None:
                out["pwm1"] = v
            rpm = root.try_read_int(hdir + "/fan1_input")
            if rpm is not None:
                out["rpm"] = rpm
    return out or None


def parse_nvpmodel_q(text):
    """`nvpmodel -q` → {"name": "MAXN", "id": 0} (the id is the first integer line after the mode line)."""
    name, mode_id = None, None
    for line in text.splitlines():
        m = _NVP_MODE.search(line)
        if m:
            name = m.group(1)
            continue
        s = line.strip()
        if name is not None and mode_id is None and s.isdigit():
            mode_id = int(s)
    if name is None and mode_id is None:
        return None
    return {"name": name, "id": mode_id}


def decode_throttled(value):
    """vcgencmd get_throttled bits → {"bits", "raw", "now": [...], "has_occurred": [...]}."""
    now = [name for bit, name in RPI_FLAGS if value & (1 << bit)]
    occurred = [name for bit, name in RPI_FLAGS if value & (1 << (bit + 16))]
    return {"bits": value, "raw": "0x%x" % value, "now": now, "has_occurred": occurred}


def _vcgencmd(tools, *args):
    rc, out, err = tools.run(["vcgencmd"] + list(args), timeout=5.0)
    return out if rc == 0 else None


def rpi_state(tools):
    if tools is None or tools.which("vcgencmd") is None:
        return None
    d = {}
    out = _vcgencmd(tools, "get_throttled")
    m = _VC_THROTTLED.search(out or "")
    if m:
        d["throttled"] = decode_throttled(int(m.group(1), 0))
    m = _VC_TEMP.search(_vcgencmd(tools, "measure_temp") or "")
    if m:
        d["temp_c"] = float(m.group(1))
    m = _VC_FREQ.search(_vcgencmd(tools, "measure_clock", "arm") or "")
    if m:
        d["arm_hz"] = int(m.group(1))
    return d or None


def nvpmodel(tools):
    if tools is None or tools.which("nvpmodel") is None:
        return None
    rc, out, err = tools.run(["nvpmodel", "-q"], timeout=10.0)
    if rc != 0:
        return None
    return parse_nvpmodel_q(out)


def _jetson_clocks_inferred(cpus, gpu):
    """jetson_clocks pins min = max on CPUs and the GPU; infer it without running it (needs root, is slow)."""
    if not cpus or gpu is None or "min_hz" not in gpu or "max_hz" not in gpu:
        return None
    cpu_locked = all(d.get("min_khz") is not None and d.get("min_khz") == d.get("max_khz") for d in cpus.values())
    gpu_locked = gpu["min_hz"] == gpu["max_hz"]
    return {"locked": bool(cpu_locked and gpu_locked),
            "how": "inferred: scaling_min_freq == scaling_max_freq on every CPU and GPU devfreq min == max"}


def nvml_state():
    nv, reason = _nvml.load()
    if nv is None:
        return None
    try:
        return _nvml.device_state(nv) or None
    except Exception:
        return None
    finally:
        _nvml.shutdown(nv)


# ---------------------------------------------------------------------------------------------- public API

def max_temp_c(snap):
    """Hottest trusted temperature in a snapshot (zones, Pi measure_temp, NVML GPUs), or None."""
    temps = [z["temp_c"] for z in (snap.get("zones") or {}).values() if "ignored" not in z]
    rpi = snap.get("rpi") or {}
    if "temp_c" in rpi:
        temps.append(rpi["temp_c"])
    for g in snap.get("nvml") or []:
        if "temp_c" in g:
            temps.append(g["temp_c"])
    return max(temps) if temps else None


def snapshot(root, tools):
    """The board's thermal and clock state now. Never changes anything; never raises for a missing part."""
    snap = {"t_ns": _clock.now_ns(), "unix_time": time.time()}
    zones = thermal_zones(root)
    if zones:
        snap["zones"] = zones
    cpus = cpufreq(root)
    if cpus:
        snap["cpufreq"] = cpus
        govs = sorted(set(d["governor"] for d in cpus.values() if "governor" in d))
        if govs:
            snap["governors"] = govs
    gpu = gpu_devfreq(root)
    if gpu is not None:
        snap["gpu_freq"] = gpu
    emc = emc_hz(root)
    if emc is not None:
        snap["emc_hz"] = emc
    f = fan(root)
    if f is not None:
        snap["fan"] = f
    mode = nvpmodel(tools)
    if mode is not None:
        snap["nvpmodel"] = mode
    if mode is not None or gpu is not None:
        jc = _jetson_clocks_inferred(cpus, gpu)
        if jc is not None:
            snap["jetson_clocks"] = jc
    rpi = rpi_state(tools)
    if rpi is not None:
        snap["rpi"] = rpi
    gpus = nvml_state()
    if gpus is not None:
        snap["nvml"] = gpus
    hottest = max_temp_c(snap)
    if hottest is not None:
        snap["max_temp_c"] = hottest
    return snap


def compare(before, after, temp_rise_c=15.0):
    """Warnings ({"code", "message"}) about what happened between two snapshots, each with advice."""
    warnings = []
    before = before or {}
    after = after or {}

    thr_b = ((before.get("rpi") or {}).get("throttled") or {})
    thr_a = ((after.get("rpi") or {}).get("throttled") or {})
    if thr_a:
        now = thr_a.get("now") or []
        if now:
            warnings.append({"code": "rpi_throttled_now", "message": (
                "Raspberry Pi reports %s right after the run (get_throttled=%s): the numbers are not those of an "
                "unthrottled board; %s" % (", ".join(now), thr_a.get("raw"),
                                           "; ".join(sorted(set(RPI_ADVICE[n] for n in now)))))})
        new = [n for n in thr_a.get("has_occurred") or [] if n not in (thr_b.get("has_occurred") or [])]
        if new:
            warnings.append({"code": "rpi_throttled_during_run", "message": (
                "Raspberry Pi %s occurred during the run (get_throttled %s -> %s); %s"
                % (", ".join(new), thr_b.get("raw", "?"), thr_a.get("raw"),
                   "; ".join(sorted(set(RPI_ADVICE[n] for n in new)))))})
        old = [n for n in thr_b.get("has_occurred") or []]
        if old and not new and not now:
            warnings.append({"code": "rpi_throttle_history", "message": (
                "Raspberry Pi had already reported %s since boot before this run (sticky bits, get_throttled=%s): "
                "cannot tell whether this run was affected; reboot to clear them"
                % (", ".join(old), thr_b.get("raw")))})

    zb, za = before.get("zones") or {}, after.get("zones") or {}
    for zone in sorted(za):
        a, b = za[zone], zb.get(zone)
        if b is None or "ignored" in a or "ignored" in b:
            continue
        rise = a["temp_c"] - b["temp_c"]
        if rise > temp_rise_c:
            warnings.append({"code": "temperature_rise", "message": (
                "%s (%s) rose %.1f C during the run (%.1f -> %.1f C): later iterations may run slower; use "
                "--cooldown, add cooling, or check the latency trace for a trend"
                % (zone, a.get("type"), rise, b["temp_c"], a["temp_c"]))})
    rb, ra = (before.get("rpi") or {}).get("temp_c"), (after.get("rpi") or {}).get("temp_c")
    if rb is not None and ra is not None and ra - rb > temp_rise_c and not za:
        warnings.append({"code": "temperature_rise", "message": (
            "SoC temperature rose %.1f C during the run (%.1f -> %.1f C): use --cooldown or add cooling"
            % (ra - rb, rb, ra))})

    gb = dict((g.get("index"), g) for g in before.get("nvml") or [])
    for g in after.get("nvml") or []:
        bad = [r for r in g.get("clock_reasons") or [] if r in NVML_ADVICE]
        if bad:
            warnings.append({"code": "gpu_clock_reasons", "message": (
                "GPU %s (%s) clocks limited at the end of the run by %s: %s"
                % (g.get("index"), g.get("name", "?"), ", ".join(bad), "; ".join(NVML_ADVICE[r] for r in bad)))})
        b = gb.get(g.get("index")) or {}
        if "temp_c" in g and "temp_c" in b and g["temp_c"] - b["temp_c"] > temp_rise_c:
            warnings.append({"code": "temperature_rise", "message": (
                "GPU %s rose %.1f C during the run (%.1f -> %.1f C): use --cooldown or improve cooling"
                % (g.get("index"), g["temp_c"] - b["temp_c"], b["temp_c"], g["temp_c"]))})

    mb, ma = before.get("nvpmodel"), after.get("nvpmodel")
    if mb and ma and (mb.get("id"), mb.get("name")) != (ma.get("id"), ma.get("name")):
        warnings.append({"code": "nvpmodel_changed", "message": (
            "the Jetson power mode changed during the run (%s -> %s): results mix two modes; do not change "
            "nvpmodel while measuring" % (mb.get("name"), ma.get("name")))})
    gvb, gva = before.get("governors"), after.get("governors")
    if gvb and gva and gvb != gva:
        warnings.append({"code": "governor_changed", "message": (
            "the cpufreq governor changed during the run (%s -> %s): something else manages clocks; stop it "
            "(e.g. a power daemon) before measuring" % (",".join(gvb), ",".join(gva)))})
    return warnings


def current_max_temp(root, tools):
    snap = {"zones": thermal_zones(root)}
    if not snap["zones"]:
        rpi = rpi_state(tools)
        if rpi:
            snap["rpi"] = rpi
    gpus = nvml_state()
    if gpus:
        snap["nvml"] = gpus
    return max_temp_c(snap)


def wait_cool(root, tools, below_c, timeout_s, log=None, poll_s=1.0):
    """Block until the hottest trusted temperature is below `below_c` or `timeout_s` passes.

    Returns {"cooled", "start_c", "end_c", "waited_s", "below_c"}; cooled is None when no temperature is readable.
    """
    log = log or (lambda msg: None)
    t_start = _clock.now_ns()
    temp = current_max_temp(root, tools)
    start_c = temp
    if temp is None:
        log("cooldown: no temperature sensor readable; not waiting")
        return {"cooled": None, "start_c": None, "end_c": None, "waited_s": 0.0, "below_c": below_c}
    last_log = t_start
    while temp >= below_c:
        waited = (_clock.now_ns() - t_start) / 1e9
        if waited >= timeout_s:
            log("cooldown: still %.1f C after %.0f s (target < %.1f C); measuring anyway" % (temp, waited, below_c))
            return {"cooled": False, "start_c": start_c, "end_c": temp, "waited_s": waited, "below_c": below_c}
        if _clock.now_ns() - last_log >= 10e9 or last_log == t_start:
            log("cooldown: %.1f C, waiting for < %.1f C" % (temp, below_c))
            last_log = _clock.now_ns()
        time.sleep(max(0.0, min(poll_s, timeout_s - waited)))
        temp = current_max_temp(root, tools)
        if temp is None:
            break
    waited = (_clock.now_ns() - t_start) / 1e9
    return {"cooled": temp is not None and temp < below_c, "start_c": start_c, "end_c": temp,
            "waited_s": waited, "below_c": below_c}
