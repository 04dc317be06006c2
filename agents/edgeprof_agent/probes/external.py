"""A user-supplied power command: devices.yaml `power: {source: command, command: "...", unit: W|mW}`.

Owns: splitting the command string with shlex (never a shell), running it each tick through ToolRunner and
taking the first number it prints, in the configured unit. Typical use: a USB power meter or smart plug CLI
that measures wall or 5 V input power. What it covers is whatever the user says (`covers:`).
Does not own: the meter itself; the command must return quickly (~10 Hz at most).
"""

import re
import shlex

from . import Probe, ProbeError

SOURCE = "command"
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
UNITS = {"w": 1.0, "mw": 1e-3, "uw": 1e-6, "kw": 1e3}


def parse_number(text):
    m = _NUMBER.search(text)
    if not m:
        raise ProbeError("power command printed no number: %r" % text.strip()[:120])
    return float(m.group(0))


class CommandProbe(Probe):
    source = SOURCE
    method = "trapezoid"
    total_kind = "command"
    max_rate_hz = 10.0
    default_rate_hz = 10.0

    def __init__(self, tools, argv, scale, config):
        Probe.__init__(self)
        self._tools = tools
        self._argv = argv
        self._scale = scale
        self._timeout = float(config.get("timeout_s", 2.0))
        self.rail = config.get("rail") or "command"
        self.rails = (self.rail,)
        self.covers = config.get("covers") or "whatever the user's power command measures (user-supplied)"
        self.detail = {"command": argv, "unit": config.get("unit", "W")}

    def read(self):
        rc, out, err = self._tools.run(self._argv, timeout=self._timeout)
        if rc != 0:
            raise ProbeError("power command %s failed (rc %s): %s" % (self._argv[0], rc, err.strip()[-200:]))
        w = parse_number(out) * self._scale
        return w, (w,), None


def discover(root, tools, config):
    config = config or {}
    command = config.get("command")
    if not command:
        return None, "command: power.source is 'command' but power.command is empty"
    try:
        argv = shlex.split(command) if not isinstance(command, list) else [str(a) for a in command]
    except ValueError as e:
        return None, "command: cannot split power.command %r: %s" % (command, e)
    if not argv:
        return None, "command: power.command is empty"
    unit = str(config.get("unit", "W")).strip().lower()
    if unit not in UNITS:
        return None, "command: power.unit %r is not one of W, mW, uW, kW" % config.get("unit")
    if tools is None:
        return None, "command: no tool runner"
    probe = CommandProbe(tools, argv, UNITS[unit], config)
    try:
        probe.read()
    except ProbeError as e:
        return None, "command: %s" % e
    return probe, None
