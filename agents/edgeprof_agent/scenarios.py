"""The load scenarios' query loops (MLPerf LoadGen's SingleStream, MultiStream, Server, Offline, plus fixed-rate).

Owns: when each query is issued and what its latency is measured from.
- fixed-rate: query i is due at t0 + i/rate (absolute deadlines on clock.now_ns, so sleeping never drifts); the
  loop sleeps until ~1 ms before the deadline, then spins to it. Latency = completion - scheduled time. A miss is
  a query not done before the next one is due. A late loop issues the next query at once (no frame is dropped:
  the queue grows, latency grows with it).
- server: Poisson arrivals (random.Random(seed).expovariate(rate) gaps), one issuing thread; latency counted from
  each query's scheduled arrival, so a loop that falls behind still counts the queueing (no coordinated
  omission).
- multi-stream: each query holds samples_per_query samples, processed as samples_per_query / batch runs of the
  loaded model (one batched run when batch == samples_per_query); the next query is issued when the previous
  completes (LoadGen >= 2.1). Latency per query.
- offline: `streams` threads, each with its own backend session, running queries back to back; aggregate
  samples/s from the window, latency per query.
The number of queries: server and fixed-rate schedule enough to cover min_duration_s and min_queries (capped by
max_queries); back-to-back scenarios stop when both are met (worker.timed_loop's rule).
Does not own: the single-stream loop (worker.timed_loop), statistics and validity (the host), power.
Python 3.6-safe, standard library only.
"""

import math
import random
import threading
import time

from .clock import now_ns
from .protocol import send_progress
from .vocab import PROGRESS_S

SPIN_NS = 1000000  # the last ~1 ms before a deadline is spun, not slept: sleep wakes up late by up to a tick
PROGRESS_NS = int(PROGRESS_S * 1e9)


class Schedule(object):
    """What a loop did. Times in ns from t0 (`scheduled` empty for back-to-back loops)."""

    def __init__(self, name, t0):
        self.name = name
        self.t0 = t0
        self.latencies = []
        self.scheduled = []
        self.issued = []
        self.misses = None
        self.t_end = t0
        self.queries = 0
        self.stopped_by = ""
        self.mode = ""


def wait_until(deadline_ns, clock=now_ns, sleep=time.sleep, spin_ns=SPIN_NS):
    """Sleep until about spin_ns before deadline_ns, then spin to it. Returns the time it returned at."""
    now = clock()
    left = deadline_ns - now
    if left > spin_ns:
        sleep((left - spin_ns) / 1e9)
    now = clock()
    while now < deadline_ns:
        now = clock()
    return now


def query_count(rate, min_duration_s, min_queries, max_queries):
    """How many queries a scheduled scenario issues: enough for both limits, at most max_queries."""
    n = max(int(min_queries), int(math.ceil(min_duration_s * rate)))
    if max_queries:
        n = min(n, int(max_queries))
    return max(n, 1)


def fixed_rate_offsets(rate, n):
    """Query i is due at i / rate seconds (ns offsets from the schedule's start)."""
    return [int(round(i * 1e9 / rate)) for i in range(n)]


def poisson_offsets(rate, min_duration_s, min_queries, max_queries, seed):
    """Arrival offsets (ns) with exponential gaps of mean 1/rate from random.Random(seed): enough arrivals to
    cover min_duration_s and min_queries, at most max_queries. The first query arrives after one gap (LoadGen)."""
    rng = random.Random(seed)
    out = []
    t = 0.0
    cap = int(max_queries) if max_queries else None
    while True:
        t += rng.expovariate(rate)
        out.append(int(round(t * 1e9)))
        if len(out) >= min_queries and t >= min_duration_s:
            break
        if cap is not None and len(out) >= cap:
            break
    return out


def scheduled_loop(run, name, offsets, period_ns=None, clock=now_ns, sleep=time.sleep, progress=True):
    """Issue run() at t0 + offsets[i] from one thread; latency from the scheduled time. With period_ns (fixed
    rate) count misses: query i not done by the time query i+1 is due (t0 + offsets[i] + period_ns)."""
    t0 = clock() + 2 * SPIN_NS  # a moment to get ready: the first query is not late by the set-up
    s = Schedule(name, t0)
    lat, iss = s.latencies, s.issued
    misses = 0
    next_progress = t0 + PROGRESS_NS
    total_s = round(offsets[-1] / 1e9, 2) if offsets else 0.0  # the schedule's length: progress says so
    done = t0
    for off in offsets:
        due = t0 + off
        if clock() < due:
            while due - clock() > PROGRESS_NS:  # a slow rate: keep telling the host the loop is alive
                sleep(PROGRESS_NS / 2e9)
                if progress:
                    send_progress("measure", elapsed_s=round((clock() - t0) / 1e9, 2), total_s=total_s,
                                  n=len(lat), min_queries=len(offsets))
            start = wait_until(due, clock, sleep)
        else:
            start = clock()
        run()
        done = clock()
        lat.append(done - due)
        iss.append(start - t0)
        if period_ns is not None and done > due + period_ns:
            misses += 1
        if progress and done >= next_progress:
            send_progress("measure", elapsed_s=round((done - t0) / 1e9, 2), total_s=total_s, n=len(lat),
                          min_queries=len(offsets), last_ms=round(lat[-1] / 1e6, 4))
            next_progress = done + PROGRESS_NS
    s.scheduled = list(offsets)
    s.queries = len(lat)
    s.misses = misses if period_ns is not None else None
    # the window covers the whole schedule, idle gaps included: to the last completion or the end of the last
    # period, whichever is later (energy per frame = window energy / frames)
    end_sched = t0 + (offsets[-1] + period_ns if period_ns is not None else offsets[-1])
    if done < end_sched:  # the last period's idle tail is part of the duty cycle: live it, so power sees it
        wait_until(end_sched, clock, sleep)
    s.t_end = max(done, end_sched)
    s.stopped_by = "the schedule's %d queries issued" % len(lat)
    s.mode = "one issuing thread; latency from the scheduled time"
    return s


def back_to_back_loop(run, name, min_duration_s, min_queries, max_queries, runs_per_query=1, clock=now_ns,
                      progress=True):
    """Multi-stream (runs_per_query runs per query) or one offline stream: the next query starts when the
    previous completes; stops when both limits are met or at max_queries."""
    t0 = clock()
    s = Schedule(name, t0)
    lat, iss = s.latencies, s.issued
    min_end = t0 + int(min_duration_s * 1e9)
    cap = int(max_queries) if max_queries else -1
    next_progress = t0 + PROGRESS_NS
    s.stopped_by = "min_duration and min_queries met"
    r = range(runs_per_query)
    while True:
        start = clock()
        for _ in r:
            run()
        done = clock()
        lat.append(done - start)
        iss.append(start - t0)
        if done >= min_end and len(lat) >= min_queries:
            break
        if len(lat) == cap:
            s.stopped_by = "max_queries reached before min_duration"
            break
        if progress and done >= next_progress:
            send_progress("measure", elapsed_s=round((done - t0) / 1e9, 2), total_s=min_duration_s, n=len(lat),
                          min_queries=min_queries, last_ms=round(lat[-1] / 1e6, 4))
            next_progress = done + PROGRESS_NS
    s.t_end = done
    s.queries = len(lat)
    return s


def offline_loop(runs, min_duration_s, min_queries, max_queries, clock=now_ns, progress=True):
    """len(runs) streams (one thread per backend session) issuing queries back to back until, together, both
    limits are met (or max_queries). Latency per query; the window spans all streams."""
    t0 = clock()
    s = Schedule("offline", t0)
    lock = threading.Lock()
    stop = threading.Event()
    results = []  # (start, done)
    errors = []
    min_end = t0 + int(min_duration_s * 1e9)
    cap = int(max_queries) if max_queries else None

    def stream(run):
        try:
            while not stop.is_set():
                start = clock()
                run()
                done = clock()
                with lock:
                    results.append((start, done))
                    n = len(results)
                if (done >= min_end and n >= min_queries) or (cap is not None and n >= cap):
                    stop.set()
        except Exception as e:  # the first failure ends every stream; the worker raises it
            errors.append(e)
            stop.set()

    threads = [threading.Thread(target=stream, args=(run,)) for run in runs]
    for t in threads:
        t.daemon = True
        t.start()
    while any(t.is_alive() for t in threads):
        for t in threads:
            t.join(PROGRESS_NS / 1e9)
        if progress:
            with lock:
                n = len(results)
            send_progress("measure", elapsed_s=round((clock() - t0) / 1e9, 2), total_s=min_duration_s, n=n,
                          min_queries=min_queries)
    if errors:
        raise errors[0]
    results.sort()
    s.latencies = [d - a for a, d in results]
    s.issued = [a - t0 for a, d in results]
    s.t_end = max(d for a, d in results) if results else t0
    s.queries = len(results)
    s.stopped_by = ("max_queries reached before min_duration" if cap is not None and len(results) >= cap
                    and s.t_end < min_end else "min_duration and min_queries met")
    s.mode = "%d thread(s), each with its own runtime session, queries back to back" % len(runs)
    return s
