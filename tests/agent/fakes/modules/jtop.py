"""Test double of jetson-stats' `jtop` module: `jtop(interval=...)`, start/close/ok, `.power`, JtopException.

fake_reset(service_active=False) reproduces a machine without the jtop.service: start() raises at once with
the real message. With the service, `.power` has the shape of the release named by `version` (`__version__`):
- >= 4.2 (jtop/core/power.py `PowerService.get_status` + `total_power`, 4.2.0 to 7.x): {'rail': {NAME: {...}},
  'tot': {...}}; NC channels are skipped; the first of POM_5V_IN / VDD_IN is REMOVED from 'rail' and becomes 'tot'
  with tot['name']; without one, 'tot' = {'power': sum, 'avg': sum} of the rails (no 'name').
- 4.1.x (jtop/service.py `_total_power` then renaming; jtop/jtop.py `power` returns (total, power)): NC dropped;
  the rail whose name contains 'POM_5V_IN' is the total, else the sum of all rails; the rest renamed
  ('VDDQ_', 'VDD_', 'POM_' dropped, '_' -> ' '); values {'cur', 'avg'}.
- 3.x and 4.0.x (jtop/service.py: renaming FIRST, then `_total_power`): the first renamed name containing 'IN'
  is the total (also AGX Orin's 'VIN SYS 5V0'), else the sum; 3.x does not drop 'VDDQ_' or NC.
'avg' is computed the way jtop does it ((power + old_avg) // 2 per read), so a probe that used it would be wrong.
"""

__version__ = "4.2.12"


class JtopException(Exception):
    pass


class _State:
    def __init__(self):
        self.service_active = False
        self.rails = {}
        self.power_fn = None
        self.clients = []
        self.version = (4, 2, 12)


_state = _State()


def fake_reset(service_active=False, rails=None, power_fn=None, version="4.2.12"):
    """rails: {NAME: mW} (sysfs labels, in channel order); power_fn(name) -> mW overrides them per read."""
    global _state, __version__
    _state = _State()
    _state.service_active = service_active
    _state.rails = dict(rails or {})
    _state.power_fn = power_fn
    _state.version = tuple(int(x) for x in version.split(".")[:3])
    __version__ = version
    return _state


def fake_state():
    return _state


def _rename(name, prefixes):
    for p in prefixes:
        name = name.replace(p, "")
    return name.replace("_", " ")


class jtop:
    def __init__(self, interval=1.0):
        self.interval = interval
        self._started = False
        self._avg = {}
        _state.clients.append(self)

    def start(self):
        if not _state.service_active:
            raise JtopException("The jtop.service is not active. Please run:\nsudo systemctl restart jtop.service")
        self._started = True

    def ok(self, spin=False):
        return self._started

    def close(self):
        self._started = False

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()

    def _read(self, name, mw):
        p = int(_state.power_fn(name) if _state.power_fn else mw)
        avg = (p + self._avg.get(name, p)) // 2
        self._avg[name] = avg
        return p, avg

    @property
    def power(self):
        if not self._started:
            raise JtopException("jtop is not started")
        v = _state.version
        if v >= (4, 2):
            return self._power_42()
        watt = {}
        for name, mw in _state.rails.items():
            if v >= (4, 1) and name == "NC":
                continue
            p, avg = self._read(name, mw)
            watt[name] = {"cur": p, "avg": avg}
        if v >= (4, 1):  # 4.1: the total is found before renaming, by 'POM_5V_IN' only
            total_name = next((n for n in watt if "POM_5V_IN" in n), "")
            total = watt.pop(total_name) if total_name else None
            power = dict((_rename(k, ("VDDQ_", "VDD_", "POM_")), val) for k, val in watt.items())
        else:  # 3.x / 4.0: renamed first, then the first name containing 'IN' is the total
            prefixes = ("VDDQ_", "VDD_", "POM_") if v >= (4, 0) else ("VDD_", "POM_")
            power = dict((_rename(k, prefixes), val) for k, val in watt.items())
            total_name = next((n for n in power if "IN" in n), "")
            total = power.pop(total_name) if total_name else None
        if total is None:
            total = {"cur": sum(x["cur"] for x in power.values()), "avg": sum(x["avg"] for x in power.values())}
        return total, power

    def _power_42(self):
        rail = {}
        for name, mw in _state.rails.items():
            if "NC" in name:  # list_all_i2c_ports skips NC channels
                continue
            p, avg = self._read(name, mw)
            rail[name] = {"online": True, "type": "INA3221", "status": "ok", "volt": 5000,
                          "curr": p * 1000 // 5000, "warn": 32760, "crit": 32760, "power": p, "avg": avg}
        total_name = next((n for n in rail if n in ("POM_5V_IN", "VDD_IN")), "")
        if total_name:
            tot = rail.pop(total_name)
            tot["name"] = total_name
        else:
            tot = {"power": sum(r["power"] for r in rail.values()), "avg": sum(r["avg"] for r in rail.values())}
        return {"rail": rail, "tot": tot}
