"""The HTML report's sustained runs: per board, latency p50/p99, temperature and clock against time (one chart
each, on the same time and value axes for every board of a model), the throttling onset marked and the steady
state shaded; above them the ranking of the boards in the first window and at the end (curves.py), in words.

Owns: the "Sustained runs" section, and window_chart (one run's windows against time, which the generation's
sustained windows reuse: html_genscenario.py), and the marks behind its lines (Marks, draw_marks: the onset band
and the steady shade, which the generation's cards draw too). Each chart plots one point per window at the
window's middle, from that window's stored figures (never interpolated: the lines only join the points). Markup a
test can read: `div.sus-card[data-device][data-onset]`, `div.sus-chart[data-chart][data-t1]`,
`circle.win[data-window]`, `rect.onset[data-window]`, `rect.steady[data-window]`,
`tr.sus-rank-row[data-start-rank][data-end-rank]`, `p.rank-change[data-changed]`.
Does not own: the figures (edgeprof/evaluation/sustained.py), the ranking rule (curves.py), the page (html.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from ..evaluation.sustained import onset_line
from ..records import Result
from ..records.sustained import Sustained, SustainedWindow
from . import svg
from .curves import Ranking, curve_lines, gpu_mhz, rankings, sustained_results, throttle_text
from .data import ReportData, config_label, model_label
from .html_page import Colors, fmt, num_cell
from .svg import Chart, Scale, padded, t

Getter = Callable[[SustainedWindow], "float | None"]


class Window(Protocol):
    """What window_chart places: a window's number and its span in seconds from the run's start."""

    @property
    def index(self) -> int: ...
    @property
    def start_s(self) -> float: ...
    @property
    def end_s(self) -> float: ...


W = TypeVar("W", bound=Window)
# chart -> (y label, from zero, [(series name, value of a window, dashed)])
CHARTS: tuple[tuple[str, str, bool, tuple[tuple[str, Getter, bool], ...]], ...] = (
    ("latency", "latency per query (ms)", True, (("p50", lambda w: w.p50_ms, False),
                                                 ("p99", lambda w: w.p99_ms, True))),
    ("temperature", "°C", False, (("hottest zone", lambda w: w.temp_c, False),
                                  ("GPU (NVML)", lambda w: w.nvml_temp_c, True))),
    ("clock", "MHz", True, (("CPU (mean of cores)", lambda w: w.cpu_mhz, False), ("GPU", gpu_mhz, True))),
)
NO_DATA = {"latency": "no query in any window",
           "temperature": "no temperature read during the run (no readable thermal zone or NVML GPU)",
           "clock": "no clock read during the run (no cpufreq scaling_cur_freq, GPU devfreq or NVML)"}


def _window_tip(w: SustainedWindow) -> str:
    return (f"window {w.index} [{w.start_s:g}, {w.end_s:g}) s · {w.n} queries · {fmt(w.qps, 'q/s')}\n"
            f"p50 {fmt(w.p50_ms, 'ms')} · p99 {fmt(w.p99_ms, 'ms')} · {fmt(w.temp_c, '°C')} · "
            f"CPU {fmt(w.cpu_mhz, 'MHz')} · GPU {fmt(gpu_mhz(w), 'MHz')} · throttle {throttle_text(w)}")


@dataclass(frozen=True)
class Marks:
    """What a run's charts mark behind their lines: the throttling onset window (its number, span, temperature
    and why; None: no onset) and the steady tail (its first window and start; None: not reached), shaded to `end_s`,
    the run's last window's end. The forward pass's come from its stored section (marks_of), a generation's from
    its windows' curve (html_genscenario.py)."""

    onset: Window | None
    onset_temp_c: float | None
    onset_reason: str | None
    steady_window: int | None
    steady_s: float | None
    end_s: float


def marks_of(s: Sustained) -> Marks:
    return Marks(onset=next((w for w in s.windows if w.index == s.onset_window), None), onset_temp_c=s.onset_temp_c,
                 onset_reason=s.onset_reason, steady_window=s.steady_window, steady_s=s.time_to_steady_s,
                 end_s=s.windows[-1].end_s if s.windows else 0.0)


def draw_marks(ch: Chart, xs: Scale, m: Marks) -> None:
    """The steady tail shaded (`rect.steady[data-window]`), the onset window marked (`rect.onset[data-window]`), in
    the same colours and words on every sustained chart."""
    if m.steady_s is not None:
        x = xs(m.steady_s)
        ch.add(f'<rect class="steady" data-window="{m.steady_window}" x="{x:.1f}" y="{ch.y1}" '
               f'width="{max(0.0, xs(m.end_s) - x):.1f}" height="{ch.y0 - ch.y1}" fill="#1b7f3b" fill-opacity="0.07">'
               f'{svg.title(f"steady state from window {m.steady_window} ({m.steady_s:g} s)")}</rect>')
    on = m.onset
    if on is not None:
        x0, x1 = xs(on.start_s), xs(on.end_s)
        tip = onset_line(on.index, on.start_s, m.onset_temp_c, m.onset_reason)
        ch.add(f'<rect class="onset" data-window="{on.index}" x="{x0:.1f}" y="{ch.y1}" width="{x1 - x0:.1f}" '
               f'height="{ch.y0 - ch.y1}" fill="#c62828" fill-opacity="0.12">{svg.title(tip)}</rect>')
        ch.add(f'<line x1="{x0:.1f}" x2="{x0:.1f}" y1="{ch.y1}" y2="{ch.y0}" stroke="#c62828" '
               f'stroke-dasharray="4 3"/>')
        ch.add(svg.text(x0 + 3, ch.y1 + 11, f"onset · window {on.index}", "small"))


def _values(series: Sequence[tuple[str, Getter, bool]], s: Sustained) -> list[float]:
    return [v for _, get, _ in series for w in s.windows if w.n and (v := get(w)) is not None]


def window_chart(name: str, ylabel: str, zero: bool, series: Sequence[tuple[str, Callable[[W], float | None], bool]],
                 windows: Sequence[W], t1: float, c: str, span: tuple[float, float], *, tip: Callable[[W], str],
                 no_data: str, marks: Callable[[Chart, Scale], None] | None = None, point: str = "win",
                 attrs: str = "") -> str:
    """One chart of one run's windows against time, a point at each window's middle from that window's stored
    figure (`circle.<point>[data-series][data-window][data-v]` + `attrs`), the lines only joining them; `span`:
    this chart's values over every run sharing its axes (one y scale); `marks` drawn behind the lines. The
    forward-pass sustained cards and the generation's sustained windows (html_genscenario.py) both draw with it."""
    got = [(label, [(w, v) for w in windows if (v := get(w)) is not None], dash) for label, get, dash in series]
    got = [g for g in got if g[1]]
    if not got:
        return f'<div class="sus-chart" data-chart="{name}" data-t1="{t1:g}"><p class="note">{t(no_data)}</p></div>'
    lo, hi = padded(span[0], span[1], frac=0.12)
    ch = Chart(520, 190, left=58, right=14, top=12, bottom=38, label=f"{name} against time")
    xs = Scale(0.0, t1, ch.x0, ch.x1)
    ys = Scale(0.0 if zero else lo, hi if not zero else max(hi, span[1] * 1.08), ch.y0, ch.y1)
    if marks is not None:
        marks(ch, xs)
    ch.axes(xs, ys, xlabel="time in the run (s)", ylabel=ylabel, xticks=svg.nice_ticks(0.0, t1, 6))
    legend = []
    for label, pts, dash in got:
        xy = [(xs((w.start_s + w.end_s) / 2), ys(float(v))) for w, v in pts]
        ch.add(svg.polyline(xy, c, 1.8, dash="5 3" if dash else None, tip=label))
        for (w, v), (x, y) in zip(pts, xy, strict=True):
            ch.add(f'<circle class="{point}" data-series="{t(label)}" data-window="{w.index}" data-v="{v:.6g}"'
                   f'{attrs} cx="{x:.1f}" cy="{y:.1f}" r="{2.2 if dash else 3.0}" fill="{c}">'
                   f'{svg.title(tip(w))}</circle>')
        legend.append(f'<span>{"┄" if dash else "━"} {t(label)}</span>')
    return (f'<div class="sus-chart" data-chart="{name}" data-t1="{t1:g}">{ch}'
            f'<div class="legend">{"".join(legend)}</div></div>')


def _chart(name: str, ylabel: str, zero: bool, series: Sequence[tuple[str, Getter, bool]], s: Sustained,
           t1: float, c: str, span: tuple[float, float]) -> str:
    """One chart of one board's forward-pass windows (those with a query)."""
    m = marks_of(s)
    return window_chart(name, ylabel, zero, series, [w for w in s.windows if w.n], t1, c, span, tip=_window_tip,
                        no_data=NO_DATA[name], marks=lambda ch, xs: draw_marks(ch, xs, m))


def _card(r: Result, t1: float, c: str, spans: dict[str, tuple[float, float]]) -> str:
    s = r.sustained
    assert s is not None
    charts = "".join(_chart(name, ylabel, zero, series, s, t1, c, spans.get(name, (0.0, 1.0)))
                     for name, ylabel, zero, series in CHARTS)
    words = "".join(f"<li>{t(x)}</li>" for x in curve_lines(s))
    gpu = f" · GPU {t(s.nvml_gpu)} (NVML)" if s.nvml_gpu else ""
    onset = "" if s.onset_window is None else str(s.onset_window)
    return (f'<div class="card sus-card" data-device="{t(r.device)}" data-run="{t(r.run_id)}" '
            f'data-onset="{onset}"><h4><span class="dot" style="background:{c}"></span>'
            f'{t(config_label(r, with_model=True))}</h4><div class="note">{len(s.windows)} windows of '
            f'{s.window_s:g} s over {s.duration_s:g} s{gpu}</div><ul class="warn">{words}</ul>{charts}</div>')


def _ranking(rk: Ranking, colors: Colors) -> str:
    body = []
    for st in rk.standings:
        sus = st.result.sustained
        body.append(f'<tr class="sus-rank-row" data-device="{t(st.result.device)}" data-start-rank="{st.start_rank}" '
                    f'data-end-rank="{st.end_rank}"><td class="l"><span class="dot" style="background:'
                    f'{colors(st.result.device)}"></span>{t(st.label)}</td>'
                    + num_cell(st.start_rank, text=str(st.start_rank)) + num_cell(st.start_p50)
                    + num_cell(st.start_qps) + num_cell(st.end_rank, text=str(st.end_rank)) + num_cell(st.end_p50)
                    + num_cell(st.end_qps) + num_cell(sus.sustained_ratio if sus else None)
                    + num_cell(sus.onset_s if sus else None, text=f"window {sus.onset_window}" if sus and
                               sus.onset_window is not None else "none") + "</tr>")
    head = "".join(f"<th>{t(h)}</th>" for h in ("rank, first window", "p50 ms", "q/s", "rank, end", "p50 ms", "q/s",
                                                "sustained ratio", "onset"))
    return (f'<h3>{t(rk.model)}: boards in the first window and at the end</h3>'
            f'<p class="rank-change" data-changed="{int(rk.changed)}">{t(rk.sentence)}</p>'
            f'<table class="sortable sus-rank"><thead><tr><th class="l">board</th>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')


def sustained_section(data: ReportData, colors: Colors) -> str:
    rs = sustained_results(data.ok)
    if not rs:
        return ('<p class="note">No sustained runs in this selection: <code>edgeprof deploy --scenario sustained '
                '--duration 1800 --window 60</code> measures a board for half an hour, window by window.</p>')
    parts = ['<p class="lede">Each board over a long run, one point per window from that window\'s own raw '
             'samples and the readings taken during it (never interpolated). The <b style="color:#c62828">red '
             'band</b> is the throttling onset window; the <b style="color:#1b7f3b">green</b> shade the steady '
             'state. Every board of a model shares the time axis and each chart\'s value axis. Ranked by p50: '
             'the first window against the end (the last windows the sustained ratio uses).</p>']
    parts += [_ranking(rk, colors) for rk in rankings(rs)]
    groups: dict[str, list[Result]] = {}
    for r in rs:
        groups.setdefault(model_label(r), []).append(r)
    for model, group in groups.items():
        t1 = max(max(r.sustained.duration_s, r.sustained.windows[-1].end_s) for r in group if r.sustained)
        spans = {}
        for name, _, _, series in CHARTS:
            vals = [v for r in group if r.sustained for v in _values(series, r.sustained)]
            if vals:
                spans[name] = (min(vals), max(vals))
        cards = "".join(_card(r, t1, colors(r.device), spans) for r in group)
        parts.append(f'<h3>{t(model)}</h3><div class="grid sus-grid">{cards}</div>')
    return "".join(parts)
