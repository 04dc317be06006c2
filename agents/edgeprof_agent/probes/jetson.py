"""Jetson on-module power monitors (TI INA3221), read straight from sysfs.

Owns: finding INA3221 channels in both layouts and turning them into watts.
- JetPack 4 (iio driver ina3221x), e.g. Nano: .../iio:deviceN/rail_name_K, in_powerK_input (mW)
  [or in_voltageK_input mV x in_currentK_input mA].
- JetPack 5/6 (mainline hwmon ina3221): .../hwmon/hwmonN/inK_label, inK_input (bus mV), currK_input (mA);
  in7 (sum of shunts) and NC channels are skipped.
Devices are found by scanning /sys/bus/i2c/devices/*/name for "ina3221" (and /sys/bus/i2c/drivers/ina3221x/*).
The total is the module input rail (VDD_IN / POM_5V_IN), never a sum of sub-rails; where the module has no
input rail (AGX Orin) the sum of the connected rails is used and labelled "sum(...)", "sum-of-rails".
Does not own: jtop (jtop.py), tegrastats, the sampling loop.
"""

import os
import re

from . import Probe, choose_total, is_nc_label

SOURCE = "jetson-ina3221"
_K = re.compile(r"(\d+)$")
_HWMON_LABEL = re.compile(r"^in(\d+)_label$")


def _ina_devices(root):
    """Board paths of INA3221 device directories, deduplicated through their real paths."""
    candidates = []
    for name_path in root.glob("/sys/bus/i2c/devices/*/name"):
        name = (root.try_read_text(name_path) or "").strip().lower()
        if name.startswith("ina3221"):
            candidates.append(os.path.dirname(name_path))
    candidates.extend(root.glob("/sys/bus/i2c/drivers/ina3221x/*-*"))
    candidates.extend(root.glob("/sys/bus/i2c/drivers/ina3221/*-*"))
    seen, out = set(), []
    for dev in candidates:
        real = root.realpath(dev)
        if real not in seen:
            seen.add(real)
            out.append(dev)
    return out


def find_channels(root):
    """[(rail_name, kind, path_a, path_b, device)] for every connected channel; kind 'mW' or 'mVxmA'."""
    channels, seen = [], set()
    for dev in _ina_devices(root):
        for iio in root.glob(dev + "/iio:device*"):
            real = root.realpath(iio)
            if real in seen:
                continue
            seen.add(real)
            for rn in root.glob(iio + "/rail_name_*"):
                k = _K.search(rn).group(1)
                label = (root.try_read_text(rn) or "").strip()
                if not label or is_nc_label(label):
                    continue
                p = "%s/in_power%s_input" % (iio, k)
                if root.exists(p):
                    channels.append((label, "mW", p, None, dev))
                else:
                    v, c = "%s/in_voltage%s_input" % (iio, k), "%s/in_current%s_input" % (iio, k)
                    if root.exists(v) and root.exists(c):
                        channels.append((label, "mVxmA", v, c, dev))
        for hw in root.glob(dev + "/hwmon/hwmon*"):
            real = root.realpath(hw)
            if real in seen:
                continue
            seen.add(real)
            labels = []
            for name in root.listdir(hw):
                m = _HWMON_LABEL.match(name)
                if m:
                    labels.append(int(m.group(1)))
            for k in sorted(labels):
                if k == 7:  # in7 is the sum of shunt voltages, not a rail
                    continue
                label = (root.try_read_text("%s/in%d_label" % (hw, k)) or "").strip()
                if not label or is_nc_label(label):
                    continue
                v, c = "%s/in%d_input" % (hw, k), "%s/curr%d_input" % (hw, k)
                if root.exists(v) and root.exists(c):
                    channels.append((label, "mVxmA", v, c, dev))
    return channels


class JetsonIna3221Probe(Probe):
    source = SOURCE
    method = "trapezoid"
    max_rate_hz = 200.0   # the kernel driver caches conversions; faster sampling repeats values

    def __init__(self, root, channels, wanted_rail=None):
        Probe.__init__(self)
        self._root = root
        names = [c[0] for c in channels]
        self._total_idx, self.rail, self.total_kind = choose_total(names, wanted_rail)
        self.rails = tuple(names)
        self._plan = tuple((c[1] == "mW", c[2], c[3]) for c in channels)
        layout = "iio ina3221x (JetPack 4)" if any("/iio:device" in c[2] for c in channels) \
            else "hwmon ina3221 (JetPack 5/6)"
        self.detail = {"layout": layout, "devices": sorted(set(c[4] for c in channels)),
                       "total_path": [channels[i][2] for i in self._total_idx]}
        if self.total_kind == "rail":
            self.covers = ("module input (%s), not wall power: the carrier board and power supply are outside it"
                           % self.rail)
        else:
            self.covers = ("sum of the module's connected rails (this module has no input rail such as VDD_IN): "
                           "an estimate that misses regulator losses and anything off these rails; not wall power")

    def read(self):
        read_int = self._root.read_int
        vals = []
        for is_mw, a, b in self._plan:
            if is_mw:
                vals.append(read_int(a) / 1000.0)
            else:
                vals.append(read_int(a) * read_int(b) / 1e6)
        idx = self._total_idx
        total = vals[idx[0]] if len(idx) == 1 else sum(vals[i] for i in idx)
        return total, tuple(vals), None


def discover(root, tools, config):
    config = config or {}
    channels = find_channels(root)
    if not channels:
        return None, ("INA3221 (i2c): no ina3221 device with readable rails under /sys/bus/i2c/devices/*/name "
                      "or /sys/bus/i2c/drivers/ina3221x")
    try:
        probe = JetsonIna3221Probe(root, channels, config.get("rail"))
    except ValueError as e:
        return None, "INA3221 (i2c): %s" % e
    try:
        probe.read()
    except (IOError, OSError, ValueError) as e:
        return None, "INA3221 (i2c): found %s but reading failed: %s" % (", ".join(probe.rails), e)
    return probe, None
