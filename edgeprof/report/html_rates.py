"""The HTML report's rate curves: latency and energy per frame against the rate of the server / fixed-rate
scenarios, per board and model, with the single-stream throughput where the board saturates.

Owns: the "Latency and energy per frame against rate" section.
Does not own: the page (html.py) or choosing results (data.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.compare import metric_values
from ..records import Result
from . import svg
from .data import ReportData, model_label
from .html_page import Colors, fmt
from .svg import Chart, Scale, padded, t


def _rate_points(rs: Sequence[Result]) -> dict[str, list[Result]]:
    """Scheduled-scenario results of one board and model by series (runtime, precision, batch, threads and
    scenario), each sorted by rate."""
    out: dict[str, list[Result]] = {}
    for r in rs:
        key = f"{r.runtime} {r.precision} b{r.batch}" + (f" t{r.threads}" if r.threads else "") + f" · {r.scenario.name}"
        out.setdefault(key, []).append(r)
    return {k: sorted(v, key=lambda r: r.scenario.rate_qps or 0.0) for k, v in out.items()}


def _rate_chart(title: str, series: dict[str, list[Result]], value: str, unit: str, ylabel: str,
                capacity: dict[str, float], colors: Colors) -> str | None:
    pts = [(r.scenario.rate_qps, metric_values(r)[value], r) for rs in series.values() for r in rs]
    ys_v = [y for _, y, _ in pts if y is not None]
    rates = [x for x, _, _ in pts if x is not None]
    if not ys_v or not rates:
        return None
    shown_cap = {n: c for n, c in capacity.items() if c <= 2 * max(rates)}  # far beyond: named, not drawn
    xs_v = rates + list(shown_cap.values())
    scale = 1000.0 if unit == "mJ" else 1.0  # j_per_frame is in J: shown in mJ
    ys_v = [y * scale for y in ys_v]
    ylog = min(ys_v) > 0 and max(ys_v) / min(ys_v) > 20
    ch = Chart(520, 280, left=62, right=20, top=14, bottom=44, label=title)
    xlo, xhi = padded(0.0, max(xs_v), False, 0.08)
    ylo, yhi = padded(min(ys_v), max(ys_v), ylog, 0.12)
    xs = Scale(max(0.0, xlo), xhi, ch.x0, ch.x1)
    ys = Scale(ylo if ylog else max(0.0, ylo), yhi, ch.y0, ch.y1, ylog)
    ch.axes(xs, ys, xlabel="rate (queries/s)", ylabel=ylabel)
    far = [f"{name}: single-stream {fmt(cap, 'q/s')} →" for name, cap in capacity.items() if name not in shown_cap]
    for i, note in enumerate(far):
        ch.add(svg.text(ch.x1, ch.y1 + 10 + 12 * i, note, "small", "end"))
    for name, cap in shown_cap.items():
        x = xs(cap)
        tip = f"{name}: single-stream throughput {fmt(cap, 'q/s')} (the rate it saturates at)"
        ch.add(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{ch.y1}" y2="{ch.y0}" stroke="{colors(name)}" '
               f'stroke-dasharray="3 4" stroke-width="1.2" class="capacity">{svg.title(tip)}</line>')
    for name, rs in series.items():
        c = colors(name)
        line = []
        for r in rs:
            v = metric_values(r)[value]
            if v is None or r.scenario.rate_qps is None:
                continue
            x, y = xs(r.scenario.rate_qps), ys(v * scale)
            line.append((x, y))
            sc = r.scenario
            verdict = "" if sc.valid is None else (" · VALID" if sc.valid else " · INVALID")
            tip = (f"{name} at {sc.rate_qps:g}/s: {fmt(v * scale, unit)}{verdict}"
                   + (f" · misses {sc.misses} of {sc.queries}" if sc.misses is not None else "")
                   + f" · run {r.run_id}")
            ch.add(f'<g class="rate-point" data-rate="{sc.rate_qps:g}" data-v="{v * scale:.6g}" '
                   f'data-valid="{"" if sc.valid is None else int(sc.valid)}">'
                   + svg.circle(x, y, 4.5, c if sc.valid is not False else "#fff", tip, stroke=c) + "</g>")
        ch.add(svg.polyline(line, c, 1.6, tip=name))
    return str(ch)


def rates_section(data: ReportData) -> str:
    scheduled = [r for r in data.ok if r.scenario.name in ("server", "fixed-rate") and r.scenario.rate_qps]
    if not scheduled:
        return ('<p class="lede">No server or fixed-rate runs in this selection. Run <code>edgeprof deploy '
                '--scenario fixed-rate --rate 30</code>, or a sweep with <code>scenarios: [single-stream, '
                'fixed-rate]</code> and <code>rates: [10, 30, 60]</code> (docs/scenarios.md).</p>')
    parts = ['<p class="lede">For each board, p99 latency (counted from each query\'s scheduled time) and energy '
             'per frame (window energy ÷ frames, idle gaps included) at each rate. A hollow point is INVALID '
             '(p99 over the latency bound, or for fixed-rate over the period); the dashed line is the '
             'single-stream throughput of the same configuration, where the board saturates.</p>']
    colors = Colors([])
    cards = []
    for (device, model), rs in sorted(_group(scheduled).items()):
        series = _rate_points(rs)
        capacity: dict[str, float] = {}
        for r in data.ok:
            if (r.device, model_label(r), r.scenario.name) == (device, model, "single-stream") and r.throughput_ips:
                base = f"{r.runtime} {r.precision} b{r.batch}" + (f" t{r.threads}" if r.threads else "")
                for name in series:
                    if name.startswith(base + " · "):
                        capacity[name] = r.throughput_ips
        charts = [c for c in (
            _rate_chart(f"p99 latency against rate, {model} on {device}", series, "p99_ms", "ms",
                        "p99 latency (ms)", capacity, colors),
            _rate_chart(f"energy per frame against rate, {model} on {device}", series, "j_per_frame", "mJ",
                        "energy per frame (mJ)", capacity, colors)) if c]
        if len(charts) < 2:
            charts.append('<p class="small">No energy per frame: this board has no power sensor '
                          '(devices.yaml <code>power:</code>).</p>')
        cards.append(f'<div class="card rate-card" data-device="{t(device)}"><h4>{t(model)} on {t(device)}</h4>'
                     + "".join(charts) + "</div>")
    parts.append(f'<div class="grid">{"".join(cards)}</div>')
    legend = "".join(f'<span><span class="dot" style="background:{c}"></span>{t(n)}</span>'
                     for n, c in colors.map.items())
    parts.append(f'<div class="legend">{legend}</div>')
    return "".join(parts)


def _group(rs: Sequence[Result]) -> dict[tuple[str, str], list[Result]]:
    out: dict[tuple[str, str], list[Result]] = {}
    for r in rs:
        out.setdefault((r.device, model_label(r)), []).append(r)
    return out


# -- power traces -------------------------------------------------------------------------------------------
