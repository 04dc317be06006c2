"""How long one measurement may take: the silence allowed in each phase and the deadline of the whole run.

Owns: the bounds, computed from the run's own settings (a frozen agent is found in its phase's time, not after a
fixed 600 s). Does not own: enforcing them (agentlink.RunDeadline and the session's read loop).
"""

from __future__ import annotations

from ..agentlink import RunDeadline
from ..agentlink.deadline import QUERY_SILENCE_S  # one home; imported from here by run/ and the seam
from ..records import RunSpec
from ..vocab import RUN_DEFAULTS, SCENARIO_DEFAULTS

PROFILE_ITERATIONS = int(RUN_DEFAULTS["profile_iterations"])  # runs in the --profile-ops pass (after the timed loop)
AGENT_SILENCE_TIMEOUT_S = 600.0  # before the agent names a phase, and while it loads (TensorRT builds engines)
RUN_DEADLINE_MARGIN_S = 60.0


def phase_silences(spec: RunSpec) -> dict[str, float]:
    """The longest silence allowed in each phase of a run, from the run's own settings (a frozen agent is found in
    that time, not after a fixed 600 s): cooling waits up to --cooldown-timeout, the idle baseline --idle, loading
    may build an engine, warm-up, measurement and the accuracy pass send progress between queries, the op profile
    runs 20 queries. A sustained run's agent is silent while it cuts the windows and packs every sample into its
    reply after the loop: its measure phase allows a tenth of the duration more."""
    measure = QUERY_SILENCE_S
    if spec.scenario == "sustained":
        measure += (spec.duration_s or SCENARIO_DEFAULTS["duration_s"]) / 10.0
    return {"cooldown": spec.cooldown_timeout_s + 60.0, "cooled": QUERY_SILENCE_S, "idle": spec.idle_s + 60.0,
            "load": AGENT_SILENCE_TIMEOUT_S, "warmup": QUERY_SILENCE_S, "measure": measure,
            "profile": AGENT_SILENCE_TIMEOUT_S, "accuracy": QUERY_SILENCE_S,
            # each more session (--sessions) sends one event, then loads, warms up and times the loop in silence
            "session": AGENT_SILENCE_TIMEOUT_S + spec.warmup_s + max(spec.min_duration_s,
                                                                     spec.min_queries * QUERY_SILENCE_S)}


def run_deadline(spec: RunSpec, profile_ops: bool = False, accuracy_inferences: int = 0) -> RunDeadline:
    """The longest a whole run may take, from the run's own settings, enforced even while the agent keeps
    sending events (agentlink.RunDeadline): each phase's bound, summed, plus a margin. A query may take up to
    QUERY_SILENCE_S (longer is a silence): warm-up is its time plus one query; measuring ends once
    min_duration_s has passed with min_queries done (or max_queries done), so it is bounded by
    min(max(min_duration_s + a query, min_queries queries), max_queries queries) plus the reply. Per phase, the
    same bounds apply from the phase's first event, and once the agent's own progress says the phase's end is
    reached it has one query's time (QUERY_SILENCE_S) to end it. An accuracy pass of `accuracy_inferences`
    inferences may take a query's time for each."""
    q = QUERY_SILENCE_S
    # sustained: the loop runs for --duration whatever the query count (the agent's windows.py: max_queries does
    # not apply), and its end is the duration's, not --min-duration's
    sustained = spec.scenario == "sustained"
    run_s = (spec.duration_s or SCENARIO_DEFAULTS["duration_s"]) if sustained else spec.min_duration_s
    min_queries = 1 if sustained else spec.min_queries
    max_queries = None if sustained else spec.max_queries
    measure = run_s + q if sustained else max(spec.min_duration_s + q, spec.min_queries * q)
    if max_queries:
        measure = min(measure, max_queries * q)
    # a sustained run's reply packs every sample (a fast model's 30 minutes: tens of millions; protocol 10): its
    # end gets a tenth of the duration on top of a query's time
    settle = q + (run_s / 10.0 if sustained else 0.0)
    measure += settle
    phases = {"cooled": q, "idle": spec.idle_s + 60.0, "load": AGENT_SILENCE_TIMEOUT_S,
              "warmup": spec.warmup_s + q, "measure": measure}
    if spec.cooldown_c is not None:
        phases["cooldown"] = spec.cooldown_timeout_s + 60.0
    if profile_ops:
        phases["profile"] = AGENT_SILENCE_TIMEOUT_S
    if accuracy_inferences:
        phases["accuracy"] = accuracy_inferences * q + q
    if spec.sessions > 1:  # each more session: a load, its warm-up and its timed loop
        phases["session"] = (spec.sessions - 1) * (AGENT_SILENCE_TIMEOUT_S + spec.warmup_s + q + measure)
    total = sum(phases.values()) + RUN_DEADLINE_MARGIN_S
    loop = (f"duration {run_s:g} s" if sustained
            else f"min_duration {spec.min_duration_s:g} s, min_queries {spec.min_queries}")
    why = (f"from the run's settings: warm-up {spec.warmup_s:g} s, {loop}"
           + (f", max_queries {max_queries}" if max_queries else "") + f", at most {q:g} s a query")
    return RunDeadline(total, phase_s=phases, settle_s=settle, min_duration_s=run_s, min_queries=min_queries,
                       max_queries=max_queries, warmup_s=spec.warmup_s, why=why)
