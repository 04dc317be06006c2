"""External INA2xx power meters (INA219 / INA226 / INA260 ...) exposed through the kernel hwmon ina2xx driver.

Owns: finding /sys/class/hwmon/hwmonN with name ina2xx and reading power1_input (microwatts), or bus voltage
in1_input (mV) x curr1_input (mA) when power1_input is missing. This is the way to measure a Raspberry Pi 4/3
(no on-board current sensor) or the whole 5 V input of any board.
Does not own: the on-module INA3221 of a Jetson (jetson.py), which also shows up under /sys/class/hwmon.
"""

import os

from . import Probe

SOURCE = "hwmon"
INA2XX_NAMES = ("ina209", "ina219", "ina220", "ina226", "ina230", "ina231", "ina234", "ina237", "ina238",
                "ina260")


def find_sensors(root):
    """[(hwmon board path, chip name)] for INA2xx sensors, natural order."""
    out = []
    for name_path in root.glob("/sys/class/hwmon/hwmon*/name"):
        name = (root.try_read_text(name_path) or "").strip().lower()
        if name in INA2XX_NAMES:
            out.append((os.path.dirname(name_path), name))
    return out


class HwmonInaProbe(Probe):
    source = SOURCE
    method = "trapezoid"
    total_kind = "rail"
    max_rate_hz = 100.0

    def __init__(self, root, hwmon, chip, config):
        Probe.__init__(self)
        self._root = root
        self._power = hwmon + "/power1_input"
        self._volt = hwmon + "/in1_input"
        self._curr = hwmon + "/curr1_input"
        self._use_power = root.exists(self._power)
        self.rail = config.get("rail") or "%s@%s" % (chip, os.path.basename(hwmon))
        self.rails = (self.rail,)
        self.covers = config.get("covers") or (
            "what the external %s is wired into (usually the board's 5 V input: board power without the "
            "power supply's losses, not wall power)" % chip)
        self.detail = {"hwmon": hwmon, "chip": chip,
                       "reading": "power1_input (uW)" if self._use_power else "in1_input (mV) x curr1_input (mA)"}
        interval = root.try_read_int(hwmon + "/update_interval")
        if interval:
            self.detail["update_interval_ms"] = interval

    def read(self):
        if self._use_power:
            w = self._root.read_int(self._power) / 1e6
        else:
            w = self._root.read_int(self._volt) * self._root.read_int(self._curr) / 1e6
        return w, (w,), None


def discover(root, tools, config):
    config = config or {}
    sensors = find_sensors(root)
    wanted = config.get("hwmon")
    if wanted:
        sensors = [s for s in sensors if os.path.basename(s[0]) == wanted or s[0] == wanted]
        if not sensors:
            return None, "hwmon ina2xx: %s is not an INA2xx hwmon device" % wanted
    if not sensors:
        return None, "hwmon ina2xx: no /sys/class/hwmon/hwmon*/name among %s" % ", ".join(INA2XX_NAMES)
    hwmon, chip = sensors[0]
    probe = HwmonInaProbe(root, hwmon, chip, config)
    if not probe._use_power and not (root.exists(probe._volt) and root.exists(probe._curr)):
        return None, "hwmon ina2xx: %s has neither power1_input nor in1_input + curr1_input" % hwmon
    if len(sensors) > 1:
        probe.detail["others"] = [s[0] for s in sensors[1:]]
    try:
        probe.read()
    except (IOError, OSError, ValueError) as e:
        return None, "hwmon ina2xx: reading %s failed: %s" % (hwmon, e)
    return probe, None
