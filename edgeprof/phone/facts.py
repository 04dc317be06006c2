"""A phone's facts (model, SoC, Android, ABI, cores and clocks, battery, thermal status, power source,
benchmark_model's self-report, delegates offered), read over its ADBTransport (transport/adb.open_adb opens it).

Owns: reading getprop, /proc/cpuinfo, cpufreq sysfs, /sys/class/power_supply/battery (and its vendors' unit and
sign deviations), `dumpsys thermalservice` (the kernel's thermal zones when it gives no temperatures) and the
on-device power rails (ODPM, rails.py) on the phone, and parsing them (never executing them).
Does not own: the transport (transport/adb.py), the sampler during a run (runner.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import TransportError
from ..records import Device
from ..transport.adb import ADBTransport
from .benchmark import SelfReport
from .rails import RailsReading, read_rails

# the getprop properties read, and the AndroidProps field each fills
PROPS = {"ro.product.manufacturer": "manufacturer", "ro.product.model": "model",
         "ro.soc.manufacturer": "soc_manufacturer", "ro.soc.model": "soc_model", "ro.board.platform": "board_platform",
         "ro.build.version.release": "release", "ro.build.version.sdk": "sdk", "ro.product.cpu.abi": "abi"}
BATTERY = "/sys/class/power_supply/battery"
# frameworks/base/core/java/android/os/PowerManager.java THERMAL_STATUS_*
THERMAL_STATUS = ("none", "light", "moderate", "severe", "critical", "emergency", "shutdown")


@dataclass(frozen=True)
class AndroidProps:
    """What getprop said (PROPS); None: the phone printed no line for the property."""

    manufacturer: str | None = None
    model: str | None = None
    soc_manufacturer: str | None = None
    soc_model: str | None = None
    board_platform: str | None = None
    release: str | None = None
    sdk: str | None = None
    abi: str | None = None

    @property
    def soc(self) -> str | None:
        """"Google GS101" (ro.soc.*, Android 12+), else the board platform."""
        return " ".join(x for x in (self.soc_manufacturer, self.soc_model) if x) or self.board_platform


@dataclass
class Battery:
    status: str | None  # the kernel's: Charging / Discharging / Not charging / Full / Unknown
    capacity_pct: int | None
    current_ua: int | None
    voltage_uv: int | None

    @property
    def charging(self) -> bool:
        return self.status in ("Charging", "Full")

    def deviations(self) -> list[str]:
        """How this reading departs from the kernel's power_supply ABI (Documentation/ABI/testing/sysfs-class-power:
        current_now in µA, negative while discharging; voltage_now in µV), as the power reader states it."""
        out = []
        c, v = self.current_ua, self.voltage_uv
        if c and abs(c) < MA_BELOW:
            out.append("current_now in mA, not µA")
        if v and v < MV_BELOW:
            out.append("voltage_now in mV, not µV")
        if c and c > 0 and self.status == "Discharging":
            out.append("current_now positive while discharging (the ABI's sign is negative)")
        return out


@dataclass
class Thermal:
    status: int | None
    temperatures_c: dict[str, float] = field(default_factory=dict)

    @property
    def status_name(self) -> str:
        return THERMAL_STATUS[self.status] if self.status is not None and 0 <= self.status < 7 else "unknown"

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "status_name": self.status_name, "temperatures_c": self.temperatures_c}


# below these a phone's current_now / voltage_now read as mA / mV (a phone draws ≥ 20 mA and its cell is ≥ 3 V)
MA_BELOW, MV_BELOW = 20_000, 10_000
THERMAL_ZONES = "/sys/class/thermal"
_INT_RE = re.compile(r"^-?\d+$")
_TEMP_RE = re.compile(r"Temperature\{mValue=(-?[\d.]+), mType=\d+, mName=([^,]+), mStatus=\d+\}")


def _int(text: str) -> int | None:
    text = text.strip()
    return int(text) if _INT_RE.match(text) else None


BATTERY_FILES = ("status", "capacity", "current_now", "voltage_now")


def read_battery(t: ADBTransport) -> Battery:
    r = t.run(["sh", "-c", 'for f in "$@"; do printf "%s=" "$f"; cat "$0/$f" 2>/dev/null || echo; done',
               BATTERY, *BATTERY_FILES])
    got = dict.fromkeys(BATTERY_FILES, "")  # a file the phone lacks reads as empty
    for line in r.stdout.splitlines():
        name, sep, value = line.partition("=")
        if sep and name in got:
            got[name] = value
    return Battery(status=got["status"].strip() or None, capacity_pct=_int(got["capacity"]),
                   current_ua=_int(got["current_now"]), voltage_uv=_int(got["voltage_now"]))


def parse_thermal(text: str) -> Thermal:
    """`dumpsys thermalservice` (ThermalManagerService.dump): "Thermal Status: N" and cached temperatures."""
    m = re.search(r"^Thermal Status: (\d+)\s*$", text, re.M)
    temps: dict[str, float] = {}
    cached = text.split("Cached temperatures:", 1)[1] if "Cached temperatures:" in text else ""
    for value, name in _TEMP_RE.findall(cached.split("HAL Ready", 1)[0]):
        temps.setdefault(name.strip(), float(value))
    return Thermal(status=int(m.group(1)) if m else None, temperatures_c=temps)


def read_thermal(t: ADBTransport) -> Thermal:
    """`dumpsys thermalservice`; where it gives no temperatures (an old Android, a vendor's service printing
    something else), the kernel's thermal zones (type and temp in m°C) instead."""
    r = t.run(["dumpsys", "thermalservice"], timeout=30)
    thermal = parse_thermal(r.stdout if r.returncode == 0 else "")
    if not thermal.temperatures_c:
        thermal.temperatures_c.update(read_thermal_zones(t))
    return thermal


def read_thermal_zones(t: ADBTransport) -> dict[str, float]:
    r = t.run(["sh", "-c", 'for z in "$0"/thermal_zone*; do [ -r "$z/temp" ] && printf "%s %s\\n" '
               '"$(cat "$z/temp" 2>/dev/null)" "$(cat "$z/type" 2>/dev/null)"; done; true', THERMAL_ZONES])
    return parse_thermal_zones(r.stdout)


def parse_thermal_zones(text: str) -> dict[str, float]:
    """"<m°C> <type>" lines → {type: °C}; a zone that reads no number (offline sensor) is left out."""
    temps: dict[str, float] = {}
    for line in text.splitlines():
        value, _, name = line.strip().partition(" ")
        if _INT_RE.match(value) and name.strip():
            temps.setdefault(name.strip(), int(value) / 1000.0)
    return temps


def read_props(t: ADBTransport) -> AndroidProps:
    r = t.run(["sh", "-c", 'for p in "$@"; do printf "%s=" "$p"; getprop "$p"; done', "getprop", *PROPS])
    out = {}
    for line in r.stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep and key in PROPS:
            out[PROPS[key]] = value.strip()
    return AndroidProps(**out)


def read_cpus(t: ADBTransport) -> list[dict[str, Any]]:
    """Each CPU's Arm part number (/proc/cpuinfo) and clocks in MHz (cpufreq, kHz in sysfs)."""
    r = t.run(["sh", "-c", "cat /proc/cpuinfo; for d in /sys/devices/system/cpu/cpu[0-9]*; do "
               'printf "freq %s %s %s\\n" "${d##*/cpu}" "$(cat $d/cpufreq/cpuinfo_max_freq 2>/dev/null)" '
               '"$(cat $d/cpufreq/scaling_cur_freq 2>/dev/null)"; done'])
    cpus: dict[int, dict[str, Any]] = {}
    current = None
    for line in r.stdout.splitlines():
        key, _, value = (s.strip() for s in line.partition(":"))
        if key == "processor" and value.isdigit():
            current = cpus.setdefault(int(value), {"cpu": int(value)})
        elif key == "CPU part" and current is not None:
            current["part"] = value
        elif line.startswith("freq "):
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                c = cpus.setdefault(int(parts[1]), {"cpu": int(parts[1])})
                vals = [_int(p) for p in parts[2:4]] + [None, None]
                c["max_mhz"] = vals[0] // 1000 if vals[0] is not None else None
                c["cur_mhz"] = vals[1] // 1000 if vals[1] is not None else None
    return [cpus[k] for k in sorted(cpus)]


@dataclass(frozen=True)
class PhoneFacts:
    """Everything `devices check` shows for a phone; `to_dict` is its --json form."""

    model: str
    soc: str | None
    android: str | None
    sdk: str | None
    abi: str | None
    cpus: list[dict[str, Any]]  # {cpu, part, max_mhz, cur_mhz} as /proc/cpuinfo and cpufreq gave them
    battery: Battery
    thermal: Thermal
    benchmark_model: SelfReport
    delegates: list[str]
    rails: RailsReading | None = None

    @property
    def power_source(self) -> str:
        """What a run's power would come from: the rails when the phone has them, else the battery (with its
        deviations from the kernel ABI), else nothing."""
        if self.rails is not None:
            return f"rails ({len(self.rails.rails)} ODPM rails on {', '.join(self.rails.meters)})"
        if self.battery.current_ua is None or self.battery.voltage_uv is None:
            return "none (no battery current/voltage)"
        dev = self.battery.deviations()
        return "battery" + (f" ({'; '.join(dev)})" if dev else "")

    def to_dict(self) -> dict[str, Any]:
        b = self.battery
        return {"model": self.model, "soc": self.soc, "android": self.android, "sdk": self.sdk, "abi": self.abi,
                "cpus": self.cpus,
                "battery": {"status": b.status, "capacity_pct": b.capacity_pct, "charging": b.charging,
                            "deviations": b.deviations()},
                "power_source": self.power_source, "rails": sorted(self.rails.rails) if self.rails else [],
                "thermal": self.thermal.to_dict(), "benchmark_model": self.benchmark_model.to_dict(),
                "delegates": self.delegates}


def read_facts(t: ADBTransport, device: Device) -> PhoneFacts:
    """Everything `devices check` shows for a phone."""
    from .benchmark import delegates_offered, self_report

    props = read_props(t)
    if not props.model:
        raise TransportError(f"{t.label}: getprop gave no ro.product.model (is this an Android device?)",
                             device=device.name)
    battery = read_battery(t)
    thermal = read_thermal(t)
    return PhoneFacts(model=f"{props.manufacturer or ''} {props.model}".strip(), soc=props.soc,
                      android=props.release, sdk=props.sdk, abi=props.abi, cpus=read_cpus(t), battery=battery,
                      thermal=thermal, benchmark_model=self_report(t, device), delegates=delegates_offered(t),
                      rails=read_rails(t))
