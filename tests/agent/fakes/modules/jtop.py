"""Test double of jetson-stats' `jtop` module: `jtop(interval=...)`, start/close/ok, `.power`, JtopException.

fake_reset(service_active=False) reproduces a machine without the jtop.service: start() raises at once with
the real message. With the service, `.power` is {'rail': {NAME: {...mW...}}, 'tot': {...}} as in jtop 4.x;
'avg' is computed the way jtop does it ((power + old_avg) // 2 per read), so a probe that used it would be wrong.
"""


class JtopException(Exception):
    pass


class _State:
    def __init__(self):
        self.service_active = False
        self.rails = {}
        self.power_fn = None
        self.clients = []


_state = _State()


def fake_reset(service_active=False, rails=None, power_fn=None):
    """rails: {NAME: mW}; power_fn(name) -> mW overrides them per read."""
    global _state
    _state = _State()
    _state.service_active = service_active
    _state.rails = dict(rails or {})
    _state.power_fn = power_fn
    return _state


def fake_state():
    return _state


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

    @property
    def power(self):
        if not self._started:
            raise JtopException("jtop is not started")
        rail = {}
        for name, mw in _state.rails.items():
            p = int(_state.power_fn(name) if _state.power_fn else mw)
            avg = (p + self._avg.get(name, p)) // 2
            self._avg[name] = avg
            rail[name] = {"online": True, "type": "INA3221", "status": "ok", "volt": 5000,
                          "curr": p * 1000 // 5000, "warn": 32760, "crit": 32760, "power": p, "avg": avg}
        total = rail.get("VDD_IN") or rail.get("POM_5V_IN")
        tot = dict(total or {"power": sum(r["power"] for r in rail.values())})
        tot["name"] = "VDD_IN" if total else "ALL"
        return {"rail": rail, "tot": tot}
