"""Jetson power through the jetson-stats service (module `jtop`), a fallback when sysfs is not readable.

Owns: opening a jtop client only if the module imports AND its root service answers (JtopException is
caught; never required) and reading `jetson.power['rail'][NAME]['power']` (mW). The total rail is chosen like
jetson.py (VDD_IN / POM_5V_IN, never a sum onto it). jtop's `avg` is NOT a time average (every read sets
avg = (power + old_avg) // 2): it is ignored; the sampler integrates `power`. jtop's interval is shared by
all its clients and unreliable below ~0.5 s, so this probe runs at <= 2 Hz; direct sysfs (jetson.py) is
preferred whenever it works.
Does not own: the jtop service; it never changes jtop's settings.
"""

import importlib

from . import Probe, ProbeError, choose_total, is_nc_label

SOURCE = "jtop"


def _power_rails(power):
    rails = (power or {}).get("rail") or {}
    return [name for name in rails if not is_nc_label(name) and rails[name].get("online", True)]


class JtopProbe(Probe):
    source = SOURCE
    method = "trapezoid"
    max_rate_hz = 2.0
    default_rate_hz = 2.0

    def __init__(self, client, names, wanted, interval):
        Probe.__init__(self)
        self._client = client
        self.rails = tuple(names)
        self._total_idx, self.rail, self.total_kind = choose_total(names, wanted)
        if self.total_kind == "rail":
            self.covers = "module input (%s) via jtop, not wall power: the carrier board is outside it" % self.rail
        else:
            self.covers = ("sum of the module's connected rails via jtop (no input rail): an estimate; "
                           "not wall power")
        self.max_rate_hz = 1.0 / interval
        self.detail = {"interval_s": interval, "note": "jtop 'avg' ignored (not a time average)"}

    def read(self):
        try:
            rails = self._client.power["rail"]
            vals = tuple(float(rails[n]["power"]) / 1000.0 for n in self.rails)
        except (KeyError, TypeError, ValueError) as e:
            raise ProbeError("jtop power read failed: %r" % (e,)) from None
        idx = self._total_idx
        total = vals[idx[0]] if len(idx) == 1 else sum(vals[i] for i in idx)
        return total, vals, None

    def close(self):
        if self._client is not None:
            try:
                self._client.close()
            except Exception:
                pass
            self._client = None


def discover(root, tools, config):
    config = config or {}
    try:
        mod = importlib.import_module("jtop")
    except ImportError:
        return None, "jtop: python module jtop (jetson-stats) is not installed"
    exc = getattr(mod, "JtopException", Exception)
    interval = max(0.5, float(config.get("interval_s", 0.5)))
    client = None
    try:
        client = mod.jtop(interval=interval)
        client.start()
        names = _power_rails(client.power)
    except exc as e:
        return None, "jtop: the jtop service does not answer (%s)" % (" ".join(str(e).split()) or type(e).__name__)
    except Exception as e:
        if client is not None:
            try:
                client.close()
            except Exception:
                pass
        return None, "jtop: %s: %s" % (type(e).__name__, e)
    if not names:
        client.close()
        return None, "jtop: the service reports no power rails"
    try:
        probe = JtopProbe(client, names, config.get("rail"), interval)
    except ValueError as e:
        client.close()
        return None, "jtop: %s" % e
    return probe, None
