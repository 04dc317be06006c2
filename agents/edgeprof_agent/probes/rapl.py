"""Intel/AMD RAPL energy counters through powercap: /sys/class/powercap/intel-rapl:N[:M]/energy_uj.

Owns: finding zones, reading the cumulative microjoule counters and undoing wraparound per zone:
delta = (e1 - e0) mod max_energy_range_uj. The total is the package zone (or the sum of packages, labelled);
subzones (core, uncore, dram) are kept as rails and never added to it. It covers the CPU package (and DRAM
where a dram zone is chosen), not the whole system.
Since Linux 5.10 energy_uj is readable by root only (CVE-2020-8694): discover says so instead of crashing.
Does not own: the read cadence (sampler.py); reads must come more often than one wrap (tens of minutes).
"""

import os

from . import Probe

SOURCE = "rapl"
BASE = "/sys/class/powercap"


def find_zones(root):
    """[(board path, label)] for every intel-rapl zone; label is name or parent:name for subzones."""
    zones = []
    names = {}
    for path in root.glob(BASE + "/intel-rapl:*"):
        zone = os.path.basename(path)
        name = (root.try_read_text(path + "/name") or zone).strip()
        names[zone] = name
        zones.append((path, zone))
    out = []
    for path, zone in zones:
        parts = zone.split(":")
        if len(parts) > 2:
            parent = ":".join(parts[:2])
            label = "%s:%s" % (names.get(parent, parent), names[zone])
        else:
            label = names[zone]
        out.append((path, label))
    return out


class RaplProbe(Probe):
    source = SOURCE
    method = "counter"
    max_rate_hz = 100.0

    def __init__(self, root, zones, ranges, total_idx, rail, total_kind):
        Probe.__init__(self)
        self._root = root
        self._paths = tuple(p + "/energy_uj" for p, label in zones)
        self._ranges = tuple(ranges)
        self._total_idx = tuple(total_idx)
        self.rails = tuple(label for p, label in zones)
        self.rail = rail
        self.total_kind = total_kind
        self.covers = ("CPU package energy (RAPL %s), not the whole system: no GPU, board, disk or power supply"
                       % rail)
        self.detail = {"zones": [p for p, label in zones], "max_energy_range_uj": list(ranges)}
        self._last = None
        self._acc = [0] * len(zones)

    def read(self):
        read_int = self._root.read_int
        raw = [read_int(p) for p in self._paths]
        if self._last is not None:
            acc = self._acc
            for i, (r, last, rng) in enumerate(zip(raw, self._last, self._ranges)):
                acc[i] += (r - last) % rng if rng > 0 else r - last
        self._last = raw
        joules = tuple(a / 1e6 for a in self._acc)
        return sum(joules[i] for i in self._total_idx), joules, None


def discover(root, tools, config):
    config = config or {}
    zones = find_zones(root)
    if not zones:
        return None, "RAPL: no %s/intel-rapl:* zones" % BASE
    ranges = []
    for path, _label in zones:
        energy = path + "/energy_uj"
        try:
            root.read_int(energy)
        except (IOError, OSError) as e:
            if getattr(e, "errno", None) == 13 or isinstance(e, PermissionError):
                return None, ("RAPL: %s is readable by root only since Linux 5.10 (CVE-2020-8694): run the agent "
                              "as root or grant read access (e.g. a udev rule: chmod 0444 energy_uj), or choose "
                              "another power source" % energy)
            return None, "RAPL: cannot read %s: %s" % (energy, e)
        rng = root.try_read_int(path + "/max_energy_range_uj", 0) or 0
        ranges.append(rng)
    labels = [label for p, label in zones]
    wanted = config.get("rail")
    if wanted:
        if wanted not in labels:
            return None, "RAPL: zone %r not found; zones here: %s" % (wanted, ", ".join(labels))
        total_idx, rail, kind = [labels.index(wanted)], wanted, "package"
    else:
        total_idx = [i for i, label in enumerate(labels) if label.startswith("package-") and ":" not in label]
        if not total_idx:
            total_idx = [i for i, label in enumerate(labels) if ":" not in label][:1] or [0]
        if len(total_idx) == 1:
            rail, kind = labels[total_idx[0]], "package"
        else:
            rail, kind = "sum(%s)" % ",".join(labels[i] for i in total_idx), "sum-of-rails"
    probe = RaplProbe(root, zones, ranges, total_idx, rail, kind)
    probe.read()
    return probe, None
