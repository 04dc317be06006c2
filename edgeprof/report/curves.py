"""What the report says about sustained runs, for every format: the curve's figures in words, the ranking of boards
in the first window and at the end, and the Markdown section (window tables and figures).

Owns: choosing the sustained results of a report (ok, with windows), the ranking rule and its sentence, the
lines for a run's onset / ratio / steady state (also `results show`'s; the onset and steady sentences are
evaluation/sustained.py's onset_line and steady_line, which a generation's sustained run says too), the Markdown
"Sustained runs" section.
The ranking: within a model, every sustained result by p50 latency (lower first) in the first window (window 0:
the short run, "minute 1" with 60 s windows) and at the end (the mean p50 of the last N windows the ratios use;
docs/scenarios.md). p50 orders back-to-back runs as throughput does, and still orders fixed-rate runs, whose
throughput is the schedule's.
Does not own: the figures (edgeprof/evaluation/sustained.py computes and stores them), the charts (html_sustained.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..evaluation.sustained import end_windows, mean_present, onset_line, steady_line
from ..records import Result
from ..records.sustained import Sustained, SustainedWindow
from ..vocab import fmt_value
from .data import config_label, model_label


def sustained_results(results: Sequence[Result]) -> list[Result]:
    return [r for r in results if r.status == "ok" and r.sustained is not None and r.sustained.windows]


@dataclass(frozen=True)
class Standing:
    """One result in a ranking: its figures in the first window and at the end, and its place in each."""

    result: Result
    label: str
    start_p50: float | None
    start_qps: float | None
    end_p50: float | None
    end_qps: float | None
    start_rank: int
    end_rank: int


@dataclass(frozen=True)
class Ranking:
    model: str
    window_s: float
    standings: list[Standing]  # by the end rank
    sentence: str

    @property
    def changed(self) -> bool:
        return any(s.start_rank != s.end_rank for s in self.standings)


def _place(values: Sequence[float | None]) -> list[int]:
    """1-based ranks, lower first; a missing value ranks last."""
    order = sorted(range(len(values)), key=lambda i: (values[i] is None, values[i] or 0.0, i))
    ranks = [0] * len(values)
    for k, i in enumerate(order):
        ranks[i] = k + 1
    return ranks


def _sentence(st: list[Standing], window_s: float) -> str:
    first = f"the first window (0–{window_s:g} s" + (", minute 1)" if window_s == 60 else ")")
    a = min(st, key=lambda s: s.start_rank)
    b = min(st, key=lambda s: s.end_rank)
    if a is not b:
        text = (f"In {first} {a.label} leads (p50 {fmt_value(a.start_p50, 'ms')}), at the end {b.label} "
                f"({fmt_value(b.end_p50, 'ms')}): the ranking changes over the run.")
    else:
        text = f"{a.label} leads from {first} to the end."
    if any(s.start_rank != s.end_rank for s in st) and (a is b or len(st) > 2):
        start = " > ".join(s.label for s in sorted(st, key=lambda s: s.start_rank))
        end = " > ".join(s.label for s in sorted(st, key=lambda s: s.end_rank))
        text += f" Order at the start: {start}; at the end: {end}."
    elif a is b:
        text += " The order holds."
    return text


def rankings(results: Sequence[Result]) -> list[Ranking]:
    """One ranking per model with at least two sustained results."""
    groups: dict[str, list[Result]] = {}
    for r in sustained_results(results):
        groups.setdefault(model_label(r), []).append(r)
    out = []
    for model, rs in groups.items():
        if len(rs) < 2:
            continue
        unique = len({r.device for r in rs}) == len(rs)
        starts: list[tuple[float | None, float | None]] = []
        ends: list[tuple[float | None, float | None]] = []
        for r in rs:
            s = r.sustained
            assert s is not None
            w0 = next((w for w in s.windows if w.n), None)
            starts.append((w0.p50_ms if w0 else None, w0.qps if w0 else None))
            tail = end_windows(s.windows, s.last_n or 1)
            ends.append((mean_present([w.p50_ms for w in tail]), mean_present([w.qps for w in tail])))
        r_start = _place([p for p, _ in starts])
        r_end = _place([p for p, _ in ends])
        st = [Standing(r, r.device if unique else config_label(r), starts[i][0], starts[i][1], ends[i][0], ends[i][1],
                       r_start[i], r_end[i]) for i, r in enumerate(rs)]
        st.sort(key=lambda s: s.end_rank)
        window_s = max((r.sustained.window_s for r in rs if r.sustained), default=0.0)
        out.append(Ranking(model, window_s, st, _sentence(st, window_s)))
    return out


def curve_lines(s: Sustained) -> list[str]:
    """What a sustained run's curve says, in words: the onset, the ratios, the steady state."""
    lines = [onset_line(s.onset_window, s.onset_s, s.onset_temp_c, s.onset_reason),
             f"sustained ratio (last {s.last_n} windows ÷ window 0): throughput {fmt_value(s.sustained_ratio)}"
             f" · p50 {fmt_value(s.p50_ratio)}"]
    figures = [fmt_value(s.steady_qps, 'q/s'), f"p50 {fmt_value(s.steady_p50_ms, 'ms')}",
               f"p99 {fmt_value(s.steady_p99_ms, 'ms')}", fmt_value(s.steady_temp_c, '°C'),
               fmt_value(s.steady_cpu_mhz, 'MHz')] + ([fmt_value(s.steady_w, 'W')] if s.steady_w is not None else [])
    lines.append(steady_line(s.steady_window, s.time_to_steady_s, figures))
    return lines


def gpu_mhz(w: SustainedWindow) -> float | None:
    """The GPU clock of a window: NVML's SM clock, else the devfreq clock (Jetson)."""
    return w.nvml_sm_mhz if w.nvml_sm_mhz is not None else w.gpu_mhz


def throttle_text(w: SustainedWindow) -> str:
    bits = []
    if w.throttled is not None:
        bits.append(f"0x{w.throttled:x}")
    if w.nvml_reasons is not None:
        bits.append(f"NVML 0x{w.nvml_reasons:x}")
    return " ".join(bits) or "-"


def _md_ranking(rk: Ranking, md: Callable[[object], str]) -> list[str]:
    lines = ["", f"### {md(rk.model)}: boards in the first window and at the end", "", str(md(rk.sentence)), "",
             "| board | rank, first window | p50 ms | q/s | rank, end | p50 ms | q/s | sustained ratio |",
             "|---|--:|--:|--:|--:|--:|--:|--:|"]
    for s in rk.standings:
        sus = s.result.sustained
        ratio = sus.sustained_ratio if sus else None
        lines.append(f"| {md(s.label)} | {s.start_rank} | {fmt_value(s.start_p50)} | {fmt_value(s.start_qps)} | "
                     f"{s.end_rank} | {fmt_value(s.end_p50)} | {fmt_value(s.end_qps)} | {fmt_value(ratio)} |")
    return lines


def _md_windows(r: Result, md: Callable[[object], str]) -> list[str]:
    s = r.sustained
    assert s is not None
    gpu = any(gpu_mhz(w) is not None for w in s.windows)
    gpu_c = any(w.nvml_temp_c is not None for w in s.windows)
    gpu_w = any(w.nvml_w is not None for w in s.windows)
    lines = ["", f"### {md(config_label(r, with_model=True))}", "",
             f"{len(s.windows)} windows of {s.window_s:g} s over {s.duration_s:g} s"
             + (f"; GPU: {md(s.nvml_gpu)} (NVML)" if s.nvml_gpu else "") + ".", ""]
    lines += [f"- {md(x)}" for x in curve_lines(s)]
    head = ["window", "from s", "queries", "q/s", "p50 ms", "p99 ms", "misses", "°C", "CPU MHz"]
    head += ["GPU MHz"] * gpu + ["GPU °C"] * gpu_c + ["GPU W"] * gpu_w + ["W", "throttle"]
    lines += ["", "| " + " | ".join(head) + " |", "|" + "--:|" * len(head)]
    for w in s.windows:
        onset = " (onset)" if w.index == s.onset_window else ""
        cells = [f"{w.index}{onset}", f"{w.start_s:g}", str(w.n), fmt_value(w.qps), fmt_value(w.p50_ms), fmt_value(w.p99_ms),
                 "-" if w.misses is None else str(w.misses), fmt_value(w.temp_c), fmt_value(w.cpu_mhz)]
        cells += [fmt_value(gpu_mhz(w))] * gpu + [fmt_value(w.nvml_temp_c)] * gpu_c + [fmt_value(w.nvml_w)] * gpu_w
        cells += [fmt_value(w.mean_w), throttle_text(w)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def markdown(results: Sequence[Result], md: Callable[[object], str]) -> list[str]:
    """The Markdown "Sustained runs" section (md: the report's text escaper), or [] without sustained runs."""
    rs = sustained_results(results)
    if not rs:
        return []
    lines = ["", "## Sustained runs", "", "Each window's latency from its own raw samples and the board's state "
             "from readings taken during it (docs/scenarios.md). The end: the last windows the sustained ratio uses."]
    for rk in rankings(rs):
        lines += _md_ranking(rk, md)
    for r in rs:
        lines += _md_windows(r, md)
    return lines
