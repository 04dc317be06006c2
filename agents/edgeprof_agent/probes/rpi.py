"""Raspberry Pi 5 PMIC telemetry through `vcgencmd pmic_read_adc`.

Owns: running and parsing pmic_read_adc (lines like "  VDD_CORE_A current(7)=2.31600000A" and
"  VDD_CORE_V volt(15)=0.88571200V"), pairing each rail's current with its voltage and summing V x I.
What it covers: PMIC-side power only. EXT5V has a voltage but no current, so the 5 V input (USB, fan,
peripherals, conversion losses) is not in the number; it is not board or wall power. Each reading spawns a
process: about 10 Hz is the ceiling. Needs group `video`.
Does not own: get_throttled / measure_temp (thermal.py). Pi 4/3 have no current sensor: see hwmon.py.
"""

import re

from . import Probe, ProbeError

SOURCE = "rpi5-pmic"
_LINE = re.compile(r"^\s*(\S+?)_([AV])\s+(current|volt)\((\d+)\)=\s*([-+0-9.eE]+)\s*[AV]?\s*$")


def parse_pmic_read_adc(text):
    """{rail: {"a": amps, "v": volts}} in order of first appearance."""
    rails, order = {}, []
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        base, kind, value = m.group(1), m.group(2), float(m.group(5))
        if base not in rails:
            rails[base] = {}
            order.append(base)
        rails[base]["a" if kind == "A" else "v"] = value
    return [(name, rails[name]) for name in order]


class RpiPmicProbe(Probe):
    source = SOURCE
    method = "trapezoid"
    total_kind = "sum-of-rails"
    max_rate_hz = 10.0
    default_rate_hz = 10.0

    def __init__(self, tools, parsed):
        Probe.__init__(self)
        self._tools = tools
        self.rails = tuple(name for name, d in parsed if "a" in d and "v" in d)
        self.rail = "sum(%s)" % ",".join(self.rails)
        self.covers = ("PMIC-side power: sum of V x I over the Pi 5 PMIC rails; the 5 V input path (USB, fan, "
                       "HATs, conversion losses) is outside it; not board or wall power")
        self.detail = {"tool": "vcgencmd pmic_read_adc"}
        ext = [d.get("v") for name, d in parsed if name == "EXT5V"]
        if ext and ext[0] is not None:
            self.detail["ext5v_v"] = ext[0]

    def read(self):
        rc, out, err = self._tools.run(["vcgencmd", "pmic_read_adc"], timeout=2.0)
        if rc != 0:
            raise ProbeError("vcgencmd pmic_read_adc failed (rc %s): %s" % (rc, err.strip()[-200:]))
        got = dict(parse_pmic_read_adc(out))
        vals = []
        for name in self.rails:
            d = got.get(name)
            if d is None or "a" not in d or "v" not in d:
                raise ProbeError("vcgencmd pmic_read_adc: rail %s missing from output" % name)
            vals.append(d["a"] * d["v"])
        return sum(vals), tuple(vals), None


def discover(root, tools, config):
    if tools is None or tools.which("vcgencmd") is None:
        return None, "Pi 5 PMIC (vcgencmd): vcgencmd not found"
    rc, out, err = tools.run(["vcgencmd", "pmic_read_adc"], timeout=5.0)
    if rc != 0:
        hint = " (the user needs group 'video')" if "permission" in (err + out).lower() else ""
        return None, ("Pi 5 PMIC (vcgencmd): `vcgencmd pmic_read_adc` failed (rc %s: %s)%s; only a Pi 5 has it"
                      % (rc, (err or out).strip()[-200:], hint))
    parsed = parse_pmic_read_adc(out)
    if not any("a" in d and "v" in d for name, d in parsed):
        return None, "Pi 5 PMIC (vcgencmd): pmic_read_adc printed no rail with both current and voltage"
    return RpiPmicProbe(tools, parsed), None
