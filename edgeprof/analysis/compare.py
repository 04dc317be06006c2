"""Comparing results: metric values of a Result, per-metric ratios, Mann-Whitney U on raw samples, verdicts.

Owns: the list of comparable metrics (name, unit, which direction is better, whether raw samples back it), how
each is read from a Result, the two-sided Mann-Whitney U test (normal approximation with tie and continuity
correction, as scipy's `method="asymptotic"`), the A/B verdict (regressed / improved / unchanged / n/a: the
change must exceed a minimum effect AND, where raw samples exist, be significant), the device fingerprint and
the environment differences worth showing next to a change.
Does not own: finding which results to compare (cli, store), history step detection and budgets (regress.py),
printing. Pure functions, no I/O.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..files.output import brief
from ..records import Result
from ..vocab import (  # noqa: F401  (re-exported: callers import them from here too)
    CHECKED_METRICS,
    DEFAULT_ALPHA,
    DEFAULT_MIN_EFFECT,
    EXTRA_METRICS,
    GENERATION_METRICS,
    METRIC_BY_NAME,
    METRICS,
    ConfigIdentity,
    Metric,
    fmt_p,
    fmt_value,
    is_finite_number,
)

# a load scenario's metrics outside the "scenario" group (compare shows them when both runs have them)
SCENARIO_ENERGY = ("j_per_frame", "j_above_idle_per_frame", "sustained_qps", "samples_per_s", "battery_hours")

# -- bounds of the statistics options: one set for check, compare and sweep-file budgets -------------------------

ALPHA_RANGE = (0.0, 1.0)  # exclusive at both ends: p < alpha must be possible and not certain
MIN_EFFECT_RANGE = (0.0, 10.0)  # [0, 10): a fraction of the baseline (10 = 1000 %)
PERSIST_RANGE = (1, 1000)  # results a step must hold (inclusive)
HISTORY_RANGE = (3, 10_000)  # results a step detection looks back over (inclusive)


def check_alpha(value: float, flag: str = "--alpha") -> float:
    """A p-value threshold strictly between 0 and 1 (NaN and inf refused), else one ConfigError line."""
    lo, hi = ALPHA_RANGE
    if not (math.isfinite(value) and lo < value < hi):
        raise ConfigError(f"{flag} {value!r}: a p-value threshold is between {lo:g} and {hi:g}, exclusive",
                          hint=f"e.g. {DEFAULT_ALPHA}")
    return value


def check_count(value: int, flag: str, bounds: tuple[int, int]) -> int:
    """An integer option within `bounds` (inclusive), else one ConfigError line."""
    lo, hi = bounds
    if not lo <= value <= hi:
        raise ConfigError(f"{flag} {value}: out of range ({lo}..{hi})")
    return value


def parse_min_effect(text: str, flag: str = "--min-effect") -> tuple[str | None, float]:
    """`0.1`, `10%` or `p99_ms=0.2` → (metric or None, fraction in MIN_EFFECT_RANGE), else one ConfigError."""
    name, sep, value = str(text).rpartition("=")
    v = value.strip()
    try:
        f = float(v[:-1]) / 100 if v.endswith("%") else float(v)
    except ValueError:
        raise ConfigError(f"{flag} {brief(text)}: expected a fraction (0.05), a percentage (5%) or "
                          "METRIC=FRACTION") from None
    lo, hi = MIN_EFFECT_RANGE
    if not (math.isfinite(f) and lo <= f < hi):
        raise ConfigError(f"{flag} {brief(text)}: out of range (a fraction from {lo:g} up to {hi:g})")
    if sep and name not in METRIC_BY_NAME:
        raise ConfigError(f"{flag} {brief(text)}: unknown metric {brief(name)}",
                          hint="metrics: " + ", ".join(sorted(METRIC_BY_NAME)))
    return (name if sep else None), f


def metric_values(r: Result) -> dict[str, float | None]:
    """Every metric of METRIC_BY_NAME that the result has (None where it was not measured)."""
    lat, mem, pw = r.latency_ms, r.memory_mb, r.power

    def num(v: Any) -> float | None:
        return float(v) if is_finite_number(v) else None

    out: dict[str, float | None] = dict.fromkeys(METRIC_BY_NAME)
    if lat is not None:
        out.update({"p50_ms": num(lat.p50), "p90_ms": num(lat.p90), "p95_ms": num(lat.p95), "p97_ms": num(lat.p97),
                    "p99_ms": num(lat.p99), "p999_ms": num(lat.p999), "mean_ms": num(lat.mean),
                    "max_ms": num(lat.max)})
    out["throughput_ips"] = num(r.throughput_ips)
    if mem is not None:
        out.update({"peak_rss_mb": num(mem.peak_rss), "rss_after_load_mb": num(mem.rss_after_load)})
    if pw is not None:
        out.update({"mean_w": num(pw.mean_w), "p95_w": num(pw.p95_w), "mj_per_inference": num(pw.energy_mj_per_inference),
                    "inferences_per_joule": num(pw.inferences_per_joule), "gflops_per_watt": num(pw.gflops_per_watt)})
    sc = r.scenario
    out.update({"misses": num(sc.misses), "miss_rate": num(sc.miss_rate),
                "valid": None if sc.valid is None else float(sc.valid), "j_per_frame": num(sc.j_per_frame),
                "j_above_idle_per_frame": num(sc.j_above_idle_per_frame), "sustained_qps": num(sc.sustained_qps),
                "samples_per_s": num(sc.samples_per_s), "battery_hours": num(sc.battery_hours)})
    su = r.sustained
    if su is not None:  # the curve's figures (vocab.SUSTAINED_METRICS); no onset within the run: its duration
        out.update({"sustained_ratio": num(su.sustained_ratio), "p50_ratio": num(su.p50_ratio),
                    "steady_qps": num(su.steady_qps), "steady_p50_ms": num(su.steady_p50_ms),
                    "steady_p99_ms": num(su.steady_p99_ms), "time_to_steady_s": num(su.time_to_steady_s),
                    "onset_s": num(su.onset_s) if su.onset_window is not None else num(su.duration_s),
                    "onset_temp_c": num(su.onset_temp_c), "steady_temp_c": num(su.steady_temp_c),
                    "steady_w": num(su.steady_w)})
    g = r.generation
    if g is not None:  # a generative model's run: the means over repetitions (vocab.GENERATION_METRICS)
        e = g.energy
        out.update({"decode_tps": num(g.decode_tps.mean) if g.decode_tps else None,
                    "prefill_tps": num(g.prefill_tps.mean), "ttft_ms": num(g.ttft_ms.mean),
                    "tpot_ms": num(g.tpot_ms.mean) if g.tpot_ms else None,
                    "itl_p99_ms": num(g.itl_ms.p99) if g.itl_ms else None,
                    "j_per_token": num(e.j_per_token) if e else None,
                    "j_per_prompt_token": num(e.j_per_prompt_token) if e else None,
                    "tokens_per_j": num(e.tokens_per_j) if e else None,
                    "ttft_p99_ms": num(g.scenario.ttft_p99_ms) if g.scenario else None,
                    "tpot_p99_ms": num(g.scenario.tpot_p99_ms) if g.scenario else None})
    acc = r.accuracy
    if acc is not None:  # the first expected output's errors stand for the error metrics
        first = acc.errors[0] if acc.errors else None
        out.update({"top1": num(acc.top1), "top5": num(acc.top5),
                    "accuracy_mae": num(first.mean_abs_error) if first else None,
                    "accuracy_rmse": num(first.rmse) if first else None})
    return out


# the latency section's statistic behind each latency metric (LatencyStats.absent is keyed by these)
_LATENCY_STAT = {"p50_ms": "p50", "p90_ms": "p90", "p95_ms": "p95", "p97_ms": "p97", "p99_ms": "p99",
                 "p999_ms": "p999", "mean_ms": "mean", "max_ms": "max", "throughput_ips": "throughput_ips"}
_POWER_METRICS = ("mean_w", "p95_w", "mj_per_inference", "inferences_per_joule", "gflops_per_watt")
_GEN_ENERGY = ("j_per_token", "j_per_prompt_token", "tokens_per_j")
_GEN_SCENARIO = ("ttft_p99_ms", "tpot_p99_ms")


def absent_reason(r: Result, metric: str) -> str | None:
    """Why `metric` is not in `r`, where the result says (a phone's benchmark_model statistics, a refused
    power measurement); None when it gives no reason."""
    lat = r.latency_ms
    if metric in _LATENCY_STAT and lat is not None:
        return lat.absent_reason(_LATENCY_STAT[metric])
    if metric in _POWER_METRICS and r.power is None:
        return r.null_reasons.power
    if metric in _GEN_ENERGY and r.generation is not None and r.generation.energy is None:
        return r.generation.energy_reason
    if metric in GENERATION_METRICS and r.generation is None:
        return "not a generative model's run"
    if metric in _GEN_SCENARIO and r.generation is not None and r.generation.scenario is None:
        return "a single-stream generation: the p99s are a server's or sustained run's (--scenario)"
    return None


def _why_absent(base: Result, new: Result, name: str, b: float | None, n: float | None) -> str | None:
    """The reason of the side that lacks the metric's value, or else its raw samples."""
    if b is None or n is None:
        return absent_reason(base if b is None else new, name)
    lacking = new if not new.samples_ms else base if not base.samples_ms else None
    lat = lacking.latency_ms if lacking is not None else None
    return lat.absent_reason("samples") if lat is not None else None


def absent_notes(deltas: Sequence[MetricDelta]) -> list[str]:
    """One line per reason a metric was not compared: `p90_ms, p99_ms: not measured in the new result: why`."""
    by_note: dict[str, list[str]] = {}
    for d in deltas:
        if d.verdict == "n/a" and d.note:
            by_note.setdefault(d.note, []).append(d.metric.name)
    return [f"{', '.join(names)}: {note}" for note, names in by_note.items()]


def accuracy_data_differ(base: Result, new: Result) -> str | None:
    """Why two results' accuracy cannot be compared (another data file), or None."""
    a, b = base.accuracy, new.accuracy
    if a is None or b is None or a.sha256 == b.sha256:
        return None
    return f"scored on different data ({a.data} {a.sha256[:12]} vs {b.data} {b.sha256[:12]})"


# -- Mann-Whitney U ------------------------------------------------------------------------------------------


def _average_ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """1-based ranks with ties given their average rank, and the sizes of the tie groups."""
    order = np.argsort(x, kind="mergesort")
    _, inverse, counts = np.unique(x[order], return_inverse=True, return_counts=True)
    avg = np.cumsum(counts) - (counts - 1) / 2.0
    ranks = np.empty(x.size, dtype=np.float64)
    ranks[order] = avg[inverse]
    return ranks, counts


def smallest_p(n1: int, n2: int) -> float:
    """The smallest p-value mann_whitney_u can give for samples of n1 and n2 (the two fully separated): with 5
    repetitions a side it is about 0.012, so at asv's 0.002 no outcome of such a test could count."""
    return mann_whitney_u(range(n1), range(n1, n1 + n2))[1]


def mann_whitney_u(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Two-sided Mann-Whitney U test. Returns (U of `a`, p-value).

    Normal approximation with tie correction and continuity correction (scipy.stats.mannwhitneyu with
    method="asymptotic"); fine for the tens to thousands of samples a run holds. Raises ValueError when a
    side is empty."""
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    n1, n2 = int(x.size), int(y.size)
    if n1 == 0 or n2 == 0:
        raise ValueError("Mann-Whitney U needs samples on both sides")
    ranks, counts = _average_ranks(np.concatenate([x, y]))
    u1 = float(ranks[:n1].sum() - n1 * (n1 + 1) / 2.0)
    u2 = n1 * n2 - u1
    n = n1 + n2
    ties = float(np.sum(counts.astype(np.float64) ** 3 - counts))
    var = n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1))) if n > 1 else 0.0
    if var <= 0:
        return u1, 1.0  # every value identical
    z = (max(u1, u2) - n1 * n2 / 2.0 - 0.5) / math.sqrt(var)
    p = math.erfc(max(z, 0.0) / math.sqrt(2.0))
    return u1, min(1.0, p)


# -- A/B ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricDelta:
    metric: Metric
    base: float | None
    new: float | None
    ratio: float | None  # new / base
    change: float | None  # new / base - 1
    p_value: float | None
    verdict: str  # regressed | improved | unchanged | n/a
    note: str = ""

    def describe(self) -> str:
        m = self.metric
        if self.change is None:
            return f"{m.name}: {self.note or 'not comparable'}"
        sign = "+" if self.change >= 0 else ""
        p = f", p={fmt_p(self.p_value)}" if self.p_value is not None else ""
        return f"{m.name} {self.verdict} {sign}{self.change * 100:.1f} % ({m.fmt(self.base)} → {m.fmt(self.new)}{p})"


def compare_metric(metric: Metric, base: float | None, new: float | None, *,
                   base_samples: Sequence[float] | None = None, new_samples: Sequence[float] | None = None,
                   min_effect: float = DEFAULT_MIN_EFFECT, alpha: float = DEFAULT_ALPHA,
                   why_absent: str | None = None) -> MetricDelta:
    """`why_absent`: the reason the side without a value gives (absent_reason), shown in the note."""
    if base is None or new is None:
        missing = "baseline" if base is None else "new result"
        why = f": {why_absent}" if why_absent else ""
        return MetricDelta(metric, base, new, None, None, None, "n/a", f"not measured in the {missing}{why}")
    if base == 0:
        return MetricDelta(metric, base, new, None, None, None, "n/a", "baseline is 0")
    ratio = new / base
    change = ratio - 1.0
    bad = change if metric.better == "lower" else -change
    p: float | None = None
    too_few = ""
    if metric.samples and base_samples is not None and new_samples is not None \
            and len(base_samples) and len(new_samples):
        if metric.group == "generation" and smallest_p(len(base_samples), len(new_samples)) >= alpha:
            # one value per repetition (TTFT, prefill): no outcome could be significant, so none is claimed
            too_few = (f"no significance test: {len(base_samples)} and {len(new_samples)} samples cannot reach "
                       f"p < {alpha:g}")
        else:
            p = mann_whitney_u(base_samples, new_samples)[1]
    if abs(bad) < min_effect:
        return MetricDelta(metric, base, new, ratio, change, p, "unchanged",
                           f"within the minimum effect of {min_effect * 100:g} %")
    if abs(new - base) < metric.min_abs:
        return MetricDelta(metric, base, new, ratio, change, p, "unchanged",
                           f"within {metric.fmt(metric.min_abs)} (measurement granularity)")
    if p is not None and p >= alpha:
        return MetricDelta(metric, base, new, ratio, change, p, "unchanged",
                           f"not significant (Mann-Whitney p={p:.2g} >= {alpha:g})")
    untested = too_few
    if metric.samples and p is None and not too_few and not (base_samples and new_samples):
        side = "neither result has raw samples" if not base_samples and not new_samples else \
            f"the {'baseline' if not base_samples else 'new result'} has no raw samples"
        untested = f"no significance test: {side}" + (f" ({why_absent})" if why_absent else "")
    return MetricDelta(metric, base, new, ratio, change, p, "regressed" if bad > 0 else "improved", untested)


_PER_TOKEN = ("decode_tps", "tpot_ms", "itl_p99_ms")  # tested on the pooled inter-token times


def raw_samples(r: Result, metric: Metric) -> list[float] | None:
    """The raw values a Mann-Whitney test of `metric` runs on, or None where the metric has none: a forward pass's
    latency samples; a generation's decode metrics on its inter-token times (every token after the first, every
    repetition, in ms), its TTFT and prefill on one value per repetition (prefill + first token, prefill). A
    server's or sustained run's metrics, and energy, are not tested."""
    if metric.group != "generation":
        return list(r.samples_ms) if metric.samples and r.samples_ms is not None else None
    g = r.generation
    if g is None or g.scenario is not None or not g.token_ns:
        return None
    if metric.name in _PER_TOKEN:
        return [t / 1e6 for rep in g.token_ns for t in rep[1:]]
    if metric.name == "ttft_ms" and len(g.prefill_ns) == len(g.token_ns):
        return [(p + rep[0]) / 1e6 for p, rep in zip(g.prefill_ns, g.token_ns, strict=True) if rep]
    if metric.name == "prefill_tps":
        return [p / 1e6 for p in g.prefill_ns]
    return None


def compare_results(base: Result, new: Result, *, metrics: Sequence[str] | None = None,
                    min_effect: float = DEFAULT_MIN_EFFECT, min_effects: Mapping[str, float] | None = None,
                    alpha: float = DEFAULT_ALPHA) -> list[MetricDelta]:
    """One MetricDelta per metric (default: METRICS). Latency and throughput are tested on the raw samples.

    A metric's minimum effect is min_effects[name] if given, else min_effect × its effect_scale (tail
    percentiles and power readings move more from run to run than the median: p90 2×, p99 4×)."""
    bv, nv = metric_values(base), metric_values(new)
    out = []
    gen = base.generation is not None and new.generation is not None  # a generation has no forward pass's figures
    default = [m.name for m in METRICS if not gen or m.group in ("memory", "power")] + [
        # a load scenario's, an accuracy pass's and a generation's metrics, when both have them
        m.name for m in EXTRA_METRICS
        if m.group in ("scenario", "accuracy", "sustained", "generation") or m.name in SCENARIO_ENERGY
        if bv.get(m.name) is not None and nv.get(m.name) is not None]
    other_data = accuracy_data_differ(base, new)
    for name in metrics or default:
        metric = METRIC_BY_NAME[name]
        if metric.group == "accuracy" and other_data:
            out.append(MetricDelta(metric, bv.get(name), nv.get(name), None, None, None, "n/a", other_data))
            continue
        eff = (min_effects or {}).get(name, min_effect * metric.effect_scale)
        why = _why_absent(base, new, name, bv.get(name), nv.get(name))
        out.append(compare_metric(metric, bv.get(name), nv.get(name),
                                  base_samples=raw_samples(base, metric), new_samples=raw_samples(new, metric),
                                  min_effect=eff, alpha=alpha, why_absent=why))
    return out


# -- identity of a configuration and of the board ---------------------------------------------------------------


@dataclass(frozen=True)
class _WeightFacts:
    """What an artifact's export_options say about its weights, read once from the stored mapping: the keys the
    exporters write (export/), each as text, a count or a list when it is one, else absent."""

    quantized_by: str = ""  # an ONNX file already quantised: "QDQ (...): ops"
    weights: str = ""  # a TFLite file: "float16 ..." when its weights are
    quantized_tensors: int = 0  # a TFLite file already int8
    quantized_inputs: bool = False
    quantizer: str = ""  # the int8 conversion edgeprof made
    converter: str = ""  # the fp16 conversion edgeprof made
    ops_kept_fp32: tuple[str, ...] = ()

    @classmethod
    def of(cls, opts: Mapping[str, Any]) -> _WeightFacts:
        kept = opts["ops_kept_fp32"] if isinstance(opts.get("ops_kept_fp32"), list) else []
        text = {k: v for k, v in opts.items() if k in ("quantized_by", "weights", "quantizer", "converter")
                and isinstance(v, str)}
        count = opts.get("quantized_tensors")
        return cls(**text, quantized_tensors=count if isinstance(count, int) and not isinstance(count, bool) else 0,
                   quantized_inputs=bool(opts.get("quantized_inputs")), ops_kept_fp32=tuple(map(str, kept)))


def precision_detail(r: Result) -> str | None:
    """What the precision is, read from the file's weights and recorded in its artifact's export_options: the
    kind of an already-quantised file (QDQ, QOperator, dynamic, weight-only int8; float16 weights), or of the
    conversion edgeprof made (static QDQ int8, fp16 graph). A detail for people beside the precision: it is not
    part of the configuration's identity (ConfigIdentity), so keys stay as they are. None for fp32 and
    artifacts that say nothing."""
    a = r.artifact
    if a is None or r.identity.precision == "fp32":
        return None
    w = _WeightFacts.of(a.export_options.to_dict() if a.export_options is not None else {})
    if w.quantized_by:
        return w.quantized_by.split(": ", 1)[0]
    if w.weights.startswith("float16"):
        return "float16 weights, float32 compute"
    if w.quantized_tensors:
        io = ", int8 inputs" if w.quantized_inputs else ", float I/O"
        return f"int8 tensors ({w.quantized_tensors} with scales){io}"
    if w.quantizer.startswith("onnxruntime.quantization"):
        return "static QDQ (int8 weights per channel, int8 activations)"
    if w.quantizer.startswith("ai_edge_quantizer"):
        return "static int8 (weights per channel, activations per tensor), float I/O"
    if w.converter.startswith("onnxconverter_common.float16"):
        kept = w.ops_kept_fp32
        return "float16 graph, float32 I/O" + (f", {len(kept)} op types kept float32" if kept else "")
    return None


def precision_label(r: Result) -> str:
    """The precision with its detail (precision_detail) when there is one: `int8 (as given) [QDQ (...)]`."""
    detail = precision_detail(r)
    return f"{r.precision} [{detail}]" if detail else r.precision


def cell_label(r: Result | Mapping[str, Any]) -> str:
    """`model on device · runtime precision [detail] · batch N · T threads` for a Result (the detail:
    precision_detail, shown only) or a store row."""
    if isinstance(r, Result):
        detail = precision_detail(r)
        ident = r.identity
        if detail:
            import dataclasses

            ident = dataclasses.replace(ident, precision=f"{ident.precision} [{detail}]")
        return ident.label()
    return ConfigIdentity(str(r["device"]), str(r["model"]), str(r["runtime"]), str(r["precision"]),
                          int(r["batch"]), r["threads"]).label()


def identity_differences(a: Result, b: Result) -> list[str]:
    """Why two results are not one configuration, for people: what differs in their ConfigIdentity, and a
    note when one is identified by the model path as typed because it stores no content hash."""
    x, y = a.identity, b.identity
    out = []
    for what, u, v in (("device", x.device, y.device), ("runtime", x.runtime, y.runtime),
                       ("precision", x.precision, y.precision), ("batch", x.batch, y.batch),
                       ("threads", x.threads, y.threads), ("scenario", x.scenario, y.scenario),
                       ("accelerator", x.accelerator or "CPU", y.accelerator or "CPU")):
        if u != v:  # a scenario: its rate, samples, streams, a sustained run's duration and window
            if what == "scenario":
                u, v = u or "single-stream", v or "single-stream"
            out.append(f"{what} {u} vs {v}")
    if x.content and y.content and x.content != y.content:
        out.append(f"model {x.content.removeprefix('sha256:')[:12]} vs {y.content.removeprefix('sha256:')[:12]}")
    if x.shapes is not None and y.shapes is not None and x.shapes != y.shapes:
        out.append(f"input shapes {x.shapes_label()} vs {y.shapes_label()}")
    for name, ident in (("A", x), ("B", y)):
        if ident.by_path:
            out.append(f"{name} stores no model content hash: identified by its path as typed ({ident.model})")
    return out


FINGERPRINT_KEYS = ("board_model", "cpu", "arch", "cores", "memory_mb")


def device_fingerprint(r: Result) -> str | None:
    """Short hash of what identifies the hardware a result was measured on (board, CPU, cores, memory)."""
    env = r.environment
    if env.device is None:
        return None
    ident = {k: env.fact(k) for k in FINGERPRINT_KEYS}
    mem = ident["memory_mb"]
    if isinstance(mem, int | float):
        ident["memory_mb"] = round(float(mem) / 256.0)  # MemTotal wobbles a little between boots
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:12]


def _gpu_label(gpu: Any) -> str | None:
    """`1 Tesla T4 GPU-6a5f0e44…` for environment.runtime.gpu (None when the run named no GPU)."""
    if not isinstance(gpu, dict):
        return None
    return " ".join(str(x) for x in (gpu.get("index"), gpu.get("name"), (gpu.get("uuid") or "")[:12] or None)
                    if x is not None) or None


def _env_summary(r: Result) -> dict[str, Any]:
    env = r.environment
    out: dict[str, Any] = {
        "device": device_fingerprint(r), "board": env.fact("board_model") or env.fact("cpu"),
        "os": env.fact("os"), "kernel": env.fact("kernel"), "device python": env.fact("python"),
        "runtime version": env.runtime_version, "providers": ",".join(env.runtime_providers) or None,
        "gpu": _gpu_label(env.runtime.gpu.to_dict() if env.runtime is not None and env.runtime.gpu else None),  # the GPU a run named (--gpu): same configuration, other board
        "agent": env.agent_version, "edgeprof": env.edgeprof_version,
        "model sha256": (env.model_sha256 or "")[:12] or None,
        "thread env": json.dumps(env.thread_env, sort_keys=True) if env.thread_env else None,
    }
    before = r.thermal.before if r.thermal else None
    if before is not None:
        for k, v in (("nvpmodel", before.nvpmodel and before.nvpmodel.to_dict()),
                     ("jetson_clocks", before.jetson_clocks and before.jetson_clocks.to_dict()),
                     ("governor", before.governors)):
            if v is not None:
                out[k] = json.dumps(v, sort_keys=True)
    return out


def environment_changes(base: Result, new: Result) -> list[tuple[str, Any, Any]]:
    """(what, before, after) for environment details that differ: the usual suspects behind a change."""
    a, b = _env_summary(base), _env_summary(new)
    return [(k, a.get(k), b.get(k)) for k in a if a.get(k) != b.get(k)]
