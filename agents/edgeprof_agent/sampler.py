"""The background sampler: reads one discovered probe at a fixed rate on a daemon thread.

Owns: the sampling loop (only probe.read() inside it), timestamps from clock.now_ns() taken at the midpoint of
each read (a vcgencmd call takes tens of ms), the schedule (no bursts after an overrun), counting read errors.
Samples are kept raw: (t_ns, total, rails, inst_w) as the probe returned them; nothing is filtered here.
Does not own: discovery (probes/), windows, energy and statistics (power.py).

The loop costs one wake-up and a few small file reads per tick: at 50 Hz well under 1 % of one core
(benchmarks/sampler_perturbation.py measures what it does to a latency loop).
"""

import threading

from . import clock as _clock


class Sampler(object):
    def __init__(self, probe, rate_hz, clock=None):
        if rate_hz <= 0:
            raise ValueError("rate_hz must be > 0, got %r" % rate_hz)
        self.probe = probe
        self.rate_hz = float(rate_hz)
        self.period_ns = int(1e9 / self.rate_hz)
        self.clock = clock or _clock.now_ns
        self.samples = []
        self.n_errors = 0
        self.last_error = None
        self._stop = threading.Event()
        self._thread = None
        # wait(seconds) between ticks; returns early when stop() is called. Tests swap in a fake-clock wait.
        self.wait = self._stop.wait

    def reset(self):
        self.samples = []
        self.n_errors = 0
        self.last_error = None

    def tick(self):
        """One reading appended to samples; errors are counted, never raised."""
        clock = self.clock
        t_a = clock()
        try:
            total, rails, inst = self.probe.read()
        except Exception as e:  # a sensor hiccup must not end the run
            self.n_errors += 1
            self.last_error = "%s: %s" % (type(e).__name__, e)
            return False
        t_b = clock()
        self.samples.append(((t_a + t_b) // 2, total, rails, inst))
        return True

    def run_for(self, seconds):
        """Sample in the calling thread for `seconds` (idle baseline)."""
        end = self.clock() + int(seconds * 1e9)
        self._stop.clear()
        self._loop(end)

    def start(self):
        if self._thread is not None and self._thread.is_alive():
            raise RuntimeError("sampler already running")
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="edgeprof-power-sampler")
        self._thread.daemon = True
        self._thread.start()

    def stop(self, timeout=5.0):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    @property
    def running(self):
        return self._thread is not None and self._thread.is_alive()

    def _loop(self, end_ns=None):
        clock, period, stop, wait = self.clock, self.period_ns, self._stop, self.wait
        next_t = clock()
        while not stop.is_set():
            self.tick()
            next_t += period
            now = clock()
            if end_ns is not None and now >= end_ns:
                break
            delay = next_t - now
            if end_ns is not None:
                delay = min(delay, end_ns - now)
            if delay <= 0:
                if -delay > period:  # fell behind (slow tool): resynchronise instead of bursting
                    next_t = now
                continue
            wait(delay / 1e9)
