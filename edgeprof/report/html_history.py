"""The HTML report's nightly history: per configuration and metric, a sparkline with the step detection of
`edgeprof check --history`, and for a few configurations one chart per metric.

Owns: the "Nightly history" section.
Does not own: step detection (analysis/regress.py), the page (html.py) or choosing results (data.py).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence

from ..analysis.compare import METRIC_BY_NAME, Metric, metric_values
from ..analysis.regress import Step, detect_step
from ..records import Result
from ..store import config_key
from . import svg
from .data import ReportData, config_label
from .html_page import Colors, measured
from .svg import Chart, Scale, padded, t

HISTORY_METRICS = ("p50_ms", "p99_ms", "throughput_ips", "mj_per_inference", "peak_rss_mb")


def _ts(created_at: str) -> float:
    try:
        return _dt.datetime.fromisoformat(created_at).timestamp()
    except ValueError:
        return 0.0


_STEP_COLOR = {"regressed": "#c62828", "suspect": "#e69f00", "improved": "#1b7f3b"}
MAX_BIG_HISTORY = 8  # above this many configurations, one chart per metric becomes spaghetti: sparklines only


def _step_of(values: Sequence[float], metric: Metric) -> Step:
    return detect_step(list(values), better=metric.better, min_effect=0.05 * metric.effect_scale)


def _sparkline(pts: Sequence[tuple[float, float, Result]], metric: Metric, name: str) -> str:
    """A 150×30 line of one configuration's history for one metric, with its step marker and the last value."""
    w, h, pad = 112, 28, 4
    vals = [v for _, v, _ in pts]
    mid = sorted(vals)[len(vals) // 2]
    # at least ±10 % of the median in view, so run-to-run noise of a few percent looks flat
    lo, hi = min(min(vals), mid * 0.9), max(max(vals), mid * 1.1)
    if hi <= lo:
        lo, hi = lo - 1.0, hi + 1.0
    xs = Scale(0, max(1, len(pts) - 1), pad, w - pad)
    ys = Scale(lo, hi, h - pad, pad)
    step = _step_of(vals, metric)
    colr = _STEP_COLOR.get(step.status, "#52606d") if step.start is not None else "#52606d"
    parts = [svg.polyline([(xs(i), ys(v)) for i, v in enumerate(vals)], "#52606d", 1.3, tip=name)]
    for i, (_, v, r) in enumerate(pts):
        parts.append(svg.circle(xs(i), ys(v), 1.8, "#52606d", f"{r.created_at} · {metric.fmt(v)} · run {r.run_id}",
                                stroke="none"))
    if step.start is not None and step.status in _STEP_COLOR:
        seg = [(xs(i), ys(v)) for i, v in enumerate(vals) if i >= step.start]
        parts.append(svg.polyline(seg if len(seg) > 1 else seg * 2, colr, 2.2,
                                  tip=f"{step.status}: {metric.fmt(step.before)} → {metric.fmt(step.after)} "
                                      f"({(step.change or 0) * 100:+.1f} %)"))
    parts.append(svg.circle(xs(len(vals) - 1), ys(vals[-1]), 2.6, colr, f"newest: {metric.fmt(vals[-1])}"))
    spark = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
             f'role="img" aria-label="{t(metric.label)} history">' + "".join(parts) + "</svg>")
    change = ""
    if step.start is not None and step.status in _STEP_COLOR:
        change = (f'<br><span class="badge" style="color:{colr}">{step.status} '
                  f'{(step.change or 0) * 100:+.0f} %</span>')
    return (f'<td class="l spark">{spark}<span class="sv">{t(metric.fmt(vals[-1]))}{change}</span></td>')


def history_section(data: ReportData) -> str:
    series: list[tuple[str, list[Result]]] = []
    for r in measured(data.ok):
        hist = data.histories.get(config_key(r)) or []
        if len(hist) >= 2:
            series.append((config_label(r, with_model=True), hist))
    if not series:
        return ('<p class="notice">History appears once a configuration has been measured more than once '
                '(e.g. the second night of a nightly sweep).</p>')
    parts = ['<p class="lede">Each configuration\'s last results, oldest to newest. Colours come from the '
             'same step detection as <code>edgeprof check --history</code>: <b style="color:#c62828">'
             'regression</b> (held for 2+ results), <b style="color:#e69f00">suspect</b> (one result only, '
             'not an alarm), <b style="color:#1b7f3b">improvement</b>. Each sparkline has its own scale (at '
             'least ±10 % around its median); hover a point for its run.</p>']
    metrics = [METRIC_BY_NAME[m] for m in HISTORY_METRICS]
    rows = []
    for name, hist in series:
        cells = []
        for metric in metrics:
            pts = [(_ts(h.created_at), v, h) for h in hist if (v := metric_values(h)[metric.name]) is not None]
            cells.append(_sparkline(pts, metric, name) if len(pts) >= 2 else '<td class="l note">–</td>')
        rows.append(f'<tr><td class="l cfg">{t(name)}<div class="note">{len(hist)} results</div></td>'
                    + "".join(cells) + "</tr>")
    head = '<th class="l">configuration</th>' + "".join(f'<th class="l">{t(m.label)}</th>' for m in metrics)
    parts.append(f'<div style="overflow-x:auto"><table class="history"><thead><tr>{head}</tr></thead>'
                 f'<tbody>{"".join(rows)}</tbody></table></div>')
    if len(series) <= MAX_BIG_HISTORY:
        parts.append(_history_charts(series))
    return "".join(parts)


def _history_charts(series: list[tuple[str, list[Result]]]) -> str:
    colors = Colors([name for name, _ in series])
    cards = []
    for mname in HISTORY_METRICS:
        metric = METRIC_BY_NAME[mname]
        lines: list[tuple[str, list[tuple[float, float, Result]]]] = []
        for name, hist in series:
            pts = [(_ts(h.created_at), v, h) for h in hist if (v := metric_values(h)[mname]) is not None]
            if len(pts) >= 2:
                lines.append((name, pts))
        allx = [x for _, pts in lines for x, _, _ in pts]
        ally = [v for _, pts in lines for _, v, _ in pts if v > 0]
        if not lines or not ally:
            continue
        ylog = max(ally) / min(ally) > 4
        ch = Chart(700, 260, left=62, right=16, top=12, bottom=42, label=f"history of {metric.label}")
        xlo, xhi = padded(min(allx), max(allx), frac=0.04)
        ylo, yhi = padded(min(ally), max(ally), ylog, 0.1)
        xs = Scale(xlo, xhi, ch.x0, ch.x1)
        ys = Scale(ylo if ylog else max(0.0, ylo), yhi, ch.y0, ch.y1, ylog)
        fmt = "%H:%M:%S" if max(allx) - min(allx) < 2 * 86400 else "%m-%d"

        def when(v: float, f: str = fmt) -> str:
            return _dt.datetime.fromtimestamp(v).strftime(f)

        ch.axes(xs, ys, xlabel="when measured (local time)", ylabel=f"{metric.label} ({metric.unit})",
                xticks=svg.nice_ticks(xlo, xhi, 5), xfmt=when)
        for name, pts in lines:
            c = colors(name)
            ch.add(svg.polyline([(xs(x), ys(v)) for x, v, _ in pts], c, 1.6, tip=name))
            for x, v, h in pts:
                ch.add(svg.circle(xs(x), ys(v), 2.8, c, f"{name}\n{h.created_at} · {metric.fmt(v)} · run {h.run_id}"))
            step = _step_of([v for _, v, _ in pts], metric)
            if step.start is not None and step.status in _STEP_COLOR:
                x, v, h = pts[step.start]
                tip = (f"{step.status}: {name}\n{metric.name} {metric.fmt(step.before)} → {metric.fmt(step.after)} "
                       f"({(step.change or 0) * 100:+.1f} %) since {h.created_at}")
                bad_up = (step.status != "improved") == (metric.better == "lower")
                ch.add(svg.triangle(xs(x), ys(v) + (-11 if bad_up else 11), 6, _STEP_COLOR[step.status], tip,
                                    up=bad_up))
        cards.append(f'<div class="card"><h4>{t(metric.label)}</h4>{ch}</div>')
    legend = "".join(f'<span><span class="dot" style="background:{c}"></span>{t(n)}</span>'
                     for n, c in colors.map.items())
    return f'<div class="grid" style="margin-top:14px">{"".join(cards)}</div><div class="legend">{legend}</div>'


# -- failed / skipped, warnings, environment ----------------------------------------------------------------
