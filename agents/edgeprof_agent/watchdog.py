"""Did the agent run for the whole timed window? A watchdog that notices when it was not scheduled.

Owns: `Watchdog`, a daemon thread that wakes every TICK_S during the timed loop. A wake that comes more than
STALL_S late while the process's CPU time hardly moved (under CPU_SHARE of the gap) means the whole process was
stopped (SIGSTOP, a debugger, a frozen container) or not scheduled (an overloaded machine): the latencies of that
stretch measure the stop, not the model. A long inference that holds the GIL also delays the wake, but burns CPU
meanwhile, so it is not a stall. `stall_warnings` names the stalls and the samples they fall in, for the reply's
warnings (code STALL_CODE); the samples themselves are kept as they are (the tail is never clipped).
Does not own: the loops (worker.timed_loop, scenarios.py), what the host does with the warning (it shows and
stores it with the run).
Python 3.6-safe, standard library only.
"""

import threading
import time

from .clock import now_ns

TICK_S = 0.05
STALL_S = 1.0  # a wake this much later than its tick, with the CPU time still, is a stall
CPU_SHARE = 0.25
STALL_CODE = "agent_stalled"


class Stall(object):
    """One stretch the process did not run: [start_ns, end_ns] on clock.now_ns, the CPU seconds spent in it."""

    def __init__(self, start_ns, end_ns, cpu_s):
        self.start_ns = start_ns
        self.end_ns = end_ns
        self.cpu_s = cpu_s

    @property
    def seconds(self):
        return (self.end_ns - self.start_ns) / 1e9


class Watchdog(object):
    """start() before the timed loop, stop() after it: the stalls seen in between."""

    def __init__(self, tick_s=TICK_S, stall_s=STALL_S, clock=now_ns, cpu=time.process_time):
        self.tick_s = tick_s
        self.stall_ns = int(stall_s * 1e9)
        self.clock = clock
        self.cpu = cpu
        self.stalls = []
        self._stop = threading.Event()
        self._thread = None

    def start(self):
        self._thread = threading.Thread(target=self._watch, name="edgeprof-watchdog")
        self._thread.daemon = True
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)
        return list(self.stalls)

    def _watch(self):
        last, last_cpu = self.clock(), self.cpu()
        tick_ns = int(self.tick_s * 1e9)
        while not self._stop.wait(self.tick_s):
            now, cpu = self.clock(), self.cpu()
            gap = now - last
            if gap - tick_ns > self.stall_ns and (cpu - last_cpu) < CPU_SHARE * gap / 1e9:
                self.stalls.append(Stall(last, now, cpu - last_cpu))
            last, last_cpu = now, cpu


def stalled_samples(stall, starts_ns, samples_ns):
    """Indices of the samples that hold most of the stall (their [start, start + latency] covers over half of it);
    empty when the process stopped between samples (then their latencies are not changed, the window is)."""
    need = (stall.end_ns - stall.start_ns) / 2.0
    return [i for i, (s, d) in enumerate(zip(starts_ns, samples_ns))
            if min(stall.end_ns, s + d) - max(stall.start_ns, s) > need]


def stall_warnings(stalls, starts_ns, samples_ns, window_start_ns):
    """One warning text per stall: how long, when in the window, which samples hold it, what to do."""
    out = []
    for st in stalls:
        hit = stalled_samples(st, starts_ns, samples_ns)
        if hit:
            where = "samples %d..%d of %d; the run's tail includes it" % (hit[0], hit[-1], len(samples_ns))
        else:
            before = len([s for s in starts_ns if s <= st.start_ns])
            where = ("between samples %d and %d of %d: their latencies do not hold it, the window and throughput "
                     "do" % (max(before - 1, 0), before, len(samples_ns)))
        out.append("the agent was stopped or not scheduled for %.1f s during the timed window (%.1f s in; %s; "
                   "%.2f s of CPU in that time) — rerun on a device nothing stops or overloads"
                   % (st.seconds, max(0.0, (st.start_ns - window_start_ns) / 1e9), where, st.cpu_s))
    return out
