"""Reading results back for comparisons, checks and reports: a sweep's results, a cell's baseline and history.

Owns: the queries behind `edgeprof compare`, `check` and `report`: the latest result of every cell of a sweep,
the baseline of a result (the previous ok result of the same configuration — store.config_key, i.e. device,
model, runtime, precision, batch, threads and model source — or the same cell in a given sweep or run), its
last N results, and `run_check`, which puts budgets, baseline or history checks and cell statuses together
(the metrics it follows: `checked_metrics`, a sustained cell's curve figures among them).
Does not own: the statistics of a comparison (analysis/compare.py, analysis/regress.py), printing or XML.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..analysis.compare import CHECKED_METRICS, DEFAULT_ALPHA, DEFAULT_MIN_EFFECT
from ..analysis.regress import (
    Finding,
    _classname,
    baseline_findings,
    budget_findings,
    cell_status_finding,
    history_findings,
    parse_budget,
)
from ..errors import AmbiguousId, StoreError
from ..records import Result
from ..session.kinds import KINDS
from ..store import CorruptRowError, Store, config_key
from ..vocab import CHECKED_SUSTAINED
from . import sweep_state as ledger

HISTORY_SCAN = 500


def sweep_results(store: Store, ref: str) -> tuple[ledger.SweepRecord, list[Result]]:
    """The sweep and the latest result of each of its cells (cells never run have none)."""
    record = ledger.get_sweep(store, ref)
    results = store.get_many(s.run_id for s in record.cells if s.run_id)
    return record, results


def results_for(store: Store, ref: str) -> tuple[str, list[Result]]:
    """A sweep id (or `last`) → its results; else a run id (prefix) → that run. Returns (kind, results)."""
    sweep_id = ledger.resolve_sweep_id(store, ref)
    if sweep_id is not None:
        return "sweep", sweep_results(store, sweep_id)[1]
    try:
        return "run", [store.get(ref)]
    except (CorruptRowError, AmbiguousId):
        raise  # the run is there, its row unreadable; or the prefix fits several runs (the error lists a few)
    except StoreError:
        raise StoreError(f"{ref!r} is neither a sweep nor a run in {store.display_url}",
                         hint="edgeprof sweep --list and edgeprof results list show what is stored") from None


def cell_history(store: Store, r: Result, n: int | None = None, *, ok_only: bool = True) -> list[Result]:
    """Results of r's configuration up to and including r, oldest first (the last n of them)."""
    rows = store.list(config=config_key(r), status="ok" if ok_only else None, limit=HISTORY_SCAN)
    ids = [row.run_id for row in rows]  # newest first
    if r.run_id in ids:
        ids = ids[ids.index(r.run_id):]
    else:
        ids = [i for i, row in zip(ids, rows, strict=True) if row.created_at <= r.created_at]
        ids.insert(0, r.run_id)
    if n is not None:
        ids = ids[:n]
    others = {o.run_id: o for o in store.get_many(i for i in ids if i != r.run_id)}  # a corrupt row is skipped
    out = [r if i == r.run_id else others[i] for i in ids if i == r.run_id or i in others]
    return out[::-1]


def previous_result(store: Store, r: Result) -> Result | None:
    hist = cell_history(store, r, 2)
    return hist[0] if len(hist) == 2 and hist[0].run_id != r.run_id else None


def match_by_config(base: Sequence[Result]) -> dict[str, Result]:
    out: dict[str, Result] = {}
    for b in base:
        if b.status == "ok":
            out.setdefault(config_key(b), b)
    return out


def pending_findings(record: ledger.SweepRecord, as_errors: bool = True) -> list[Finding]:
    """Cells that never ran (pending: the sweep was stopped or broke before them) are errors, never silence.
    Cancelled cells (`sweep --cancel`: someone chose not to run them) are `skipped` findings saying so: not a
    failure of their board, and not silence either."""
    out = []
    for state in record.cells:
        cell = state.cell
        if state.status == ledger.CANCELLED:
            out.append(Finding(_classname(cell.device), f"{cell.cell_id} · run", "skipped", "cell",
                               f"cell cancelled, not measured ({state.reason or 'edgeprof sweep --cancel'})",
                               cell=cell.cell_id))
            continue
        if state.status != "pending":
            continue
        f = Finding(_classname(cell.device), f"{cell.cell_id} · run", "error", "cell",
                    f"cell never ran (pending in a sweep that is {record.status}): "
                    f"edgeprof sweep --resume {record.sweep_id} runs it", cell=cell.cell_id)
        if not as_errors:
            f.outcome, f.warning = "passed", True
        out.append(f)
    return out


def checked_metrics(r: Result, metrics: Sequence[str] | None) -> list[str]:
    """What `check` follows on r: the metrics asked for, else CHECKED_METRICS plus, on a sustained result, its
    curve's figures (CHECKED_SUSTAINED), and on a result holding a measurement kind's section its figures
    (MeasurementKind.section, .check_metrics: a generative model's speed and energy per token)."""
    if metrics is not None:
        return list(metrics)
    return list(CHECKED_METRICS) + (list(CHECKED_SUSTAINED) if r.sustained is not None else []) + [
        m for k in KINDS if k.section is not None and getattr(r, k.section, None) is not None for m in k.check_metrics]


@dataclass
class CheckReport:
    findings: list[Finding]
    scope: str
    baseline: str
    results: list[Result] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def run_check(store: Store, *, sweep: str = "last", baseline: str = "last", history: int | None = None,
              metrics: Sequence[str] | None = None, min_effect: float = DEFAULT_MIN_EFFECT,
              min_effects: dict[str, float] | None = None, alpha: float = DEFAULT_ALPHA, persist: int = 2,
              extra_budgets: Sequence[str] = (), failed_cells_fail: bool = True) -> CheckReport:
    """Budgets and regressions of every cell of a sweep.

    baseline: `last` (each cell's previous ok result of the same configuration), `previous` (the same cell in
    the previous sweep of the same name), or a sweep / run id. history: step detection over the last N
    results of each cell instead of a pairwise baseline. metrics: None checks CHECKED_METRICS, and on a
    sustained cell its curve's figures too (CHECKED_SUSTAINED: a drop of the sustained ratio, a rise of the
    steady-state p50 / p99)."""
    record, results = sweep_results(store, sweep)
    scope = f"sweep {record.sweep_id} ({record.name}, {record.created_at})"
    findings: list[Finding] = []
    notes: list[str] = []
    base_map: dict[str, Result] | None = None
    base_desc = f"history of the last {history} results per cell" if history else "previous result"
    if not history and baseline not in ("last",):
        ref = baseline
        if baseline == "previous":
            prev = ledger.previous_sweep(store, record)
            if prev is None:
                notes.append(f"no earlier sweep named {record.name!r}: nothing to compare with")
                ref = ""
            else:
                ref = prev
        if ref:
            kind, base = results_for(store, ref)
            base_map = match_by_config(base)
            base_desc = f"{kind} {ref}"
    extra = [parse_budget(b) for b in extra_budgets]
    findings.extend(pending_findings(record, failed_cells_fail))
    for r in results:
        status = cell_status_finding(r)
        if status is not None:
            if not failed_cells_fail and status.outcome == "error":
                status.outcome, status.warning = "passed", True
            findings.append(status)
            continue
        budgets = [parse_budget(b) for b in (r.sweep.budgets if r.sweep else [])] + extra
        findings.extend(budget_findings(r, budgets))
        checked = checked_metrics(r, metrics)
        if history:
            findings.extend(history_findings(cell_history(store, r, history), metrics=checked,
                                             min_effect=min_effect, min_effects=min_effects, persist=persist))
        else:
            base_r = base_map.get(config_key(r)) if base_map is not None else previous_result(store, r)
            if base_r is not None and base_r.run_id == r.run_id:
                base_r = None
            findings.extend(baseline_findings(r, base_r, metrics=checked, min_effect=min_effect,
                                              min_effects=min_effects, alpha=alpha,
                                              baseline_name=base_desc))
    return CheckReport(findings, scope, base_desc, results, notes)

