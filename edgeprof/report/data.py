"""What a report shows, gathered once for every format (html, md, csv).

Owns: choosing the results (a sweep's cells, or the newest result of each configuration matching filters),
each configuration's nightly history (same store.config_key), the board-comparison rows (one per ok result, with
the metrics of compare.metric_values), and small derived views: short labels, latency histograms on a log
axis, Pareto fronts of latency vs energy per inference, accuracy next to speed (accuracy_rows). Pure except for `gather`, which reads the store.
Does not own: drawing (html.py, tabular.py), statistics of a comparison (analysis/compare.py, analysis/regress.py).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..analysis.compare import metric_values, precision_detail
from ..records import Result, utc_now
from ..records.prediction import StoredPrediction
from ..store import Store, config_key

# a load scenario's columns (docs/scenarios.md): empty for single-stream rows but the scenario's name
SCENARIO_COLUMNS = ("scenario", "rate_qps", "misses", "valid", "j_per_frame", "sustained_qps", "samples_per_s")
ROW_METRICS = ("p50_ms", "p90_ms", "p99_ms", "throughput_ips", "peak_rss_mb", "mean_w", "mj_per_inference",
               "inferences_per_joule", "gflops_per_watt")
# accuracy mode's columns (docs/accuracy.md): empty for rows without an accuracy pass
ACCURACY_COLUMNS = ("top1", "top5", "accuracy_mae", "accuracy_samples", "accuracy_data")
# a generative model's columns (vocab.GENERATION_METRICS; docs/generative.md): empty for forward-pass rows
GENERATION_COLUMNS = ("prompt_tokens", "gen_tokens", "depth", "prefill_tps", "decode_tps", "ttft_ms", "tpot_ms",
                      "itl_p99_ms", "j_per_token", "j_per_prompt_token", "tokens_per_j")


@dataclass
class ReportData:
    title: str
    scope: str
    generated_at: str
    db: str
    results: list[Result]
    histories: dict[str, list[Result]] = field(default_factory=dict)  # config_key → ok results, oldest first
    sweep: Any = None  # ledger.SweepRecord
    predictions: dict[str, StoredPrediction] = field(default_factory=dict)  # config_key → newest prediction

    def __post_init__(self) -> None:
        global _LABELS
        _LABELS = {id(r): (r, label) for r, label in zip(self.results, model_labels(self.results), strict=True)}

    @property
    def ok(self) -> list[Result]:
        return [r for r in self.results if r.status == "ok"]

    @property
    def not_ok(self) -> list[Result]:
        return [r for r in self.results if r.status != "ok"]

    def models(self) -> list[str]:
        return list(dict.fromkeys(model_label(r) for r in self.results))

    def devices(self) -> list[str]:
        return list(dict.fromkeys(r.device for r in self.results))


# the labels of the results the newest ReportData holds (id → (result, label)): every view of one report names
# a model the same way without passing the data around
_LABELS: dict[int, tuple[Result, str]] = {}


def _base_label(r: Result) -> str:
    if r.sweep and r.sweep.model_label:
        return r.sweep.model_label
    return r.identity.model_label()


def _model_file(r: Result) -> str:
    """What tells two models with one base name apart: the absolute path of the file (from the artifact's source),
    else the model string as stored."""
    source = r.artifact.source if r.artifact else ""
    if source.startswith("file:"):
        return source.removeprefix("file:")
    if source.startswith("builder:"):
        return source.removeprefix("builder:")
    return r.model


def _shortest_suffixes(paths: Sequence[str]) -> dict[str, str]:
    """path → its shortest trailing part (whole components) that no other path in `paths` ends with."""
    parts = {p: [c for c in p.replace("\\", "/").split("/") if c] for p in paths}
    out = {}
    for p, comps in parts.items():
        for k in range(1, len(comps) + 1):
            tail = comps[-k:]
            if not any(o != p and parts[o][-k:] == tail for o in parts):
                break
        out[p] = "/".join(comps[-k:]) if comps else p
    return out


def model_labels(results: Sequence[Result]) -> list[str]:
    """One label per result, unambiguous across `results`: the base name; when two files share it, their shortest
    distinguishing path suffix (`kws/alexa.tflite`, `wake/alexa.tflite`); when one model was fed different input
    shapes, the shapes too (`net.onnx [x=1x3x8x8]`)."""
    by_base: dict[str, set[str]] = {}
    for r in results:
        by_base.setdefault(_base_label(r), set()).add(_model_file(r))
    suffix: dict[tuple[str, str], str] = {}
    for base, files in by_base.items():
        if len(files) > 1:
            for f, tail in _shortest_suffixes(sorted(files)).items():
                suffix[(base, f)] = tail
    labels = [suffix.get((_base_label(r), _model_file(r)), _base_label(r)) for r in results]
    shapes: dict[str, set[str]] = {}
    for r, label in zip(results, labels, strict=True):
        if r.identity.shapes:
            shapes.setdefault(label, set()).add(r.identity.shapes_label())
    return [f"{label} [{r.identity.shapes_label()}]" if len(shapes.get(label, ())) > 1 and r.identity.shapes
            else label for r, label in zip(results, labels, strict=True)]


def model_label(r: Result) -> str:
    """The model's label in the current report (model_labels), else its base name."""
    held = _LABELS.get(id(r))
    if held is not None and held[0] is r:
        return held[1]
    return _base_label(r)


def config_label(r: Result, *, with_model: bool = False) -> str:
    threads = f"{r.threads} thr" if r.threads else "auto thr"
    s = f"{r.device} · {r.runtime} {r.precision} · b{r.batch} · {threads}"
    if r.scenario.label:  # a load scenario other than single-stream is another configuration
        s += f" · {r.scenario.label}"
    return f"{model_label(r)} · {s}" if with_model else s


def row(r: Result) -> dict[str, Any]:
    v = metric_values(r)
    lat = r.latency_ms
    out: dict[str, Any] = {"run_id": r.run_id, "created_at": r.created_at, "status": r.status, "device": r.device,
                           "model": model_label(r), "runtime": r.runtime, "precision": r.precision,
                           "precision_detail": precision_detail(r),
                           "batch": r.batch, "threads": r.threads, "cv": lat.cv if lat else None, "n": lat.n if lat else None,
                           "reason": r.reason}
    out.update({k: v[k] for k in ROW_METRICS})
    # who computed the latency statistics: edgeprof from the raw samples, or a phone's benchmark_model (schema 8)
    out["latency_source"] = (lat.source or "samples") if lat else None
    p = r.power
    out["power_source"] = f"{p.source} {p.rail or ''}".strip() if p and p.source else None
    out["sweep_id"] = r.sweep.sweep_id if r.sweep else None
    sc = r.scenario
    out.update({"scenario": sc.label or sc.name, "rate_qps": sc.rate_qps, "misses": v["misses"], "valid": v["valid"],
                "j_per_frame": v["j_per_frame"], "sustained_qps": v["sustained_qps"],
                "samples_per_s": v["samples_per_s"]})
    acc = r.accuracy
    out.update({"top1": v["top1"], "top5": v["top5"], "accuracy_mae": v["accuracy_mae"],
                "accuracy_samples": acc.samples if acc else None,
                "accuracy_data": f"{os.path.basename(acc.data)} sha256:{acc.sha256[:12]}" if acc else None})
    g = r.generation
    out.update({k: v[k] for k in GENERATION_COLUMNS if k in v})
    out.update({"prompt_tokens": g.prompt_tokens if g else None, "gen_tokens": g.tokens if g else None,
                "depth": g.depth if g else None})
    return out


def latency_notes(results: Sequence[Result]) -> list[str]:
    """One line per device whose latency statistics are not edgeprof's own (a phone's benchmark_model): whose
    they are, and which statistics are absent and why (an empty cell in the tables, never 0), over every result
    of that device (a phone's builds may differ: one prints percentiles, an older one none)."""
    sources: dict[str, str] = {}
    reasons: dict[str, dict[str, list[str]]] = {}
    for r in results:
        lat = r.latency_ms
        if lat is None or not lat.source:
            continue
        sources.setdefault(r.device, lat.source)
        by_reason = reasons.setdefault(r.device, {})
        for stat, why in (lat.absent or {}).items():
            if stat not in by_reason.setdefault(why, []):
                by_reason[why].append(stat)
    notes = []
    for device, source in sources.items():
        absent = "; ".join(f"{', '.join(stats)} absent: {why}" for why, stats in reasons[device].items())
        notes.append(f"{device}: latency is {source}'s own statistics" + (f"; {absent}" if absent else ""))
    return notes


@dataclass(frozen=True)
class AccuracyRow:
    """One result's accuracy next to its speed, and its change from the fp32 run of the same configuration
    (device, runtime, batch, threads, scenario) on the same data: int8's or fp16's cost in accuracy."""

    result: Result
    model: str
    data: str
    top1: float | None
    top5: float | None
    mae: float | None
    vs_fp32_top1: float | None  # percentage points
    vs_fp32_mae: float | None
    fp32_run: str | None


def accuracy_rows(results: Sequence[Result]) -> list[AccuracyRow]:
    """The results with an accuracy pass, by model and data, fp32 first, each against its fp32 sibling."""
    scored = [r for r in results if r.status == "ok" and r.accuracy is not None]

    def sibling_key(r: Result) -> tuple[Any, ...]:
        ident = r.identity
        assert r.accuracy is not None
        return (ident.device, ident.content or ident.model, ident.runtime, ident.batch, ident.threads,
                ident.shapes, ident.scenario, r.accuracy.sha256)

    fp32: dict[tuple[Any, ...], Result] = {}
    for r in sorted(scored, key=lambda r: r.created_at):  # the newest fp32 run of a configuration
        if r.precision == "fp32":
            fp32[sibling_key(r)] = r
    out = []
    for r in scored:
        a = r.accuracy
        assert a is not None
        v = metric_values(r)
        base = fp32.get(sibling_key(r)) if r.precision != "fp32" else None
        bv = metric_values(base) if base is not None else {}
        d1 = v["top1"] - bv["top1"] if base is not None and v["top1"] is not None and bv["top1"] is not None \
            else None
        dm = v["accuracy_mae"] - bv["accuracy_mae"] if base is not None and v["accuracy_mae"] is not None \
            and bv["accuracy_mae"] is not None else None
        out.append(AccuracyRow(r, model_label(r), f"{os.path.basename(a.data)} ({a.samples} samples, sha256 "
                               f"{a.sha256[:12]})", v["top1"], v["top5"], v["accuracy_mae"], d1, dm,
                               base.run_id if base is not None else None))
    order = {"fp32": 0, "fp16": 1, "int8": 2}
    out.sort(key=lambda x: (x.model, x.data, x.result.device, x.result.runtime, order.get(x.result.precision, 3),
                            x.result.precision))
    return out


def log_histogram(samples: Sequence[float], bins: int = 48, lo: float | None = None,
                  hi: float | None = None) -> tuple[list[float], list[float]]:
    """(bin edges, density) of positive samples on log-spaced bins; density is per log10 unit, max-normalised."""
    a = np.asarray(samples, dtype=np.float64)
    a = a[a > 0]
    if a.size == 0:
        return [], []
    lo = lo if lo is not None else float(a.min())
    hi = hi if hi is not None else float(a.max())
    if hi <= lo:
        hi = lo * 1.01
    edges = np.logspace(math.log10(lo), math.log10(hi), bins + 1)
    counts, _ = np.histogram(np.clip(a, lo, hi), bins=edges)
    dens = counts / np.diff(np.log10(edges))
    peak = float(dens.max()) or 1.0
    return [float(e) for e in edges], [float(d) / peak for d in dens]


def pareto_front(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indices of the non-dominated points when both coordinates are better lower, sorted by x."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1]))
    front: list[int] = []
    best_y = math.inf
    for i in order:
        if points[i][1] < best_y:
            front.append(i)
            best_y = points[i][1]
    return front


def _latest_per_config(results: list[Result]) -> list[Result]:
    seen: dict[str, Result] = {}
    for r in results:  # newest first
        k = config_key(r) if r.status == "ok" else f"{r.status}:{r.identity.key()}"
        seen.setdefault(k, r)
    return list(seen.values())


def gather(store: Store, *, sweep: str | None = None, device: str | None = None, model: str | None = None,
           limit: int = 500, history: int = 30, title: str | None = None) -> ReportData:
    """A sweep's results (sweep id, prefix or `last`), or the newest result of each configuration matching the
    filters; plus the last `history` ok results of each configuration shown."""
    from ..lab import sweep_state as ledger
    from ..lab.history import cell_history, sweep_results

    record = None
    if sweep is None and device is None and model is None and ledger.resolve_sweep_id(store, "last"):
        sweep = "last"
    if sweep is not None:
        record, results = sweep_results(store, sweep)
        scope = f"sweep {record.sweep_id} · {record.name} · started {record.created_at} · {record.status}"
        default_title = f"edgeprof · {record.name}"
    else:
        rows = store.list(device=device, model=model, limit=limit)
        results = _latest_per_config(store.get_many(r.run_id for r in rows))  # corrupt rows: store.skipped
        bits = [f"device {device}" if device else "", f"model {model}" if model else ""]
        scope = "newest result of each configuration" + (" · " + ", ".join(b for b in bits if b) if any(bits) else "")
        default_title = "edgeprof report"
    histories: dict[str, list[Result]] = {}
    if history and history > 1:
        for r in results:
            if r.status == "ok":
                histories[config_key(r)] = cell_history(store, r, history)
    from ..store.predictions import latest_by_key

    predictions = latest_by_key(store, [config_key(r) for r in results if r.status == "ok"])
    return ReportData(title=title or default_title, scope=scope, generated_at=utc_now(), db=store.display_url,
                      results=results, histories=histories, sweep=record, predictions=predictions)
