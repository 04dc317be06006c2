"""The timed generation loop: load, warm up, then repetitions of (depth fill, prefill, N tokens), every token
timed by the agent itself.

Owns: the measurement of one generative model on one runtime, as llama-bench measures (tools/llama-bench): random
token ids (seeded, no tokenizer, no text), one warm-up prefill and one 1-token decode before anything is timed, a
fresh sequence (empty KV cache) for every repetition, `depth` tokens appended untimed before the timed prompt (the
context already filled, llama-bench -d), a fixed number of generated tokens whatever the model would say (never an
early stop: the loop refuses a runtime that ends the sequence before it). Every time is clock.now_ns
(time.perf_counter_ns) read by this loop around each runtime call: the prefill (append of the prompt), then each
next_token() call; never the runtime's own summary. The first next_token() after the prefill only picks the token
from the prefill's logits, so TTFT = prefill + first call; each later call is one decode step (onnxruntime-genai's
benchmark_e2e.py splits it the same way). Greedy argmax picking is inside each token's time.

Returns raw figures only (the host computes statistics: edgeprof/generative/stats.py): per repetition the prefill's
ns, each token's ns and the clock stamps of the phase edges (so a power trace on the same clock can be cut into the
prefill and decode windows); the load's ns; peak and post-load RSS (procinfo: VmHWM / VmRSS); the KV cache's size
for the context the runtime was given.
Scenarios (measure_scenario): the same requests (a fresh sequence each: prefill, then N tokens) under the
forward-pass scenarios' loops, reused as they are: server (scenarios.poisson_offsets and scheduled_loop: Poisson
arrivals, one request at a time in arrival order) and sustained (windows.sustained_loop: back to back for a
duration, the board read per window), plus each sustained window's range of tokens (token_windows); with a depth,
each request's context filled untimed ahead of it.
Does not own: the runtimes (generation/*.py), statistics, power sampling, the scenarios' schedules and windows
(scenarios.py, windows.py).
"""

import random

from .. import procinfo
from ..clock import CLOCK_NAME, now_ns
from ..protocol import OpError
from ..vocab import SINGLE_STREAM, ErrorKind
from . import get_generation_backend

MAX_TOKENS = 1 << 20
FIRST_ID = 3  # ids 0..2 are <unk>, <s>, </s> in the bundled models: the random ids skip them (llama-bench draws
#               over the whole vocabulary; a special id in the prompt would only change what a real model says)


def _count(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum or value > MAX_TOKENS:
        raise OpError(ErrorKind.BAD_REQUEST, "generation: %s must be an integer %d..%d, not %r" % (
            name, minimum, MAX_TOKENS, value))
    return value


def check_counts(prompt_tokens, gen_tokens, depth, repetitions):
    """BAD_REQUEST naming the first count out of range (prompt and generated tokens and repetitions >= 1, depth
    >= 0, each at most MAX_TOKENS): what measure() checks, for a caller that checks before it waits on anything."""
    _count("prompt_tokens", prompt_tokens, 1)
    _count("gen_tokens", gen_tokens, 1)
    _count("depth", depth, 0)
    _count("repetitions", repetitions, 1)


GEN_SCENARIOS = ("server", "sustained")  # a generation's scenarios besides single-stream


def check_scenario(scenario, depth):
    """BAD_REQUEST for a scenario a generation cannot run: one other than server or sustained, a server without a
    positive rate, or a sustained run at a rate (not supported yet). Any depth runs (measure_scenario)."""
    if scenario is None or scenario.name == SINGLE_STREAM:
        return
    if scenario.name not in GEN_SCENARIOS:
        raise OpError(ErrorKind.BAD_REQUEST, "generation: scenario %r is not supported (single-stream, %s)" % (
            scenario.name, ", ".join(GEN_SCENARIOS)))
    if scenario.name == "server" and not (isinstance(scenario.rate, (int, float)) and scenario.rate > 0):
        raise OpError(ErrorKind.BAD_REQUEST, "generation: server needs a rate > 0 (requests/s), not %r"
                      % (scenario.rate,))
    if scenario.name == "sustained" and scenario.rate is not None:
        raise OpError(ErrorKind.BAD_REQUEST, "generation: sustained at a rate is not supported yet")


def random_ids(rng, vocab_size, n):
    """`n` token ids drawn uniformly from FIRST_ID..vocab_size-1 by `rng` (random.Random)."""
    low = FIRST_ID if vocab_size > FIRST_ID + 1 else 0
    return [rng.randrange(low, vocab_size) for _ in range(n)]


def n_ctx_for(prompt_tokens, gen_tokens, depth):
    """The tokens a sequence holds at its end: what the KV cache must have room for."""
    return depth + prompt_tokens + gen_tokens


def _generate(backend, n, clock, check_done=True, ends=None):
    """n next_token() calls, each timed: (token ns list, token ids, the clock when the first call returned).
    `ends`, a list, gets each call's end on the clock (a sustained run places tokens in its windows by them)."""
    times, ids, first_end = [], [], None
    for i in range(n):
        if check_done and backend.done():
            raise OpError(ErrorKind.RUN_FAILED, "%s ended the sequence after %d of %d generated tokens" % (
                backend.name, i, n), hint="this is a bug in edgeprof's %s backend: it must keep generating to the "
                "requested count (min_length)" % backend.name)
        t0 = clock()
        ids.append(backend.next_token())
        t1 = clock()
        times.append(t1 - t0)
        if ends is not None:
            ends.append(t1)
        if first_end is None:
            first_end = t1
    return times, ids, first_end


def _fill(backend, rng, vocab, depth, clock):
    """A fresh sequence (an empty KV cache: a request never reuses the previous one's) holding `depth` random
    tokens, appended untimed (llama-bench -d): the fill's ns on the clock, 0 without depth."""
    backend.start()
    fill = random_ids(rng, vocab, depth)
    if not fill:
        return 0
    backend.prepare(fill)
    d0 = clock()
    backend.append(fill)
    return clock() - d0


def _request(backend, rng, vocab, prompt_tokens, gen_tokens, depth, clock, ends=None, filled_ns=None):
    """One timed request on a fresh sequence: the untimed depth fill, the prompt's prefill, then gen_tokens tokens.
    `filled_ns`, when given: the sequence was started and filled already (_fill, before the request's arrival), in
    that many ns. A repetition's record (GenRepetition's fields)."""
    fill_ns = _fill(backend, rng, vocab, depth, clock) if filled_ns is None else filled_ns
    prompt = random_ids(rng, vocab, prompt_tokens)
    backend.prepare(prompt)  # outside the timed span: a runtime that takes text makes it here (base.py)
    t0 = clock()
    backend.append(prompt)
    t1 = clock()
    times, ids, first_end = _generate(backend, gen_tokens, clock, ends=ends)
    t2 = clock()
    return {"prefill_ns": t1 - t0, "token_ns": times, "depth_fill_ns": fill_ns,
            "t_prefill_start_ns": t0, "t_prefill_end_ns": t1, "t_first_token_end_ns": first_end, "t_end_ns": t2,
            "tokens": ids}


def _warm(backend, rng, prompt_tokens, gen_tokens, clock, progress):
    """One prefill and a 1-token decode (the first token's pick, then one decode step), untimed."""
    backend.start()
    prompt = random_ids(rng, backend.vocab_size, prompt_tokens)
    backend.prepare(prompt)
    t0 = clock()
    backend.append(prompt)
    t1 = clock()
    times, _ids, _end = _generate(backend, min(2, gen_tokens), clock, check_done=False)
    if progress is not None:
        progress("warmup", 1, 1)
    return {"prefill_ns": t1 - t0, "token_ns": times}


def measure(backend, prompt_tokens, gen_tokens, depth=0, repetitions=5, warmup=True, seed=0, clock=now_ns,
            progress=None):
    """Time a loaded `backend`: returns {"warmup": {...} or None, "repetitions": [{...}, ...]}; each repetition
    {"prefill_ns", "token_ns": [gen_tokens ints], "t_prefill_start_ns", "t_prefill_end_ns", "t_first_token_end_ns", "t_end_ns",
    "depth_fill_ns", "tokens": [generated ids]}. `progress(phase, done, total)`, when given, is called after the
    warm-up ("warmup", 1, 1) and after each repetition ("measure", r, repetitions), outside every timed span."""
    _count("prompt_tokens", prompt_tokens, 1)
    _count("gen_tokens", gen_tokens, 1)
    _count("depth", depth, 0)
    _count("repetitions", repetitions, 1)
    rng = random.Random(seed)
    warm = _warm(backend, rng, prompt_tokens, gen_tokens, clock, progress) if warmup else None
    reps = []
    for _r in range(repetitions):
        reps.append(_request(backend, rng, backend.vocab_size, prompt_tokens, gen_tokens, depth, clock))
        if progress is not None:
            progress("measure", len(reps), repetitions)
    return {"warmup": warm, "repetitions": reps}


def token_windows(t0, window_ns, n_windows, ends):
    """Each window's range of tokens [first, first + count) in the requests' tokens taken in order, placed by the
    clock at each token's end (`ends`, sorted, absolute): window k holds the tokens that ended in
    [t0 + k*window_ns, t0 + (k+1)*window_ns); a token that ended after the last window (the request running when
    the duration ran out) counts in the last one, so the windows hold every token."""
    out = []
    i = 0
    for k in range(n_windows):
        first = i
        hi = t0 + (k + 1) * window_ns
        while i < len(ends) and (ends[i] < hi or k == n_windows - 1):
            i += 1
        out.append({"first": first, "count": i - first})
    return out


def measure_scenario(backend, prompt_tokens, gen_tokens, scenario, seed=0, warmup=True, min_duration_s=0.0,
                     min_queries=1, max_queries=None, root=None, tools=None, clock=now_ns, progress=None, depth=0,
                     gpu_index=None):
    """Requests (each a fresh sequence: prefill prompt_tokens, then gen_tokens tokens) in a load scenario
    (`scenario`: messages.ScenarioSpec), one at a time (a board runs one stream). With `depth`, each request's
    sequence holds `depth` tokens before its prompt (llama-bench -d), filled untimed ahead of it: the first before
    the schedule starts, each next one right after the request before it ends (the board is busy with it then: a
    request that arrives meanwhile waits, and that wait is in its TTFT, counted from its arrival):

    - server: arrivals at scenarios.poisson_offsets(rate, min_duration_s, min_queries, max_queries, scenario.seed),
      the forward-pass server's schedule, issued in arrival order by scenarios.scheduled_loop (a request that
      arrives while the previous one runs waits: the host counts TTFT and latency from each request's scheduled
      arrival, t0 + scheduled_ns);
    - sustained: back to back for scenario.duration_s by windows.sustained_loop, with its telemetry per window (NVML
      reads GPU `gpu_index`, the request's gpu, else the first); each window also gets the range of tokens that
      ended in it (token_windows).

    Returns measure()'s dict plus "schedule" (the scenarios.Schedule: t0, scheduled and issued ns from t0, mode),
    "sustained" (the loop's SustainedReply, sustained only) and "token_windows"."""
    from .. import scenarios, windows

    _count("prompt_tokens", prompt_tokens, 1)
    _count("gen_tokens", gen_tokens, 1)
    _count("depth", depth, 0)
    rng = random.Random(seed)
    vocab = backend.vocab_size
    warm = _warm(backend, rng, prompt_tokens, gen_tokens, clock, progress) if warmup else None
    reps, ends = [], []
    filled = [_fill(backend, rng, vocab, depth, clock)] if depth else []  # the next request's sequence, ready

    def run():
        reps.append(_request(backend, rng, vocab, prompt_tokens, gen_tokens, depth, clock, ends=ends,
                             filled_ns=filled.pop() if filled else None))
        if depth:
            filled.append(_fill(backend, rng, vocab, depth, clock))

    tell = progress is not None
    sustained = None
    if scenario.name == "server":
        offsets = scenarios.poisson_offsets(scenario.rate, min_duration_s, min_queries, max_queries, scenario.seed)
        s = scenarios.scheduled_loop(run, "server", offsets, clock=clock, progress=tell)
        s.mode = "one request at a time in arrival order; TTFT and latency from the scheduled arrival"
    elif scenario.name == "sustained":
        s, sustained = windows.sustained_loop(run, scenario, root, tools, clock=clock, progress=tell,
                                              gpu_index=gpu_index)
        s.mode = "requests back to back; " + s.mode.split("; ", 1)[-1]
    else:
        raise OpError(ErrorKind.BAD_REQUEST, "generation: scenario %r is not supported (single-stream, server or "
                      "sustained)" % scenario.name)
    out = {"warmup": warm, "repetitions": reps, "schedule": s, "sustained": sustained, "token_windows": []}
    if sustained is not None:
        w = sustained.windows
        out["token_windows"] = token_windows(s.t0, w[0].end_ns - w[0].start_ns if w else 1, len(w), ends)
    return out


def run_generation(runtime, path, prompt_tokens, gen_tokens, depth=0, repetitions=5, warmup=True, seed=0,
                   options=None, clock=now_ns, backend=None, around=None, progress=None, scenario=None,
                   schedule=None, root=None, tools=None):
    """Load the model at `path` on `runtime` with a KV cache of exactly depth + prompt + gen tokens, measure it
    (measure(), or measure_scenario() with a `scenario` other than single-stream: `schedule` its
    {min_duration_s, min_queries, max_queries}, `root`/`tools` the board a sustained run reads), close it.
    Returns the raw record (see the module docstring). `around`: an object whose start()
    is called after the load and whose stop() after the last repetition (also when measuring fails): the power
    monitor (power.PowerMonitor), so its readings span the warm-up and every repetition on this loop's clock.
    `progress`: measure()'s."""
    _count("prompt_tokens", prompt_tokens, 1)
    _count("gen_tokens", gen_tokens, 1)
    _count("depth", depth, 0)
    be = backend if backend is not None else get_generation_backend(runtime)
    be.require()
    n_ctx = n_ctx_for(prompt_tokens, gen_tokens, depth)
    peak_reset = procinfo.reset_peak()
    rss_before = procinfo.rss_mb()
    t0 = clock()
    be.load(path, n_ctx, dict(options or {}))
    load_ns = clock() - t0
    try:
        rss_after = procinfo.rss_mb()
        if around is not None:
            around.start()
        try:
            if scenario is not None and scenario.name != SINGLE_STREAM:
                timed = measure_scenario(be, prompt_tokens, gen_tokens, scenario, seed=seed, warmup=warmup,
                                         root=root, tools=tools, clock=clock, progress=progress, depth=depth,
                                         **dict(schedule or {}))
            else:
                timed = measure(be, prompt_tokens, gen_tokens, depth=depth, repetitions=repetitions,
                                warmup=warmup, seed=seed, clock=clock, progress=progress)
        finally:
            if around is not None:
                around.stop()
        peak = procinfo.peak_rss_mb()
        out = {
            "runtime": be.describe(), "clock": CLOCK_NAME, "load_ns": load_ns,
            "prompt_tokens": prompt_tokens, "gen_tokens": gen_tokens, "depth": depth, "n_ctx": n_ctx,
            "repetitions": timed["repetitions"], "warmup": timed["warmup"], "seed": seed,
            "sampling": "greedy argmax, inside each token's time",
            "ids": "random, uniform over %d..vocab-1 (random.Random(seed))" % FIRST_ID,
            "kv_cache": be.kv_cache(n_ctx), "schedule": timed.get("schedule"),
            "sustained": timed.get("sustained"), "token_windows": timed.get("token_windows", []),
            "memory": {"rss_before_load_bytes": _bytes(rss_before), "rss_after_load_bytes": _bytes(rss_after),
                       "peak_rss_bytes": _bytes(peak),
                       "peak_source": "VmHWM (/proc/self/status), reset just before the load" if peak_reset else
                       "the process's peak RSS since the agent started (VmHWM could not be reset)"},
        }
    finally:
        be.close()
    return out


def _bytes(mb):
    return None if mb is None else int(round(mb * 1024 * 1024))
