"""A phone's on-device power rails (ODPM): the energy meters of Pixel 6 and later, read before and after a window.

The kernel's IIO energy meters (Pixel 6+: one per PMIC, s2mpg10-odpm and s2mpg11-odpm; AOSP hardware/google/pixel
powerstats IioEnergyMeterDataProvider reads the same files for the power.stats HAL) each expose
`/sys/bus/iio/devices/iio:deviceN/energy_value`:
    t=<ms since boot>
    CH0(T=<ms>)[S10M_VDD_TPU], <cumulative energy in µW·s>
    ...
one line per enabled channel, named by its rail (`enabled_rails` lists the same names). Perfetto's power rails data
source (perfetto.dev/docs/data-sources/battery-counters, "Power rails") and Android Studio's Power Profiler read these
counters through the HAL; this reads the sysfs files directly with `cat` as the shell user. A rail covers what its
regulator feeds (a CPU cluster, the GPU, memory, the modem), not the whole phone: the sum of the metered rails is
stated as such, never as battery power. Rails do not depend on the charger, so they are measured while charging.

Owns: finding the meters, one read of all of them (a RailsReading), the energy and mean power per rail and their sum
between two reads, and naming every line that is not a rail reading. Does not own: when to read (runner.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..transport.adb import ADBTransport
from .power import PowerReading, RailEnergy

IIO = "/sys/bus/iio/devices"
METER_MARK = "== "
_T_RE = re.compile(r"^t=(\d+)$")
_CH_RE = re.compile(r"^CH(\d+)\(T=(\d+)\)\[([^\]\s]+)\],\s*(\d+)$")


@dataclass(frozen=True)
class Rail:
    meter: str  # iio:deviceN
    channel: int
    t_ms: int  # the channel's own timestamp (ms since boot)
    energy_uws: int  # cumulative, µW·s


@dataclass
class RailsReading:
    """One read of every energy meter: each rail's counter, the meters' `t=` and the lines that were not readings."""

    meters: dict[str, int]  # iio:deviceN → t= (ms since boot)
    rails: dict[str, Rail]
    problems: list[str] = field(default_factory=list)


def parse_rails(text: str) -> RailsReading | None:
    """The output of `read_rails`' shell loop ("== /sys/.../iio:deviceN" then that meter's energy_value) → a reading;
    None when no meter printed a rail. A malformed line is left out and named in `problems`."""
    meters: dict[str, int] = {}
    rails: dict[str, Rail] = {}
    problems: list[str] = []
    meter = None
    lineno = 0
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith(METER_MARK):
            meter, lineno = line[len(METER_MARK):].rsplit("/", 1)[-1], 0
            continue
        lineno += 1
        if not line or meter is None:
            continue
        t, ch = _T_RE.match(line), _CH_RE.match(line)
        if t:
            meters[meter] = int(t.group(1))
        elif ch:
            name = ch.group(3)
            if name in rails:
                problems.append(f"{meter} line {lineno}: rail {name} is read twice (kept the first)")
                continue
            rails[name] = Rail(meter=meter, channel=int(ch.group(1)), t_ms=int(ch.group(2)),
                               energy_uws=int(ch.group(4)))
        else:
            problems.append(f"{meter} energy_value line {lineno}: {line[:60]!r} is not 'CHn(T=ms)[RAIL], µWs'")
    if not rails:
        return None
    return RailsReading(meters=meters, rails=rails, problems=problems)


def read_rails(t: ADBTransport) -> RailsReading | None:
    """Every IIO energy meter's energy_value, in one shell command; None when the phone has none (not a Pixel 6+,
    or the files are not readable as the shell user)."""
    r = t.run(["sh", "-c", 'for d in "$0"/iio:device*; do [ -r "$d/energy_value" ] || continue; '
               'echo "== $d"; cat "$d/energy_value" 2>/dev/null; done; true', IIO], timeout=30)
    return parse_rails(r.stdout) if r.returncode == 0 else None


def rails_power(before: RailsReading, after: RailsReading | None) -> tuple[PowerReading | None, str | None,
                                                                           list[str]]:
    """Two reads → (the power summary, why there is none, warnings): per rail the energy and mean power from its own
    timestamps, and the sum of the rails over the window. A rail missing from either read, or whose counter went
    back (a meter reset), is left out of the sum and named."""
    warnings = [f"power rails: {p}" for p in before.problems]
    if after is None:
        return None, "the power rails could not be read after the window", warnings
    warnings += [f"power rails: {p}" for p in after.problems if p not in before.problems]
    rails: list[RailEnergy] = []
    for name, a in sorted(before.rails.items(), key=lambda kv: (kv[1].meter, kv[1].channel)):
        b = after.rails.get(name)
        if b is None:
            warnings.append(f"power rails: {name} was not in the second read: left out of the sum")
            continue
        dt_ms, de = b.t_ms - a.t_ms, b.energy_uws - a.energy_uws
        if dt_ms <= 0 or de < 0:
            warnings.append(f"power rails: {name}'s counter went back or did not advance (a meter reset?): left out "
                            "of the sum")
            continue
        rails.append(RailEnergy(rail=name, meter=a.meter, channel=a.channel, energy_j=de * 1e-6,
                                mean_w=de / dt_ms * 1e-3, duration_s=dt_ms / 1000.0))
    if not rails:
        return None, "no power rail gave two readings that advanced", warnings
    # each meter (each channel) keeps its own time: the sum's mean power is the sum of the rails' mean powers
    duration = max(r.duration_s for r in rails)
    energy = sum(r.energy_j for r in rails)
    return PowerReading(source="rails", covers=f"the sum of {len(rails)} ODPM rails (what their regulators feed: CPU "
                                               "clusters, GPU, memory, modem ...; not the battery side)",
                        mean_w=sum(r.mean_w for r in rails), energy_j=energy, samples=2, duration_s=duration,
                        clock="the energy meters' own (t= ms since boot)", rails=tuple(rails)), None, warnings
