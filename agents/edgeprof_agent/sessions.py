"""More runtime sessions of one measurement (run.sessions > 1).

A runtime's speed can belong to its session rather than to the model: onnxruntime's intra-op thread pool spins
while it waits for work, and with as many threads as the board has cores one session runs a model at one speed and
the next, loaded the same way a moment later, at another (a 2-core VM: GWSkyNet at 2 threads 1.2 ms in one session,
7 ms in the next; at 1 thread 1.85-1.95 ms in every one). A single session's p50 is then one draw. With
run.sessions = N the measurement's own session is timed as always (the reply's samples_ns, power window, outputs,
op profile and accuracy pass are all its); after them every backend is closed and the model is loaded N - 1 more
times, one fresh session at a time, each warmed up and timed by the same single-stream loop with the same
warm-up, minimum duration and query counts. Each one's raw samples come back (messages.SessionRun); the host
compares them (edgeprof/evaluation/sessions.py).

Owns: the request's sessions check and the loop over the more sessions. Does not own: the statistics (the host's).
"""

from .backends import get_backend
from .clock import now_ns
from .messages import SessionRun
from .protocol import OpError, send_progress
from .vocab import MAX_SESSIONS, SINGLE_STREAM, ErrorKind

_QUIET_S = 1e9  # the loops' own progress events are not sent for these sessions: the "session" event names each


def check(req):
    """OpError(BAD_REQUEST) for a sessions count the agent cannot run (the host checks the same before sending)."""
    n = req.sessions
    if n < 1 or n > MAX_SESSIONS:
        raise OpError(ErrorKind.BAD_REQUEST, "sessions must be 1 to %d, not %d" % (MAX_SESSIONS, n))
    sc = req.scenario
    if n > 1 and sc is not None and sc.name != SINGLE_STREAM:
        raise OpError(ErrorKind.BAD_REQUEST, "sessions > 1 times the single-stream loop only, not scenario %s"
                      % sc.name, hint="leave --sessions at 1 for a load scenario")


def run_more(m):
    """Sessions 2..req.sessions of the measurement `m` (worker._Measurement, after all its passes), one loaded at a
    time: [SessionRun]."""
    from .worker import timed_loop, warm_up  # worker imports this module

    req = m.req
    for b in m.backends:  # one session in memory at a time
        b.close()
    out = []
    for index in range(2, req.sessions + 1):
        send_progress("session", n=index, total=req.sessions)
        backend = get_backend(m.runtime, m.root, m.tools, m.workdir)
        m.backends.append(backend)  # run_measurement closes it if a query fails
        t0 = now_ns()
        backend.load(m.path, m.inputs, m.options)
        load_s = (now_ns() - t0) / 1e9
        try:
            warm = warm_up(backend.run, req.warmup_s, progress_interval_s=_QUIET_S)
            samples, first, last, stopped_by = timed_loop(backend.run, req.min_duration_s, req.min_queries,
                                                          progress_interval_s=_QUIET_S,
                                                          max_queries=req.max_queries)
        finally:
            backend.close()
        out.append(SessionRun(index=index, load_s=round(load_s, 4), warmup=warm, samples_ns=samples,
                              t_first_ns=first, t_last_ns=last, stopped_by=stopped_by))
    return out
