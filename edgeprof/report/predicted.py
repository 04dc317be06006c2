"""The report's "predicted vs measured" section: each measured run beside its stored prediction, and the boards
ranked by predicted and by measured latency, side by side, with how far the two orderings agree.

Owns: the rows (`pairs`: an ok result and the newest prediction of its configuration, ReportData.predictions),
the rankings (`rankings`: per model, runtime, precision and batch, the boards that have both a prediction and a
measurement ordered by each; agreement as the share of board pairs both orderings put in the same order, with
Kendall's τ = (concordant − discordant) / pairs, and whether both put the same board first), the section in
Markdown and HTML, and the CSV's prediction columns (`CSV_COLUMNS`, `csv_cells`). Pure: the predictions are
gathered by data.gather.
Does not own: predictions (predict/), their storage (store/predictions.py), the page (html.py, tabular.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..records import Result
from ..records.prediction import Checked, StoredPrediction
from ..store import config_key
from .data import ReportData, model_label
from .svg import t


@dataclass(frozen=True)
class Pair:
    result: Result
    prediction: StoredPrediction
    check: Checked


@dataclass(frozen=True)
class Ranking:
    group: str  # "model · runtime precision · b1"
    by_predicted: list[tuple[str, float]]  # (board label, predicted p50), fastest first
    by_measured: list[tuple[str, float]]  # (board label, measured p50), fastest first
    concordant: int
    discordant: int  # tied pairs count in neither

    @property
    def pairs(self) -> int:
        n = len(self.by_measured)
        return n * (n - 1) // 2

    @property
    def tau(self) -> float | None:
        return (self.concordant - self.discordant) / self.pairs if self.pairs else None

    @property
    def same_first(self) -> bool:
        return bool(self.by_measured) and self.by_predicted[0][0] == self.by_measured[0][0]

    def agreement(self) -> str:
        if self.pairs == 0:
            return "One board: nothing to rank"
        tau = self.tau
        assert tau is not None
        return (f"The orderings agree on {self.concordant} of {self.pairs} board pairs (Kendall τ = {tau:+.2f}); "
                f"{'the same' if self.same_first else 'a different'} board first")


def pairs(data: ReportData) -> list[Pair]:
    out = []
    for r in data.ok:
        p = data.predictions.get(config_key(r))
        lat = r.latency_ms
        if p is None or lat is None or not lat.p50:
            continue
        out.append(Pair(r, p, p.check_against(float(lat.p50))))
    return out


def rankings(ps: list[Pair]) -> list[Ranking]:
    groups: dict[str, list[Pair]] = {}
    for p in ps:
        r = p.result
        groups.setdefault(f"{model_label(r)} · {r.runtime} {r.precision} · b{r.batch}", []).append(p)
    out = []
    for group, members in groups.items():
        boards = [m.result.device for m in members]
        label = {id(m): m.result.device if boards.count(m.result.device) == 1
                 else f"{m.result.device} ({m.result.threads} thr)" for m in members}
        conc = disc = 0
        for i, a in enumerate(members):
            for b in members[i + 1:]:
                dp = a.prediction.p50_ms - b.prediction.p50_ms
                dm = a.check.measured_ms - b.check.measured_ms
                conc += dp * dm > 0
                disc += dp * dm < 0
        out.append(Ranking(
            group=group,
            by_predicted=sorted(((label[id(m)], m.prediction.p50_ms) for m in members), key=lambda x: x[1]),
            by_measured=sorted(((label[id(m)], m.check.measured_ms) for m in members), key=lambda x: x[1]),
            concordant=conc, discordant=disc))
    return out


# the CSV's prediction columns (report --format csv; docs/predict.md): empty for a run without a prediction
CSV_COLUMNS = ("predicted_p50_ms", "predicted_low_ms", "predicted_high_ms", "predicted_level", "prediction_error",
               "prediction_inside", "prediction_covered_ops", "prediction_table_id", "prediction_id")


def csv_cells(data: ReportData) -> dict[str, dict[str, object]]:
    """Per run id of a run that has a prediction: its CSV_COLUMNS cells, as stored (error = predicted / measured
    − 1, a fraction; inside 1 or 0, as `valid`)."""
    out: dict[str, dict[str, object]] = {}
    for p in pairs(data):
        q, c = p.prediction, p.check
        out[p.result.run_id] = {
            "predicted_p50_ms": q.p50_ms, "predicted_low_ms": q.low_ms, "predicted_high_ms": q.high_ms,
            "predicted_level": q.level, "prediction_error": c.error, "prediction_inside": int(c.inside),
            "prediction_covered_ops": q.covered_ops, "prediction_table_id": q.table_id,
            "prediction_id": q.prediction_id}
    return out


_NOTE = ("Predicted by `edgeprof predict` (or a sweep with --predict-first) from each board's calibration table, "
         "without running the model; the newest prediction of the same configuration (device, model content, "
         "runtime, precision, batch, threads, shapes fed). Error = predicted / measured − 1. docs/predict.md says "
         "how accurate predictions were when measured and when not to trust them.")


def markdown(data: ReportData, md: Callable[[object], str]) -> list[str]:
    ps = pairs(data)
    if not ps:
        return []
    lines = ["", "## Predicted vs measured", "", md(_NOTE), "",
             "| model | board | runtime | precision | batch | threads | measured p50 ms | predicted p50 ms | "
             "interval ms | error | inside | covered |", "|---|---|---|---|--:|--:|--:|--:|---|--:|---|--:|"]
    for p in ps:
        r, q, c = p.result, p.prediction, p.check
        lines.append(f"| {md(model_label(r))} | {md(r.device)} | {md(r.runtime)} | {md(r.precision)} | {r.batch} | "
                     f"{r.threads or 'auto'} | {c.measured_ms:.3f} | {q.p50_ms:.3f} | "
                     f"[{q.low_ms:.3f}, {q.high_ms:.3f}] ({100 * q.level:.0f} %) | {100 * c.error:+.1f} % | "
                     f"{'yes' if c.inside else 'no'} | {100 * q.covered_ops:.0f} % |")
    for rk in rankings(ps):
        lines += ["", f"### Boards ranked: {md(rk.group)}", "", md(rk.agreement()) + ".", "",
                  "| rank | by predicted | predicted ms | by measured | measured ms |", "|--:|---|--:|---|--:|"]
        for i, ((bp, vp), (bm, vm)) in enumerate(zip(rk.by_predicted, rk.by_measured, strict=True), 1):
            lines.append(f"| {i} | {md(bp)} | {vp:.3f} | {md(bm)} | {vm:.3f} |")
    return lines


def html_section(data: ReportData) -> str:
    ps = pairs(data)
    if not ps:
        return ('<p class="note">No stored prediction matches a run of this selection (edgeprof predict MODEL '
                '--device BOARD stores one; a sweep predicts first with --predict-first).</p>')
    names = ["model", "board", "runtime", "precision", "batch", "threads", "measured p50 ms", "predicted p50 ms",
             "interval ms", "error", "inside", "covered"]
    head = "".join(("<th class=\"l\">" if i < 6 or h in ("interval ms", "inside") else "<th>") + t(h) + "</th>"
                   for i, h in enumerate(names))
    body = []
    for p in ps:
        r, q, c = p.result, p.prediction, p.check
        body.append(
            f'<tr><td class="l">{t(model_label(r))}</td><td class="l">{t(r.device)}</td><td class="l">{t(r.runtime)}'
            f'</td><td class="l">{t(r.precision)}</td><td>{r.batch}</td><td>{t(r.threads or "auto")}</td>'
            f'<td data-v="{c.measured_ms:.6g}">{c.measured_ms:.3f}</td><td data-v="{q.p50_ms:.6g}">{q.p50_ms:.3f}</td>'
            f'<td class="l">[{q.low_ms:.3f}, {q.high_ms:.3f}] ({100 * q.level:.0f} %)</td>'
            f'<td data-v="{c.error:.6g}">{100 * c.error:+.1f} %</td><td class="l">{"yes" if c.inside else "no"}</td>'
            f'<td data-v="{q.covered_ops:.6g}">{100 * q.covered_ops:.0f} %</td></tr>')
    ranks = []
    for rk in rankings(ps):
        rows = "".join(f"<tr><td>{i}</td><td class=\"l\">{t(bp)}</td><td>{vp:.3f}</td><td class=\"l\">{t(bm)}</td>"
                       f"<td>{vm:.3f}</td></tr>"
                       for i, ((bp, vp), (bm, vm)) in enumerate(zip(rk.by_predicted, rk.by_measured, strict=True), 1))
        ranks.append(f'<h3>Boards ranked: {t(rk.group)}</h3><p class="ranking">{t(rk.agreement())}.</p>'
                     '<table class="ranking"><thead><tr><th>rank</th><th class="l">by predicted</th>'
                     '<th>predicted ms</th><th class="l">by measured</th><th>measured ms</th></tr></thead>'
                     f'<tbody>{rows}</tbody></table>')
    return (f'<p class="lede">{t(_NOTE)}</p><table class="sortable predicted"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>' + "".join(ranks))
