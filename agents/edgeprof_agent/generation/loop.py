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
Does not own: the runtimes (generation/*.py), statistics, power sampling.
"""

import random

from .. import procinfo
from ..clock import CLOCK_NAME, now_ns
from ..protocol import OpError
from ..vocab import ErrorKind
from . import get_generation_backend

MAX_TOKENS = 1 << 20
FIRST_ID = 3  # ids 0..2 are <unk>, <s>, </s> in the bundled models: the random ids skip them (llama-bench draws
#               over the whole vocabulary; a special id in the prompt would only change what a real model says)


def _count(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum or value > MAX_TOKENS:
        raise OpError(ErrorKind.BAD_REQUEST, "generation: %s must be an integer %d..%d, not %r" % (
            name, minimum, MAX_TOKENS, value))
    return value


def random_ids(rng, vocab_size, n):
    """`n` token ids drawn uniformly from FIRST_ID..vocab_size-1 by `rng` (random.Random)."""
    low = FIRST_ID if vocab_size > FIRST_ID + 1 else 0
    return [rng.randrange(low, vocab_size) for _ in range(n)]


def n_ctx_for(prompt_tokens, gen_tokens, depth):
    """The tokens a sequence holds at its end: what the KV cache must have room for."""
    return depth + prompt_tokens + gen_tokens


def _generate(backend, n, clock, check_done=True):
    """n next_token() calls, each timed: (token ns list, token ids, the clock when the first call returned)."""
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
        if first_end is None:
            first_end = t1
    return times, ids, first_end


def measure(backend, prompt_tokens, gen_tokens, depth=0, repetitions=5, warmup=True, seed=0, clock=now_ns):
    """Time a loaded `backend`: returns {"warmup": {...} or None, "repetitions": [{...}, ...]}; each repetition
    {"prefill_ns", "token_ns": [gen_tokens ints], "t_prefill_start_ns", "t_prefill_end_ns", "t_first_token_end_ns", "t_end_ns",
    "depth_fill_ns", "tokens": [generated ids]}."""
    _count("prompt_tokens", prompt_tokens, 1)
    _count("gen_tokens", gen_tokens, 1)
    _count("depth", depth, 0)
    _count("repetitions", repetitions, 1)
    rng = random.Random(seed)
    vocab = backend.vocab_size
    warm = None
    if warmup:  # one prefill and a 1-token decode (the first token's pick, then one decode step), untimed
        backend.start()
        t0 = clock()
        backend.append(random_ids(rng, vocab, prompt_tokens))
        t1 = clock()
        times, _ids, _end = _generate(backend, min(2, gen_tokens), clock, check_done=False)
        warm = {"prefill_ns": t1 - t0, "token_ns": times}
    reps = []
    for _r in range(repetitions):
        backend.start()  # an empty KV cache: a repetition never reuses the previous one's
        fill = random_ids(rng, vocab, depth)
        prompt = random_ids(rng, vocab, prompt_tokens)
        d0 = clock()
        if fill:
            backend.append(fill)
        t0 = clock()
        backend.append(prompt)
        t1 = clock()
        times, ids, first_end = _generate(backend, gen_tokens, clock)
        t2 = clock()
        reps.append({"prefill_ns": t1 - t0, "token_ns": times, "depth_fill_ns": (t0 - d0) if fill else 0,
                     "t_prefill_start_ns": t0, "t_prefill_end_ns": t1, "t_first_token_end_ns": first_end,
                     "t_end_ns": t2, "tokens": ids})
    return {"warmup": warm, "repetitions": reps}


def run_generation(runtime, path, prompt_tokens, gen_tokens, depth=0, repetitions=5, warmup=True, seed=0,
                   options=None, clock=now_ns, backend=None):
    """Load the model at `path` on `runtime` with a KV cache of exactly depth + prompt + gen tokens, measure it
    (measure()), close it. Returns the raw record (see the module docstring)."""
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
        timed = measure(be, prompt_tokens, gen_tokens, depth=depth, repetitions=repetitions, warmup=warmup,
                        seed=seed, clock=clock)
        peak = procinfo.peak_rss_mb()
        out = {
            "runtime": be.describe(), "clock": CLOCK_NAME, "load_ns": load_ns,
            "prompt_tokens": prompt_tokens, "gen_tokens": gen_tokens, "depth": depth, "n_ctx": n_ctx,
            "repetitions": timed["repetitions"], "warmup": timed["warmup"], "seed": seed,
            "sampling": "greedy argmax, inside each token's time",
            "ids": "random, uniform over %d..vocab-1 (random.Random(seed))" % FIRST_ID,
            "kv_cache": be.kv_cache(n_ctx),
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
