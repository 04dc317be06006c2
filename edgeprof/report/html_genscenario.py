"""The HTML report's view of a generation's load scenarios (records.GenScenario, docs/generative.md "Scenarios"):
a table of the server runs (rate, requests, p99 TTFT and p99 TPOT counted from the scheduled arrivals, the
bounds, VALID / INVALID, or why there is no verdict), and per sustained run its windows against time: decode
tokens/s, the hottest zone's °C, the CPU (and GPU) MHz and the mean W read during each window, one small chart each, drawn by
the forward-pass sustained charts' window_chart (html_sustained.py), every point its window's stored figure.

Each card marks the run's throttling onset window (red band) and steady state (green shade) on all four charts,
as the forward-pass cards do (html_sustained.draw_marks), and says them in words above the charts; the curve is
generative/scenario.py's sustained_curve (the forward pass's rules, decode tokens/s as the throughput).

Markup a test can read: `tr.gen-server-row[data-run][data-verdict]` (VALID, INVALID or none) with `td[data-v]`
cells, `div.gen-sus-card[data-device][data-run][data-onset][data-steady]` (a window number, or empty: none),
`circle.gen-window[data-series][data-window][data-v][data-run]`, `rect.onset[data-window]`,
`rect.steady[data-window]`.
Owns: that part of the Generation section. Does not own: the figures and the curve (generative/scenario.py), the
verdict's and the curve's words (generative/table.py), the charts' drawing and marks (html_sustained.py), the page
(html.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..evaluation.sustained import ONSET_DROP, STEADY_C, STEADY_TOL, Shape
from ..generative.scenario import sustained_curve
from ..generative.table import curve_lines, verdict_word
from ..records import Result
from ..records.generation import GenScenario, GenWindow
from .data import model_label
from .html_page import Colors, fmt, num_cell
from .html_sustained import Marks, draw_marks, window_chart
from .svg import t

Getter = Callable[[GenWindow], "float | None"]
# chart -> (y label, from zero, [(series name, value of a window, dashed)]), as the forward-pass CHARTS
CHARTS: tuple[tuple[str, str, bool, tuple[tuple[str, Getter, bool], ...]], ...] = (
    ("gen_decode_tps", "decode tokens/s", True, (("decode tokens/s", lambda w: w.decode_tps, False),)),
    ("gen_temperature", "°C", False, (("hottest zone", lambda w: w.temp_c, False),)),
    ("gen_clock", "MHz", True, (("CPU (mean of cores)", lambda w: w.cpu_mhz, False),
                                ("GPU", lambda w: w.gpu_mhz, True))),
    ("gen_power", "W", True, (("mean W", lambda w: w.mean_w, False),)),
)
NO_DATA = {"gen_decode_tps": "no decode step ended in any window (one generated token per request?)",
           "gen_temperature": "no temperature read during the run (no readable thermal zone)",
           "gen_clock": "no clock read during the run (no cpufreq scaling_cur_freq or GPU devfreq)",
           "gen_power": "no power read during the run (no sensor: the result's power section says why)"}


def _scenario(r: Result, name: str) -> GenScenario | None:
    sc = r.generation.scenario if r.generation is not None else None
    return sc if sc is not None and sc.name == name else None


def _bounds(sc: GenScenario) -> str:
    parts = [f"{what} ≤ {b:g} ms" for what, b in (("TTFT", sc.ttft_bound_ms), ("TPOT", sc.tpot_bound_ms))
             if b is not None]
    return " · ".join(parts) or "none"


def _verdict_cell(sc: GenScenario) -> str:
    """VALID / INVALID with its reason beside it; without a verdict, the reason (no bound given)."""
    reason = sc.valid_reason or ""
    if sc.valid is None:
        return f'<td class="l wrap gen-verdict">{t(reason or verdict_word(None))}</td>'
    badge = "ok" if sc.valid else "failed"  # the page's green and red badges
    return (f'<td class="l wrap gen-verdict"><span class="badge {badge}">{verdict_word(sc.valid)}</span>'
            + (f' <span class="note">{t(reason)}</span>' if reason else "") + "</td>")

def server_table(gen: Sequence[Result], colors: Colors) -> str:
    """One row per generation server run, each value the stored section's."""
    runs = [(r, sc) for r in gen if (sc := _scenario(r, "server")) is not None]
    if not runs:
        return ""
    names = ["board", "model", "runtime", "precision", "rate req/s", "requests", "p99 TTFT ms", "p99 TPOT ms",
             "bounds", "verdict"]
    head = "".join(("<th class=\"l\">" if i < 4 or i > 7 else "<th>") + t(h) + "</th>" for i, h in enumerate(names))
    body = []
    for r, sc in runs:
        verdict = "none" if sc.valid is None else verdict_word(sc.valid)
        body.append(f'<tr class="gen-server-row" data-run="{t(r.run_id)}" data-verdict="{verdict}">'
                    f'<td class="l" data-v="{t(r.device)}"><span class="dot" style="background:{colors(r.device)}">'
                    f'</span>{t(r.device)}</td><td class="l">{t(model_label(r))}</td><td class="l">{t(r.runtime)}'
                    f'</td><td class="l">{t(r.precision)}</td>' + num_cell(sc.rate_rps)
                    + num_cell(sc.requests, text=str(sc.requests)) + num_cell(sc.ttft_p99_ms)
                    + num_cell(sc.tpot_p99_ms) + f'<td class="l">{t(_bounds(sc))}</td>' + _verdict_cell(sc) + "</tr>")
    return ('<h3>Generation under load: server</h3><p class="small">Requests arrive as a Poisson process at the '
            'rate; TTFT and latency are counted from each request\'s scheduled arrival (queueing included, MLPerf\'s '
            'rule), p99 is LoadGen\'s (sorted[floor(n × 0.99)]); VALID when both p99s are within their bounds.</p>'
            f'<table class="sortable gen-server"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
            '</table>')


def _window_tip(w: GenWindow) -> str:
    return (f"window {w.index} [{w.start_s:g}, {w.end_s:g}) s · {w.requests} requests started · {w.tokens} tokens "
            f"({w.decode_tokens} decode) · {fmt(w.decode_tps, 'tokens/s')}\nTTFT p50 {fmt(w.ttft_p50_ms, 'ms')} · "
            f"{fmt(w.temp_c, '°C')} · CPU {fmt(w.cpu_mhz, 'MHz')} (lowest {fmt(w.cpu_mhz_min, 'MHz')}) · "
            f"GPU {fmt(w.gpu_mhz, 'MHz')} · {fmt(w.mean_w, 'W')}")


def _t1(sc: GenScenario) -> float:
    return max(sc.duration_s or 0.0, sc.windows[-1].end_s if sc.windows else 0.0) or 1.0


def _marks(sc: GenScenario, sh: Shape | None) -> Marks | None:
    """The onset band and the steady shade of a run's curve (generative/scenario.py sustained_curve)."""
    if sh is None:
        return None
    return Marks(onset=sh.onset, onset_temp_c=sh.onset_temp_c, onset_reason=sh.onset_reason,
                 steady_window=sh.steady_window, steady_s=sh.time_to_steady_s, end_s=sc.windows[-1].end_s)


def _card(r: Result, sc: GenScenario, t1: float, c: str, spans: dict[str, tuple[float, float]]) -> str:
    run = f' data-run="{t(r.run_id)}"'
    cv = sustained_curve(sc)
    sh = cv.shape if cv is not None else None
    m = _marks(sc, sh)
    draw = (lambda ch, xs: draw_marks(ch, xs, m)) if m is not None else None
    charts = "".join(window_chart(name, ylabel, zero, series, sc.windows, t1, c, spans.get(name, (0.0, 1.0)),
                                  tip=_window_tip, no_data=NO_DATA[name], marks=draw, point="gen-window", attrs=run)
                     for name, ylabel, zero, series in CHARTS)
    words = "".join(f"<li>{t(x)}</li>" for x in (curve_lines(cv) if cv is not None else []))
    g = r.generation
    assert g is not None
    onset = "" if sh is None or sh.onset is None else str(sh.onset.index)
    steady = "" if sh is None or sh.steady_window is None else str(sh.steady_window)
    return (f'<div class="card sus-card gen-sus-card" data-device="{t(r.device)}"{run} data-onset="{onset}" '
            f'data-steady="{steady}"><h4><span class="dot" '
            f'style="background:{c}"></span>{t(r.device)} · {t(r.runtime)} {t(r.precision)}'
            f'{f" · {r.threads} thr" if r.threads else ""} · pp{g.prompt_tokens} tg{g.tokens}</h4>'
            f'<div class="note">{len(sc.windows)} windows of {fmt(sc.window_s, "s")} over {fmt(sc.duration_s, "s")}, '
            f'{sc.requests} requests back to back</div><ul class="warn">{words}</ul>{charts}</div>')


def sustained_cards(gen: Sequence[Result], colors: Colors) -> str:
    """Per model, one card per sustained generation run: its windows' decode tokens/s, °C, MHz and W against time,
    every run of a model on the same time axis and each chart's value axis."""
    groups: dict[str, list[tuple[Result, GenScenario]]] = {}
    for r in gen:
        sc = _scenario(r, "sustained")
        if sc is not None:
            groups.setdefault(model_label(r), []).append((r, sc))
    if not groups:
        return ""
    parts = ['<h3>Generation over time: sustained</h3><p class="small">Requests back to back for the duration; '
             'each point is one window\'s stored figure (decode tokens/s: the decode steps that ended in the window '
             'over their summed time; the hottest zone and the CPU clock read during it), never interpolated. '
             'The <b style="color:#c62828">red band</b> is the throttling onset window: the first whose CPU clock '
             f'(or NVML SM clock) is more than {ONSET_DROP * 100:g} % below window 0\'s, or whose throttle bits include '
             'one window 0 did not have. The <b style="color:#1b7f3b">green</b> shade is the steady state: the last '
             f'N windows (N = windows ÷ 3, 1 to 5) agree, each one\'s decode tokens/s within {STEADY_TOL * 100:g} % of '
             f'their mean and °C within {STEADY_C:g} °C of theirs, and it reaches back over every earlier window '
             'that agrees too. The forward pass\'s rules (docs/scenarios.md), on the windows that hold a decode '
             'step.</p>']
    for model, group in groups.items():
        t1 = max(_t1(sc) for _, sc in group)
        spans = {}
        for name, _, _, series in CHARTS:
            vals = [v for _, sc in group for _, get, _ in series for w in sc.windows if (v := get(w)) is not None]
            if vals:
                spans[name] = (min(vals), max(vals))
        cards = "".join(_card(r, sc, t1, colors(r.device), spans) for r, sc in group)
        parts.append(f'<h4>{t(model)}</h4><div class="grid sus-grid">{cards}</div>')
    return "".join(parts)


def scenario_section(gen: Sequence[Result], colors: Colors) -> str:
    """The server table and the sustained cards the results have; empty when no generation ran a scenario."""
    return server_table(gen, colors) + sustained_cards(gen, colors)
