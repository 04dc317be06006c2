"""The HTML report's view of a generation's load scenarios (records.GenScenario, docs/generative.md "Scenarios"):
a table of the server runs (rate, requests, p99 TTFT and p99 TPOT counted from the scheduled arrivals, the
bounds, VALID / INVALID, or why there is no verdict), and per sustained run its windows against time: decode
tokens/s, the hottest zone's °C, the CPU (and GPU) MHz and the mean W read during each window, one small chart each, drawn by
the forward-pass sustained charts' window_chart (html_sustained.py), every point its window's stored figure.

Markup a test can read: `tr.gen-server-row[data-run][data-verdict]` (VALID, INVALID or none) with `td[data-v]`
cells, `div.gen-sus-card[data-device][data-run]`, `circle.gen-window[data-series][data-window][data-v][data-run]`.
Owns: that part of the Generation section. Does not own: the figures (generative/scenario.py), the verdict's
words (generative/table.py), the charts' drawing (html_sustained.window_chart), the page (html.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..generative.table import verdict_word
from ..records import Result
from ..records.generation import GenScenario, GenWindow
from .data import model_label
from .html_page import Colors, fmt, num_cell
from .html_sustained import window_chart
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


def _card(r: Result, sc: GenScenario, t1: float, c: str, spans: dict[str, tuple[float, float]]) -> str:
    run = f' data-run="{t(r.run_id)}"'
    charts = "".join(window_chart(name, ylabel, zero, series, sc.windows, t1, c, spans.get(name, (0.0, 1.0)),
                                  tip=_window_tip, no_data=NO_DATA[name], point="gen-window", attrs=run)
                     for name, ylabel, zero, series in CHARTS)
    g = r.generation
    assert g is not None
    return (f'<div class="card sus-card gen-sus-card" data-device="{t(r.device)}"{run}><h4><span class="dot" '
            f'style="background:{c}"></span>{t(r.device)} · {t(r.runtime)} {t(r.precision)}'
            f'{f" · {r.threads} thr" if r.threads else ""} · pp{g.prompt_tokens} tg{g.tokens}</h4>'
            f'<div class="note">{len(sc.windows)} windows of {fmt(sc.window_s, "s")} over {fmt(sc.duration_s, "s")}, '
            f'{sc.requests} requests back to back</div>{charts}</div>')


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
             'over their summed time; the hottest zone and the CPU clock read during it), never interpolated.</p>']
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
