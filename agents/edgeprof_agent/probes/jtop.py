"""Jetson power through the jetson-stats service (module `jtop`), a fallback when sysfs is not readable.

Owns: opening a jtop client only if the module imports AND its root service answers (JtopException is
caught; never required) and reading each rail's power (mW) from `jetson.power` in both of its real shapes:
- jetson-stats >= 4.2 (`jtop/core/power.py`, `PowerService.get_status` / `total_power`): a dict
  {'rail': {NAME: {volt, curr, power, avg, online, ...}}, 'tot': {...}}. The total rail (VDD_IN / POM_5V_IN) is
  REMOVED from 'rail' and given as 'tot' with tot['name'] = its label; without one, 'tot' is jtop's sum of the
  rails and has no 'name'. Summing 'rail' on 4.2+ gives sub-rails only (under-reports module power).
- jetson-stats 3.x to 4.1 (`jtop/jtop.py` `power` property, `jtop/service.py` `_total_power`): a tuple
  (total, rails) of {'cur', 'avg'} dicts with names shortened ('VDD_'/'POM_' dropped, '_' -> ' '). jtop took as
  total the first rail whose name contains 'IN' (3.x, 4.0) or 'POM_5V_IN' (4.1, so a Xavier's VDD_IN stays in
  the rails as 'IN' and jtop's sum double-counts it), else the sum of the rails. Here: 'IN' among the rails is
  VDD_IN and is the total; else a total that differs from the rails' sum is the input rail jtop split out
  (POM_5V_IN on a Nano, whose rails are named '5V ...'; VDD_IN otherwise); else there is no input rail and the
  rails are summed (labelled as such). An AGX Orin has no input rail: the 'VIN SYS 5V0' that jtop < 4.1 split
  out as its total is a sub-rail and is summed with the others.
The total is chosen like jetson.py (never a sum onto it). jtop's `avg` is NOT a time average (every read sets
avg = (power + old_avg) // 2): it is ignored; the sampler integrates the instantaneous value. jtop's interval is
shared by all its clients and unreliable below ~0.5 s, so this probe runs at <= 2 Hz; direct sysfs (jetson.py)
is preferred whenever it works.
Does not own: the jtop service; it never changes jtop's settings.
"""

import importlib

from . import Probe, ProbeError, choose_total, is_nc_label

SOURCE = "jtop"


def _rails(power):
    """[(name, getter(power) -> mW)] for every connected rail jtop reports, its input rail included."""
    if isinstance(power, tuple):  # jetson-stats < 4.2: (total, rails) with 'cur'
        total, rails = power
        names = [n for n in (rails or {}) if not is_nc_label(n)]
        out = [("VDD_IN" if n == "IN" else n, _tuple_rail(n)) for n in names]
        if "IN" in names or not names:
            return out
        if int(total.get("cur", 0)) != sum(int(rails[n].get("cur", 0)) for n in names):  # jtop split one out
            if "GPU SOC" in names:  # AGX Orin has no input rail: jtop < 4.1 took VIN_SYS_5V0 (it contains 'IN')
                label = "VIN SYS 5V0"
            else:
                label = "POM_5V_IN" if any(n.startswith("5V ") for n in names) else "VDD_IN"
            out.insert(0, (label, lambda p: p[0]["cur"]))
        return out
    power = power or {}
    rails = power.get("rail") or {}
    out = [(n, _dict_rail(n)) for n in rails if not is_nc_label(n) and rails[n].get("online", True)]
    tot_name = (power.get("tot") or {}).get("name")
    if tot_name and tot_name not in rails:  # jetson-stats >= 4.2: the input rail lives in 'tot' only
        out.insert(0, (tot_name, lambda p: p["tot"]["power"]))
    return out


def _tuple_rail(name):
    return lambda p: p[1][name]["cur"]


def _dict_rail(name):
    return lambda p: p["rail"][name]["power"]


class JtopProbe(Probe):
    source = SOURCE
    method = "trapezoid"
    max_rate_hz = 2.0
    default_rate_hz = 2.0

    def __init__(self, client, rails, wanted, interval):
        Probe.__init__(self)
        self._client = client
        names = [n for n, _ in rails]
        self._getters = tuple(g for _, g in rails)
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
            power = self._client.power
            vals = tuple(float(get(power)) / 1000.0 for get in self._getters)
        except (KeyError, IndexError, TypeError, ValueError) as e:
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
        rails = _rails(client.power)
    except exc as e:
        return None, "jtop: the jtop service does not answer (%s)" % (" ".join(str(e).split()) or type(e).__name__)
    except Exception as e:
        if client is not None:
            try:
                client.close()
            except Exception:
                pass
        return None, "jtop: %s: %s" % (type(e).__name__, e)
    if not rails:
        client.close()
        return None, "jtop: the service reports no power rails"
    try:
        probe = JtopProbe(client, rails, config.get("rail"), interval)
    except ValueError as e:
        client.close()
        return None, "jtop: %s" % e
    return probe, None
