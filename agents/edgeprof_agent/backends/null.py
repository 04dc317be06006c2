"""The null backend: loads nothing, runs nothing. Its latency is the harness's own cost per query.

Option `service_ms` (tests, benchmarks of the scenario loops): each run takes that long, a known service time;
`service` chooses how: "busy" (default: spins on the clock, holds the CPU and the GIL, a CPU-bound query) or
"sleep" (time.sleep: waits without the CPU, as an accelerator's query that leaves the CPU free).
"""

import time

from ..clock import now_ns
from .base import Backend as _Base


class Backend(_Base):
    """No require(), no profile_ops (the base's NotSupported), set_inputs accepts anything and binds nothing."""

    name = "null"

    def __init__(self, root=None, tools=None, workdir=None):
        _Base.__init__(self, root, tools, workdir)
        self._options = {}
        self._service_ns = 0
        self._sleep = False

    def load(self, path, inputs, options):
        from ..protocol import OpError
        from ..vocab import ErrorKind

        self._options = dict(options or {})
        ms = self._options.get("service_ms", 0)
        if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not 0 <= ms <= 60000:
            raise OpError(ErrorKind.BAD_OPTION, "null runtime: service_ms %r must be a number of ms in [0, 60000]"
                          % (ms,))
        mode = self._options.get("service", "busy")
        if mode not in ("busy", "sleep"):
            raise OpError(ErrorKind.BAD_OPTION, "null runtime: service %r must be busy or sleep" % (mode,))
        self._service_ns = int(ms * 1e6)
        self._sleep = mode == "sleep"

    def run(self):
        if not self._service_ns:
            return None
        if self._sleep:
            time.sleep(self._service_ns / 1e9)
            return None
        end = now_ns() + self._service_ns
        while now_ns() < end:
            pass
        return None

    def set_inputs(self, inputs):
        return None

    def outputs(self):
        return []

    def describe(self):
        return {"runtime": "null", "version": "-", "providers": [], "options": self._options}
