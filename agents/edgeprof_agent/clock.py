"""The one monotonic clock of the agent: latency loop, sampler and windows all use now_ns().

time.perf_counter_ns exists from Python 3.7; on 3.6 (JetPack 4) fall back to perf_counter in ns.
"""

import time

_perf_ns = getattr(time, "perf_counter_ns", None)

if _perf_ns is not None:
    now_ns = _perf_ns
    CLOCK_NAME = "time.perf_counter_ns"
else:  # Python 3.6
    def now_ns():
        return int(time.perf_counter() * 1e9)

    CLOCK_NAME = "time.perf_counter (x1e9, Python 3.6)"
