"""How long a generate request may take (docs/generative.md "Deploy"): the silence allowed while one repetition runs
(the agent says nothing until it ends) and the deadline of the whole request, both from the run's own settings and
token counts at a generous time per token.

Owns: the bounds. Does not own: enforcing them (agentlink.RunDeadline and the link's read loop), the forward pass's
(run/limits.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from edgeprof_agent.vocab import SCENARIO_DEFAULTS

if TYPE_CHECKING:
    from ..agentlink import RunDeadline
    from ..records import RunSpec

__all__ = ["repetition_silence_s", "generation_deadline", "LOAD_S", "DEADLINE_MARGIN_S"]


def repetition_silence_s(s: dict[str, int]) -> float:
    """The longest silence while one repetition runs (the agent says nothing until it ends): depth, prompt and
    generated tokens at 3 s each, on top of a minute — what a 1B model on a loaded 2-core board needs (prefill
    64 tokens in 15 s, decode 0.38 tokens/s: docs/generative.md)."""
    return 60.0 + 3.0 * (s["depth"] + s["prompt_tokens"] + s["gen_tokens"])


# the whole generate request's bound (generation_deadline): what one repetition may take, a generous 3 s a token
# on top of a minute (repetition_silence_s), for each request the scenario runs, plus the load and the telemetry
# phases; the agent is stopped when it is passed, whatever it keeps sending (agentlink.RunDeadline)
LOAD_S = 600.0  # the load may build or map a model of GBs on a slow board (run/limits.AGENT_SILENCE_TIMEOUT_S)
DEADLINE_MARGIN_S = 60.0


def generation_deadline(spec: RunSpec, s: dict[str, int]) -> RunDeadline:
    """The longest the whole generate request may take (agentlink.RunDeadline), from the run's own settings and
    token counts: the cooldown and idle waits as a run has them, the load, the warm-up (one request), then per
    scenario: single-stream, repetitions requests; server, the Poisson schedule's span (the agent's own
    scenarios.poisson_offsets of --rate, --min-duration, --min-queries, --max-queries, --seed) plus every request
    served after it; sustained, --duration plus the request running at its end plus a tenth of the duration for the
    reply. A request is repetition_silence_s (60 s + 3 s per token of depth, prompt and generation). Once the
    agent's progress says the last request is done (or a sustained run's duration passed), the reply must come
    within a request's time (a sustained run's: also a tenth of its duration, to pack its tokens)."""
    from edgeprof_agent.scenarios import poisson_offsets

    from ..agentlink import RunDeadline

    each = repetition_silence_s(s)
    settle, run_s = each, 0.0  # once the agent's progress says the loop's end is reached: the reply, in a request's
    #                            time (RunDeadline's settle; its default, one forward-pass query, is not a request's)
    if spec.scenario == "server":
        # the agent's schedule: its ScenarioSpec's seed is the spec's (run/execute.scenario_spec)
        offsets = poisson_offsets(spec.rate, spec.min_duration_s, spec.min_queries, spec.max_queries, spec.seed)
        measure = offsets[-1] / 1e9 + len(offsets) * each
        loop = f"{len(offsets)} requests over a {offsets[-1] / 1e9:.0f} s schedule"
        count = len(offsets)
    elif spec.scenario == "sustained":
        duration = spec.duration_s or SCENARIO_DEFAULTS["duration_s"]
        measure = duration * 1.1 + each
        loop = f"duration {duration:g} s"
        count, run_s, settle = 1, duration, each + duration / 10.0
    else:
        measure = s["repetitions"] * each
        loop = f"{s['repetitions']} repetitions"
        count = s["repetitions"]
    phases = {"idle": spec.idle_s + 60.0, "load": LOAD_S, "warmup": each, "measure": measure}
    if spec.cooldown_c is not None:
        phases["cooldown"] = spec.cooldown_timeout_s + 60.0
    total = sum(phases.values()) + DEADLINE_MARGIN_S
    tokens = s["depth"] + s["prompt_tokens"] + s["gen_tokens"]
    why = (f"from its settings: {loop}, each up to {each:g} s (60 s + 3 s a token for {tokens} tokens), a "
           f"{LOAD_S:g} s load")
    return RunDeadline(total, label="the generation's deadline", why=why, settle_s=settle, min_duration_s=run_s,
                       min_queries=count,
                       hint="if the board is this slow, measure a smaller run (fewer --gen-tokens, --prompt-tokens, "
                            "--depth or --repetitions; a shorter --duration); else run the agent by hand there to "
                            "see what it does")
