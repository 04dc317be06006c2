"""The timed loop's watchdog (agents/edgeprof_agent/watchdog.py): a stall is a late wake with the CPU time still;
a long GIL-holding query burns CPU and is not one; the samples that hold a stall are named, a stall between two
queries is said to be between them. The real stop of a real agent is tests/integration/test_faults.py."""

import os
import signal
import subprocess
import sys
import time

from edgeprof_agent import watchdog
from edgeprof_agent.watchdog import Stall, stall_warnings, stalled_samples

AGENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "agents")


def test_a_stopped_process_is_seen_and_a_busy_one_is_not():
    script = "\n".join([
        "import sys, time",
        "sys.path.insert(0, AGENTS)",
        "from edgeprof_agent import watchdog",
        "d = watchdog.Watchdog().start()",
        "t = time.monotonic()",
        "while time.monotonic() - t < 4: pass",  # busy: holds the GIL in 5 ms slices, burns CPU
        "print(' '.join(str(round(s.seconds, 2)) + '/' + str(round(s.cpu_s, 2)) for s in d.stop()), flush=True)",
    ]).replace("AGENTS", repr(AGENTS))
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    time.sleep(1.0)
    os.kill(p.pid, signal.SIGSTOP)
    time.sleep(1.5)
    os.kill(p.pid, signal.SIGCONT)
    out, _ = p.communicate(timeout=60)
    stalls = out.split()
    assert len(stalls) == 1, out
    seconds, cpu = (float(x) for x in stalls[0].split("/"))
    assert 1.3 <= seconds <= 4 and cpu < 0.2


def test_a_late_wake_that_burned_cpu_is_a_long_query_not_a_stall():
    now = {"ns": 0, "cpu": 0.0}
    # each wake: (clock ns, CPU s) — 3 s late with 2.9 s of CPU (a GIL-holding query), then 3 s late with none
    wakes = iter([(3 * 10**9, 2.9), (6 * 10**9, 2.9)])

    def wait(_timeout):
        step = next(wakes, None)
        if step is None:
            return True  # stop() was called
        now["ns"], now["cpu"] = step
        return False

    dog = watchdog.Watchdog(tick_s=0.05, stall_s=1.0, clock=lambda: now["ns"], cpu=lambda: now["cpu"])
    dog._stop.wait = wait
    dog._watch()
    assert [(s.start_ns, s.end_ns, s.cpu_s) for s in dog.stalls] == [(3 * 10**9, 6 * 10**9, 0.0)]


def test_the_samples_that_hold_a_stall_are_named_and_one_between_queries_is_said_to_be_between():
    starts = [0, 10, 20, 5020, 5030]
    samples = [10, 10, 5000, 10, 10]
    inside = Stall(1000, 4000, 0.0)
    assert stalled_samples(inside, starts, samples) == [2]
    text = stall_warnings([inside], starts, samples, 0)[0]
    assert "samples 2..2 of 5; the run's tail includes it" in text and "rerun" in text
    gap_starts = [0, 10, 5000, 5010]
    between = Stall(30, 4990, 0.0)
    assert stalled_samples(between, gap_starts, [10, 10, 10, 10]) == []
    assert "between samples 1 and 2 of 4" in stall_warnings([between], gap_starts, [10] * 4, 0)[0]
