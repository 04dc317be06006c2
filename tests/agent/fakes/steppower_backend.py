"""A test-only runtime backend (registered by tests into edgeprof_agent.backends.BACKENDS, never shipped): each
run takes `service_ms` (time.sleep: the GIL stays free for the power sampler) and records when it began and
ended (clock.now_ns). SpanWave turns those spans into a known P(t) — `active_w` while a query runs, `idle_w`
otherwise — with its exact energy, for boardkit.BoardWave / WaveWriter to show on a board tree."""

import time

from edgeprof_agent.backends.base import Backend as _Base
from edgeprof_agent.clock import now_ns

SPANS = []  # (t_on_ns, t_off_ns) of every finished run, in order; tests clear it
OPEN = [None]  # start of the run in progress (None between runs)


class Backend(_Base):
    name = "steppower"

    def __init__(self, root=None, tools=None, workdir=None):
        _Base.__init__(self, root, tools, workdir)
        self._o = {}

    def load(self, path, inputs, options):
        self._o = dict(options)

    def run(self):
        OPEN[0] = t_on = now_ns()
        time.sleep(self._o["service_ms"] / 1e3)
        t_off = now_ns()
        SPANS.append((t_on, t_off))
        OPEN[0] = None

    def outputs(self):
        return []

    def describe(self):
        return {"runtime": "steppower", "version": "-", "providers": [], "options": self._o}


class SpanWave:
    """P(t) (t in seconds of clock.now_ns) = active_w inside a run's span, idle_w outside; energy exact."""

    def __init__(self, idle_w, active_w):
        self.idle_w = idle_w
        self.active_w = active_w

    def _spans(self, t1_ns):
        spans = list(SPANS)
        if OPEN[0] is not None:
            spans.append((OPEN[0], t1_ns))
        return spans

    def busy_s(self, t0, t1):
        a_ns, b_ns = int(t0 * 1e9), int(t1 * 1e9)
        return sum(max(0, min(b, b_ns) - max(a, a_ns)) for a, b in self._spans(b_ns)) / 1e9

    def power(self, t):
        return self.active_w if self.busy_s(t - 1e-9, t) > 0 else self.idle_w

    def energy(self, t0, t1):
        return self.idle_w * (t1 - t0) + (self.active_w - self.idle_w) * self.busy_s(t0, t1)
