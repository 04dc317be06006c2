"""The HTML report's generation section: generative models' runs (records.Generation, schema 10) as llama-bench
prints them (pp / tg rows, tokens/s mean ± sample stdev over repetitions) with TTFT, TPOT, ITL p99, energy per
token and prompt token, tokens per joule and memory beside them; then the charts the results have (inline SVG,
each point carrying its stored value): decode tokens/s against context depth, beside it TPOT and the ITL p50 and p99
against depth, and TTFT against prompt length (one line per board · runtime · precision · shape (and figure),
drawn when a series has two x values or more), energy per token per
board (bars), and decode tokens/s against the decode phase's mean power with the frontier marked. A run without a
power reading is named with its reason ("no power reading"), never drawn as zero. Below them, the server runs'
verdicts and the sustained runs' windows (html_genscenario.py).

Owns: that section's HTML. Does not own: the rows (generative/table.py), the figures (generative/stats.py,
reply.py), the page's helpers (html_page.py).
"""

from __future__ import annotations

from collections.abc import Callable

from ..generative.table import shape_label
from ..records import Generation, Result
from . import svg
from .data import ReportData, model_label, pareto_front, row
from .html_genscenario import scenario_section
from .html_page import Colors, fmt, num_cell
from .svg import Chart, Scale, padded, t


def generation_section(data: ReportData, colors: Colors) -> str:
    from ..generative.table import bench_rows

    gen = [r for r in data.ok if r.generation is not None]
    if not gen:
        return ('<p class="note">No generative model in this selection (a generation run measures time to first '
                'token, tokens per second and joules per token: docs/generative.md).</p>')
    loaded = any(r.scenario.label for r in gen)  # a server or sustained run: its scenario beside its test
    names = ["board", "model", "runtime", "precision", "threads", "test", *(["scenario"] if loaded else []), "t/s",
             "TTFT ms", "TPOT ms", "ITL p99 ms", "mJ/token", "mJ/prompt token", "tokens/J", "peak MB"]
    head = "".join(("<th class=\"l\">" if i < 6 + loaded else "<th>") + t(h) + "</th>" for i, h in enumerate(names))
    body = []
    for r in gen:
        g, d = r.generation, row(r)
        assert g is not None
        mj = [None if d[k] is None else d[k] * 1000 for k in ("j_per_token", "j_per_prompt_token")]
        for b in bench_rows(g, model=model_label(r), runtime=r.runtime, precision=r.precision, threads=r.threads):
            body.append(
                f'<tr><td class="l" data-v="{t(r.device)}"><span class="dot" style="background:{colors(r.device)}">'
                f'</span>{t(r.device)}</td><td class="l">{t(b.model)}</td><td class="l">{t(b.runtime)}</td>'
                f'<td class="l">{t(b.precision)}</td><td class="l">{t(b.threads or "auto")}</td>'
                f'<td class="l">{t(b.test)}</td>'
                + (f'<td class="l">{t(r.scenario.label or "single-stream")}</td>' if loaded else "")
                + num_cell(b.tps_mean, text=b.tps)
                + num_cell(d["ttft_ms"]) + num_cell(d["tpot_ms"]) + num_cell(d["itl_p99_ms"]) + num_cell(mj[0])
                + num_cell(mj[1]) + num_cell(d["tokens_per_j"]) + num_cell(d["peak_rss_mb"]) + "</tr>")
    why: dict[tuple[str, str, str], int] = {}  # one line per board, model and reason, however many runs
    for r in gen:
        if r.generation is not None and r.generation.energy is None and r.generation.energy_reason:
            key = (r.device, model_label(r), r.generation.energy_reason)
            why[key] = why.get(key, 0) + 1
    notes = [f"<li>{t(device)} · {t(model)}{f' ({n} runs)' if n > 1 else ''}: no energy per token ({t(reason)})</li>"
             for (device, model, reason), n in why.items()]
    return ('<p class="lede">Every token timed by the agent itself: pp is prompt tokens per second (the prefill), tg '
            'decode tokens per second (the tokens after the first), each per repetition, then mean ± sample stdev, '
            'as llama-bench prints them. TTFT is the prefill plus the first token\'s pick; energy per token is the '
            'power integrated over the decode phase of every repetition, divided by its tokens.</p>'
            f'<table class="sortable gen-bench"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
            + (f'<ul class="note">{"".join(notes)}</ul>' if notes else "") + generation_charts(data, colors)
            + scenario_section(gen, colors))


# -- charts ---------------------------------------------------------------------------------------------------


def _series_name(r: Result, *, without: str) -> str:
    """A chart's series: board, runtime, precision and threads, and the generation's shape without the plotted
    axis (`without`: "depth" or "prompt")."""
    g = r.generation
    assert g is not None
    name = f"{r.device} · {r.runtime} {r.precision}" + (f" t{r.threads}" if r.threads else "")
    if without == "depth":
        return f"{name} · pp{g.prompt_tokens} tg{g.tokens}"
    return f"{name} · tg{g.tokens}" + (f" @ d{g.depth}" if g.depth else "")


def _line_chart(kind: str, title: str, series: dict[str, list[tuple[float, float, Result]]], xlabel: str,
                ylabel: str, unit: str, metrics: dict[str, str] | None = None) -> str:
    """Points joined per series, each point a `<g class="gen-point">` carrying its x and value (data-x, data-v);
    the chart's own legend (a colour per series, dashed past the palette); a log y axis when the values span
    more than 20×. `metrics`: each series' figure (a chart of several: data-metric on its points)."""
    xs_v = [x for pts in series.values() for x, _, _ in pts]
    ys_v = [y for pts in series.values() for _, y, _ in pts]
    ylog = min(ys_v) > 0 and max(ys_v) / min(ys_v) > 20
    ch = Chart(520, 300, left=62, right=20, top=14, bottom=44, label=title)
    xlo, xhi = padded(min(xs_v), max(xs_v), False, 0.08)
    ylo, yhi = padded(min(ys_v), max(ys_v), ylog, 0.12)
    xs = Scale(max(0.0, xlo) if min(xs_v) >= 0 else xlo, xhi, ch.x0, ch.x1)
    ys = Scale(ylo if ylog else max(0.0, ylo), yhi, ch.y0, ch.y1, ylog)
    ch.axes(xs, ys, xlabel=xlabel, ylabel=ylabel + (" (log scale)" if ylog else ""))
    legend = []
    for i, (name, pts) in enumerate(series.items()):
        c, dash = svg.color(i), (None if i < len(svg.PALETTE) else "5 3")
        line = []
        for x, y, r in sorted(pts, key=lambda p: p[0]):
            px, py = xs(x), ys(y)
            line.append((px, py))
            tip = f"{name}: {xlabel.split(' (')[0]} {x:g} → {fmt(y, unit)} · run {r.run_id}"
            metric = f' data-metric="{t(metrics[name])}"' if metrics and name in metrics else ""
            ch.add(f'<g class="gen-point" data-chart="{kind}" data-series="{t(name)}"{metric} data-x="{x:g}" '
                   f'data-v="{y:.6g}" data-run="{t(r.run_id)}">' + svg.circle(px, py, 4.5, c, tip) + "</g>")
        ch.add(svg.polyline(line, c, 1.6, dash=dash, tip=name))
        legend.append(f'<span><span class="dot" style="background:{c}"></span>{t(name)}'
                      + (" (dashed)" if dash else "") + "</span>")
    return (f'<div class="card gen-chart" data-chart="{kind}"><h4>{t(title)}</h4>{ch}'
            f'<div class="legend">{"".join(legend)}</div></div>')


def _against(gen: list[Result], kind: str, value: Callable[[Generation], float | None],
             x_of: Callable[[Generation], int], without: str, title: str, xlabel: str,
             ylabel: str, unit: str) -> tuple[list[str], list[str]]:
    """One chart per model of `value` against `x_of` (series with two x values or more); the series drawn with
    one x value only are named in the notes."""
    charts, single = [], []
    by_model: dict[str, dict[str, list[tuple[float, float, Result]]]] = {}
    for r in gen:
        g = r.generation
        assert g is not None
        v = value(g)
        if v is not None:
            by_model.setdefault(model_label(r), {}).setdefault(_series_name(r, without=without), []).append(
                (float(x_of(g)), v, r))
    for model, series in by_model.items():
        drawn = {n: pts for n, pts in series.items() if len({x for x, _, _ in pts}) >= 2}
        single += [f"{model} · {n}" for n in series if n not in drawn]
        if drawn:
            charts.append(_line_chart(kind, f"{title}, {model}", drawn, xlabel, ylabel, unit))
    return charts, single


# the per-token latencies drawn against depth beside decode tokens/s: (data-metric, the series' suffix, the value)
LATENCY_VS_DEPTH: tuple[tuple[str, str, Callable[[Generation], float | None]], ...] = (
    ("tpot_ms", "TPOT", lambda g: g.tpot_ms.mean if g.tpot_ms else None),
    ("itl_p50_ms", "ITL p50", lambda g: g.itl_ms.p50 if g.itl_ms else None),
    ("itl_p99_ms", "ITL p99", lambda g: g.itl_ms.p99 if g.itl_ms else None))


def _latency_vs_depth(gen: list[Result]) -> list[str]:
    """One chart per model of TPOT (mean over repetitions) and the pooled ITL p50 and p99 against context depth:
    a line per board · runtime · shape and figure, drawn when it has two depths or more (the decode chart's notes
    name the others); each point the stored value."""
    by_model: dict[str, dict[str, list[tuple[float, float, Result]]]] = {}
    metrics: dict[str, str] = {}
    for r in gen:
        g = r.generation
        assert g is not None
        for key, label, value in LATENCY_VS_DEPTH:
            v = value(g)
            if v is None:
                continue
            name = f"{_series_name(r, without='depth')} · {label}"
            metrics[name] = key
            by_model.setdefault(model_label(r), {}).setdefault(name, []).append((float(g.depth), v, r))
    charts = []
    for model, series in by_model.items():
        drawn = {n: pts for n, pts in series.items() if len({x for x, _, _ in pts}) >= 2}
        if drawn:
            charts.append(_line_chart("latency_vs_depth", f"TPOT and ITL against context depth, {model}", drawn,
                                      "context depth (tokens in the KV cache before the prompt)",
                                      "time per output token (ms)", "ms", metrics))
    return charts


def _no_power(gen: list[Result]) -> str:
    """Which boards' runs have no energy per token (their reasons are in the table's notes): said, never drawn
    as zeros."""
    boards = sorted({r.device for r in gen if r.generation is not None and r.generation.energy is None})
    if not boards:
        return ""
    return (f'<p class="small gen-no-power">Energy per token per board and decode tokens/s per watt: no power '
            f'reading on {t(", ".join(boards))} (the reasons are under the table; devices.yaml <code>power:</code> '
            'gives a board a source).</p>')


def _j_per_token_bars(gen: list[Result], colors: Colors) -> str:
    """J/token per board: one horizontal bar per run with energy (decode phase), mJ."""
    rows = [(r, r.generation.energy.j_per_token * 1000) for r in gen if r.generation is not None
            and r.generation.energy is not None and r.generation.energy.j_per_token is not None]
    if not rows:
        return ""
    rows.sort(key=lambda p: (p[0].device, p[1]))
    h = 26 * len(rows) + 50
    ch = Chart(640, h, left=330, right=60, top=10, bottom=40, label="energy per generated token per board")
    xs = Scale(0.0, padded(0.0, max(v for _, v in rows), False, 0.1)[1], ch.x0, ch.x1)
    ch.axes(xs, Scale(0, 1, ch.y0, ch.y1), xlabel="energy per generated token, decode phase (mJ)", yticks=[])
    for i, (r, v) in enumerate(rows):
        g = r.generation
        assert g is not None
        y = ch.y1 + 6 + 26 * i
        label = f"{r.device} · {model_label(r)} {r.runtime} {r.precision} {shape_label(g)}"
        ch.add(svg.text(ch.x0 - 6, y + 13, label, "small", "end"))
        ch.add(f'<g class="gen-bar" data-device="{t(r.device)}" data-v="{v:.6g}" data-run="{t(r.run_id)}">'
               + svg.rect(ch.x0, y, xs(v) - ch.x0, 18, colors(r.device), 0.85, f"{label}: {fmt(v, 'mJ')}/token")
               + "</g>")
        ch.add(svg.text(xs(v) + 4, y + 13, fmt(v, "mJ"), "small"))
    return f'<div class="card gen-chart" data-chart="j_per_token"><h4>Energy per token per board</h4>{ch}</div>'


def _tps_per_watt(gen: list[Result], colors: Colors) -> str:
    """Decode tokens/s against the decode phase's mean W, the frontier (no other run faster at lower power)
    marked."""
    pts = [(r.generation.energy.decode_mean_w, r.generation.decode_tps.mean, r) for r in gen
           if r.generation is not None and r.generation.energy is not None
           and r.generation.energy.decode_mean_w is not None and r.generation.decode_tps is not None]
    if not pts:
        return ""
    ch = Chart(520, 320, left=62, right=20, top=14, bottom=44, label="decode tokens/s against decode power")
    xlo, xhi = padded(min(p[0] for p in pts), max(p[0] for p in pts), False, 0.12)
    ylo, yhi = padded(min(p[1] for p in pts), max(p[1] for p in pts), False, 0.12)
    xs = Scale(max(0.0, xlo), xhi, ch.x0, ch.x1)
    ys = Scale(max(0.0, ylo), yhi, ch.y0, ch.y1)
    ch.axes(xs, ys, xlabel="mean power while decoding (W)", ylabel="decode tokens/s")
    # lower W and higher tokens/s are better; W to 9 digits: one constant read twice is one wattage, not two
    front = pareto_front([(float(f"{w:.9g}"), -tps) for w, tps, _ in pts])
    if len(front) > 1:
        ch.add(svg.polyline(svg.stair([(xs(pts[i][0]), ys(pts[i][1])) for i in front]), "#52606d", 1.4, dash="5 4",
                            tip="frontier"))
    for i, (w, tps, r) in enumerate(pts):
        g = r.generation
        assert g is not None
        on = i in front
        tip = (f"{r.device} · {model_label(r)} {r.runtime} {r.precision} {shape_label(g)}: {fmt(tps, 'tokens/s')} at "
               f"{fmt(w, 'W')} = {fmt(tps / w if w else None, 'tokens/s per W')}" + (" · on the frontier" if on else ""))
        ch.add(f'<g class="gen-pareto-point" data-front="{int(on)}" data-w="{w:.6g}" data-v="{tps:.6g}" '
               f'data-run="{t(r.run_id)}">' + svg.circle(xs(w), ys(tps), 6.5 if on else 5, colors(r.device), tip,
                                                          stroke=svg.INK if on else "#fff") + "</g>")
    return (f'<div class="card gen-chart" data-chart="pareto"><h4>Decode tokens/s per watt</h4>{ch}'
            '<p class="small">Up and left is better. The outlined points are the frontier: no other run is faster '
            'at no more power (a dashed line joins them when there are two or more).</p></div>')


def generation_charts(data: ReportData, colors: Colors) -> str:
    """The generation charts the results have: decode tokens/s against depth, TPOT and ITL against depth, TTFT
    against prompt length,
    J/token per board, decode tokens/s per watt; empty without a generation run."""
    gen = [r for r in data.ok if r.generation is not None]
    if not gen:
        return ""
    cards, notes = [], []
    made, single = _against(gen, "decode_vs_depth", lambda g: g.decode_tps.mean if g.decode_tps else None,
                            lambda g: g.depth, "depth", "Decode tokens/s against context depth",
                            "context depth (tokens in the KV cache before the prompt)", "decode tokens/s",
                            "tokens/s")
    cards += made + _latency_vs_depth(gen)
    if single:
        notes.append("decode tokens/s against depth needs two depths or more (a sweep's <code>depth: [0, 512, "
                     "2048]</code>); one depth only: " + t("; ".join(single)))
    made, single = _against(gen, "ttft_vs_prompt", lambda g: g.ttft_ms.mean, lambda g: g.prompt_tokens, "prompt",
                            "TTFT against prompt length", "prompt length (tokens)",
                            "time to first token (ms)", "ms")
    cards += made
    if single:
        notes.append("TTFT against prompt length needs two prompt lengths or more (<code>prompt_tokens: [128, "
                     "512]</code>); one only: " + t("; ".join(single)))
    cards += [c for c in (_j_per_token_bars(gen, colors), _tps_per_watt(gen, colors)) if c]
    return ((f'<div class="grid">{"".join(cards)}</div>' if cards else "")
            + "".join(f'<p class="small gen-note">{n}</p>' for n in notes) + _no_power(gen))
