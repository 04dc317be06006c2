"""A stored prediction beside a measured run, on the terminal: `results show` and `compare` call it.

Owns: finding the prediction of a measured run (the newest stored prediction of the run's configuration key,
store/predictions.py) and printing it with its error against the run (predicted / measured − 1) and whether the
measured p50 fell inside its interval; the same as JSON for `results show --json` (`shown_json`: the `prediction`
key beside the result's own, a read-time join that is never stored), with the reason when there is none.
Does not own: the prediction (predict/), the record and the check (records/prediction.py), the report's table
(report/predicted.py).
"""

from __future__ import annotations

from typing import Any

from rich.table import Table

from ..records import Result
from ..records.prediction import StoredPrediction
from ..store import Store, config_key
from ..store.predictions import latest_by_key
from ..vocab import fmt_value
from .ui import out, shown


def assumed(ms: float) -> str:
    """The time a roofline fallback assumed for an op the table lacks: in µs below 1 µs, so a
    sub-µs assumption does not read as "0.000 ms" (it is never 0)."""
    return f"{ms:.3f} ms" if ms >= 1e-3 or ms == 0 else f"{ms * 1e3:.3g} µs"


def predictions_for(store: Store, results: list[Result]) -> dict[str, StoredPrediction]:
    """The newest prediction of each ok result's configuration, by config key (results without one: absent)."""
    return latest_by_key(store, [config_key(r) for r in results if r.status == "ok"])


def measured_p50(r: Result) -> float | None:
    lat = r.latency_ms
    return float(lat.p50) if r.status == "ok" and lat is not None and lat.p50 else None


def prediction_line(p: StoredPrediction, measured_ms: float | None) -> str:
    """`predicted p50 1.234 ms [1.0, 1.5] ms (90 %) · table ab12… (onnxruntime 1.32.0, 2026-…): -3.2 % vs measured,
    inside the interval`."""
    text = (f"predicted p50 {p.p50_ms:.3f} ms {p.interval_label()} · covered {100 * p.covered_ops:.0f} % of "
            f"kernels · table {p.table_id} ({p.runtime} {p.runtime_version}, threads {p.threads}) · "
            f"prediction {p.prediction_id} made {p.created_at}")
    if measured_ms is not None:
        c = p.check_against(measured_ms)
        text += (f"\nmeasured p50 {measured_ms:.3f} ms: prediction error {100 * c.error:+.1f} % "
                 f"(predicted / measured − 1), measured {'inside' if c.inside else 'OUTSIDE'} the interval")
    return text


def show_for_result(store: Store, r: Result) -> None:
    """`results show`: the run's prediction, or nothing when it has none (only ok runs are matched)."""
    p = predictions_for(store, [r]).get(config_key(r))
    if p is None:
        return
    out.print("[bold]prediction[/bold] (edgeprof predict, from the calibration table; not measured)")
    for line in prediction_line(p, measured_p50(r)).splitlines():  # shown() escapes a newline inside a line
        out.print(shown(line))
    for u in p.uncovered:
        out.print(shown(f"  not in the table: {u.get('op')} ×{u.get('count')}: assumed {assumed(u.get('assumed_ms', 0))}"))
    for w in p.warnings:
        out.print(shown(f"  prediction warning: {w}"))


SHOWN_NOTE = ("not part of the stored result: the newest stored prediction of this run's configuration (edgeprof "
              "predict, or a sweep's --predict-first), joined when the run is shown; error = predicted / measured "
              "p50 - 1; docs/predict.md")


def shown_json(store: Store, r: Result) -> dict[str, Any]:
    """`results show --json`'s `prediction` key: found (the stored record, and its check against the run's
    measured p50) or not (and why)."""
    key = config_key(r)
    base: dict[str, Any] = {"found": False, "config_key": key, "note": SHOWN_NOTE}
    if r.status != "ok":
        return {**base, "reason": f"the run is {r.status}: only an ok run is matched to a prediction"}
    if r.generation is not None:
        return {**base, "reason": "a generation run: a prediction is a forward pass's single-stream p50"}
    if r.scenario.label:
        return {**base, "reason": f"a {r.scenario.label} run: a prediction is a single-stream p50, so none "
                                  "matches another load scenario"}
    p = predictions_for(store, [r]).get(key)
    if p is None:
        return {**base, "reason": "no prediction of this configuration (device, model content, runtime, precision, "
                                  "batch, threads, shapes fed): edgeprof predict MODEL --device DEVICE stores one"}
    m = measured_p50(r)
    return {**base, "found": True, "record": p.to_dict(),
            "check": p.check_against(m).to_dict() if m is not None else None,
            **({} if m is not None else {"check_reason": "the run has no measured p50"})}


def pair_table(store: Store, sides: list[tuple[str, Result]]) -> Table | None:
    """`compare A B`: predicted vs measured p50 of each side that has a prediction (None: neither has one)."""
    preds = predictions_for(store, [r for _, r in sides])
    if not preds:
        return None
    t = Table(title="predicted vs measured p50 (edgeprof predict; newest prediction of each configuration)",
              title_justify="left")
    for col in ("run", "measured ms", "predicted ms", "interval ms", "error", "inside"):
        t.add_column(col, justify="left" if col == "run" else "right")
    for label, r in sides:
        p = preds.get(config_key(r))
        m = measured_p50(r)
        if p is None:
            t.add_row(label, fmt_value(m), "[dim]none[/dim]", "-", "-", "-")
            continue
        c = p.check_against(m) if m is not None else None
        t.add_row(label, fmt_value(m), f"{p.p50_ms:.3f}", f"[{p.low_ms:.3f}, {p.high_ms:.3f}]",
                  f"{100 * c.error:+.1f} %" if c else "-", ("yes" if c.inside else "[red]no[/red]") if c else "-")
    return t


def cell_columns(p: StoredPrediction | None, r: Result) -> list[str]:
    """`compare` of sweeps: the predicted p50, measured p50 and error cells of one B row."""
    m = measured_p50(r)
    if p is None:
        return ["[dim]-[/dim]", fmt_value(m), "[dim]-[/dim]"]
    if m is None:
        return [f"{p.p50_ms:.3f}", "-", "-"]
    c = p.check_against(m)
    err = f"{100 * c.error:+.1f} %"
    return [f"{p.p50_ms:.3f}", fmt_value(m), err if c.inside else f"[red]{err}[/red]"]
