"""Power probes: one module per sensor family, each with `discover(root, tools, config)` and a Probe with read().

Owns: the Probe contract and helpers shared by the families (choosing the total rail, NC labels).
Does not own: sampling threads and windows (sampler.py), energy and summaries (power.py), thermal state.

Contract ("discover once, read every tick"):
- `discover(root, tools, config) -> (probe, None)` or `(None, reason)`. All path finding, tool checks and
  library initialisation happen here; reason is one sentence saying what was looked for and what was missing.
- `probe.read() -> (total, rails, inst_w)`, cheap, only reads:
    method "trapezoid": total = watts of the total rail (or the labelled sum), rails = tuple of watts aligned
                         with probe.rails, inst_w = None.
    method "counter":   total = joules accumulated since discover (wraparound already undone), rails = tuple
                         of accumulated joules aligned with probe.rails, inst_w = instantaneous watts or None.
  A read that fails raises (IOError/OSError/ValueError/RuntimeError); the sampler counts it.
- `probe.close()` releases libraries (NVML, jtop client).
"""

import re

# The input rail of a Jetson module, which already includes every other rail on it.
TOTAL_RAILS = ("VDD_IN", "POM_5V_IN")

_TOKENS = re.compile(r"[^A-Za-z0-9]+")


class ProbeError(RuntimeError):
    """A read failed in a way the sampler should count (bad tool output, library error)."""


class Probe(object):
    source = "unknown"
    method = "trapezoid"          # or "counter"
    rail = None                   # name of the total rail, or "sum(A,B,...)"
    total_kind = "rail"           # "rail" | "sum-of-rails" | "device" | "package" | "command"
    covers = ""                   # what the number includes and what it does not
    rails = ()                    # names aligned with read()[1]
    max_rate_hz = 100.0           # what the sensor can deliver meaningfully
    default_rate_hz = 50.0
    counter_update_s = 0.0        # > 0: the counter only changes every this many seconds (NVML: 20-100 ms)

    def __init__(self):
        self.detail = {}

    def read(self):
        raise NotImplementedError

    def close(self):
        pass

    def describe(self):
        out = {"source": self.source, "rail": self.rail, "total_kind": self.total_kind, "covers": self.covers,
               "method": self.method, "rails": list(self.rails), "max_rate_hz": self.max_rate_hz}
        if self.detail:
            out["detail"] = dict(self.detail)
        return out


def is_nc_label(label):
    """True for INA3221 channels that are not connected: a label that is, or has a token, 'NC'."""
    return "NC" in [t for t in _TOKENS.split(label.strip().upper()) if t]


def choose_total(names, wanted=None):
    """Pick the total among rail names.

    Returns (indices, rail_label, total_kind): one index when a total rail exists (VDD_IN / POM_5V_IN or the
    configured rail); all indices with a "sum(...)" label and total_kind "sum-of-rails" when none does (AGX
    Orin) or when `wanted` is "sum". Raises ValueError naming the rails found when `wanted` is not among them.
    Sub-rails are never added to a total rail.
    """
    names = list(names)
    if not names:
        raise ValueError("no rails")
    if wanted and str(wanted).lower() not in ("sum", "auto"):
        if wanted not in names:
            raise ValueError("rail %r not found; rails here: %s" % (wanted, ", ".join(names)))
        return [names.index(wanted)], wanted, "rail"
    if not wanted or str(wanted).lower() == "auto":
        for total in TOTAL_RAILS:
            if total in names:
                return [names.index(total)], total, "rail"
    if len(names) == 1:
        return [0], names[0], "rail"
    return list(range(len(names))), "sum(%s)" % ",".join(names), "sum-of-rails"
