"""The comparable metrics: each one's name, unit, which direction is better and its default minimum effect (the
forward pass's, a sustained run's and a generation's), and which of them `check` follows by default.

Owns: Metric, METRICS / EXTRA_METRICS / METRIC_BY_NAME, the CHECKED_* and *_METRICS lists, asv's default minimum
effect and Mann-Whitney threshold. Re-exported by vocab.py (the one vocabulary). Does not own: reading a metric from
a Result (analysis/compare.py), judging a change (analysis/regress.py). Pure definitions, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from .numfmt import fmt_value

__all__ = ["Metric", "METRICS", "EXTRA_METRICS", "METRIC_BY_NAME", "CHECKED_METRICS", "SUSTAINED_METRICS",
           "CHECKED_SUSTAINED", "GENERATION_METRICS", "CHECKED_GENERATION", "DEFAULT_MIN_EFFECT", "DEFAULT_ALPHA"]

DEFAULT_MIN_EFFECT = 0.05  # asv's default factor; below this a change is "unchanged" whatever the p-value
DEFAULT_ALPHA = 0.002  # asv's Mann-Whitney threshold


# -- metrics -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    name: str
    label: str
    unit: str
    better: str  # "lower" | "higher"
    samples: bool  # a Mann-Whitney test on the raw latency samples applies
    group: str  # latency | throughput | memory | power | energy | scenario | accuracy
    min_abs: float = 0.0  # changes smaller than this (in the metric's unit) are noise whatever the ratio
    effect_scale: float = 1.0  # × the minimum effect: tails and power readings move more between runs

    @property
    def min_effect(self) -> float:
        """The default minimum relative change that counts for this metric."""
        return DEFAULT_MIN_EFFECT * self.effect_scale

    def fmt(self, v: float | None) -> str:
        return fmt_value(v, self.unit)


METRICS: tuple[Metric, ...] = (
    Metric("p50_ms", "p50 latency", "ms", "lower", True, "latency"),
    Metric("p90_ms", "p90 latency", "ms", "lower", True, "latency", effect_scale=2.0),
    Metric("p99_ms", "p99 latency", "ms", "lower", True, "latency", effect_scale=4.0),
    Metric("mean_ms", "mean latency", "ms", "lower", True, "latency"),
    Metric("throughput_ips", "throughput", "inf/s", "higher", True, "throughput"),
    Metric("peak_rss_mb", "peak memory", "MB", "lower", False, "memory", min_abs=2.0, effect_scale=2.0),
    Metric("mean_w", "mean power", "W", "lower", False, "power", min_abs=0.05, effect_scale=2.0),
    Metric("mj_per_inference", "energy per inference", "mJ", "lower", False, "energy", effect_scale=2.0),
    Metric("inferences_per_joule", "inferences per joule", "inf/J", "higher", False, "energy", effect_scale=2.0),
    Metric("gflops_per_watt", "GFLOPS per watt", "GFLOPS/W", "higher", False, "energy", effect_scale=2.0),
)
# metrics a budget may name in addition to METRICS
EXTRA_METRICS: tuple[Metric, ...] = (
    Metric("p95_ms", "p95 latency", "ms", "lower", True, "latency", effect_scale=2.0),
    Metric("p97_ms", "p97 latency", "ms", "lower", True, "latency", effect_scale=3.0),
    Metric("p999_ms", "p99.9 latency", "ms", "lower", True, "latency", effect_scale=6.0),
    Metric("max_ms", "max latency", "ms", "lower", True, "latency", effect_scale=10.0),
    Metric("p95_w", "p95 power", "W", "lower", False, "power", effect_scale=2.0),
    Metric("rss_after_load_mb", "memory after load", "MB", "lower", False, "memory"),
    # load scenarios (issue 12; docs/scenarios.md): the schedule's misses, server validity, energy per frame at
    # the duty cycle (idle gaps included), the rate sustained and samples per second
    Metric("misses", "deadline misses", "", "lower", False, "scenario"),
    Metric("miss_rate", "deadline miss rate", "%", "lower", False, "scenario", min_abs=0.5),
    Metric("valid", "run VALID (1) or INVALID (0)", "", "higher", False, "scenario"),
    Metric("j_per_frame", "energy per frame", "J", "lower", False, "energy", effect_scale=2.0),
    Metric("j_above_idle_per_frame", "energy per frame above idle", "J", "lower", False, "energy",
           effect_scale=3.0),
    Metric("sustained_qps", "sustained rate", "q/s", "higher", False, "throughput"),
    Metric("samples_per_s", "samples per second", "samples/s", "higher", False, "throughput"),
    Metric("battery_hours", "hours on the battery", "h", "higher", False, "energy", effect_scale=2.0),
    # accuracy mode (records.Accuracy): compared only between results of the same accuracy data (analysis/compare.py);
    # a change counts from 0.5 points and 0.5 % (one sample in 200; the pass is deterministic, not noisy)
    Metric("top1", "top-1 accuracy", "%", "higher", False, "accuracy", min_abs=0.5, effect_scale=0.1),
    Metric("top5", "top-5 accuracy", "%", "higher", False, "accuracy", min_abs=0.5, effect_scale=0.1),
    Metric("accuracy_mae", "mean abs error vs expected", "", "lower", False, "accuracy", effect_scale=2.0),
    Metric("accuracy_rmse", "RMSE vs expected", "", "lower", False, "accuracy", effect_scale=2.0),
    # the sustained scenario's curve (records.Sustained; the rules: edgeprof/evaluation/sustained.py, docs/scenarios.md):
    # only a sustained result has them; a budget on one is refused for any other cell when the sweep loads.
    # onset_s of a run that never throttled is its duration (no onset within the run: a lower bound)
    Metric("sustained_ratio", "sustained ratio (last windows' throughput ÷ the first's)", "", "higher", False,
           "sustained"),
    Metric("p50_ratio", "p50 ratio (last windows' p50 ÷ the first's)", "", "lower", False, "sustained"),
    Metric("steady_qps", "steady-state throughput", "q/s", "higher", False, "sustained"),
    Metric("steady_p50_ms", "steady-state p50 latency", "ms", "lower", False, "sustained"),
    Metric("steady_p99_ms", "steady-state p99 latency", "ms", "lower", False, "sustained", effect_scale=4.0),
    Metric("time_to_steady_s", "time to steady state", "s", "lower", False, "sustained", effect_scale=2.0),
    Metric("onset_s", "throttling onset (the run's duration: none)", "s", "higher", False, "sustained"),
    Metric("onset_temp_c", "temperature at the throttling onset", "°C", "higher", False, "sustained", min_abs=1.0),
    Metric("steady_temp_c", "steady-state temperature", "°C", "lower", False, "sustained", min_abs=1.0),
    Metric("steady_w", "steady-state power", "W", "lower", False, "sustained", min_abs=0.05, effect_scale=2.0),
    # generative models (records.Generation; docs/generative.md): only a generation result has them. Each is the
    # mean over repetitions (Generation's Spread). Mann-Whitney (analysis/compare.raw_samples): the decode metrics on
    # the inter-token times, TTFT and prefill on one value per repetition (untested where too few to reach alpha)
    Metric("decode_tps", "decode tokens per second (tokens after the first)", "tokens/s", "higher", True,
           "generation"),
    Metric("prefill_tps", "prompt tokens per second (prefill)", "tokens/s", "higher", True, "generation"),
    Metric("ttft_ms", "time to first token (prefill + first pick; load excluded)", "ms", "lower", True,
           "generation"),
    Metric("tpot_ms", "time per output token after the first", "ms", "lower", True, "generation"),
    Metric("itl_p99_ms", "p99 inter-token latency (pooled)", "ms", "lower", True, "generation", effect_scale=4.0),
    Metric("j_per_token", "energy per generated token (decode phase)", "J", "lower", False, "generation",
           effect_scale=2.0),
    Metric("j_per_prompt_token", "energy per prompt token (prefill phase)", "J", "lower", False, "generation",
           effect_scale=2.0),
    Metric("tokens_per_j", "generated tokens per joule (decode phase)", "tokens/J", "higher", False, "generation",
           effect_scale=2.0),
    # a generative server's or sustained run's (Generation.scenario; LoadGen's p99: generative/scenario.py): a
    # server's TTFT counted from each request's scheduled arrival
    Metric("ttft_p99_ms", "p99 time to first token over the scenario's requests (server: from the arrival)", "ms",
           "lower", False, "generation", effect_scale=4.0),
    Metric("tpot_p99_ms", "p99 time per output token over the scenario's requests", "ms", "lower", False,
           "generation", effect_scale=4.0),
)
METRIC_BY_NAME: dict[str, Metric] = {m.name: m for m in METRICS + EXTRA_METRICS}
CHECKED_METRICS = ("p50_ms", "p90_ms", "p99_ms", "throughput_ips", "peak_rss_mb", "mj_per_inference")
SUSTAINED_METRICS = tuple(m.name for m in EXTRA_METRICS if m.group == "sustained")
# what `check` follows night to night on a sustained cell besides CHECKED_METRICS (when --metric is not given)
CHECKED_SUSTAINED = ("sustained_ratio", "steady_p50_ms", "steady_p99_ms")
GENERATION_METRICS = tuple(m.name for m in EXTRA_METRICS if m.group == "generation")
# what `check` follows on a generation cell besides CHECKED_METRICS (when --metric is not given)
CHECKED_GENERATION = ("decode_tps", "ttft_ms", "j_per_token")
