"""Where the time went, as text: one result's phases, and a set of results' phases summed per board.

Owns: the phase lines `results show` and `deploy` print (`phase_lines`), and the breakdown of many results
(analysis/breakdown.py sums it) as the text a sweep's summary prints and the report's Markdown and HTML.
Does not own: measuring the phases (run/timing.py, the agent), the section (records/phases.py), the sums
(analysis/breakdown.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..analysis.breakdown import Breakdown, label, stored_breakdown
from ..records import Result
from ..records.phases import LABELS, Phases


def _s(v: float) -> str:
    return f"{v:.2f}" if v < 100 else f"{v:.0f}"


_DEVICE = ("cooldown", "idle", "load", "warmup", "window", "around_window", "outputs", "profile", "accuracy",
           "sessions", "reply")
_BEFORE = ("connect", "agent", "facts", "export", "push")


def phase_lines(p: Phases | None) -> list[str]:
    """The total with the timed window's share, then each phase that took time, in run order: the host's before
    the run request, the device's, the host's after."""
    if p is None or p.total_s is None:
        return []
    parts = [(k, v) for k, v in p.parts() if v >= 0.005 or k == "window"]
    window = p.window_s or 0.0
    share = f", timed window {_s(window)} s ({100 * window / p.total_s:.0f} %)" if p.total_s > 0 else ""
    groups: list[list[str]] = [[], [], []]
    for k, v in parts:
        text = f"{LABELS[k]} {_s(v)}"
        if k == "export" and p.export_cached is not None:
            text += " (cached)" if p.export_cached else " (exported)"
        groups[0 if k in _BEFORE else 1 if k in _DEVICE else 2].append(text)
    not_here = [LABELS[k] for k, v in (("connect", p.connect_s), ("facts", p.facts_s)) if v is None]
    if not_here:
        groups[0].append(f"{' and '.join(not_here)}: once per board (the sweep's summary)")
    names = ("host before", "device", "host after")
    return [f"phases: {_s(p.total_s)} s in all{share}",
            *(f"  {n}: " + " · ".join(g) for n, g in zip(names, groups, strict=True) if g)]


def table_rows(bd: Breakdown) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the breakdown: one row per phase, one column per board and one for all, seconds and
    the share of the wall time; the last rows the timed-window share and the wall time."""
    devices = sorted(bd.boards)
    header = ["phase", *devices, "all", "% of wall" if bd.wall_s else "% of time"]
    whole = bd.wall_s if bd.wall_s else bd.accounted_s()
    totals = bd.totals()
    rows = []
    for k in bd.keys():
        rows.append([label(k), *(_s(bd.boards[d].seconds.get(k, 0.0)) for d in devices), _s(totals[k]),
                     f"{100 * totals[k] / whole:.1f}" if whole else "-"])
    walls = [bd.boards[d].wall_s for d in devices]
    rows.append(["wall", *(_s(w) if w is not None else "-" for w in walls),
                 _s(whole) if whole else "-", "100.0"])
    return header, rows


def summary_line(bd: Breakdown) -> str:
    """"timed windows 30.0 s of 41.2 s wall: 0.73" with the largest other phases."""
    share = bd.share()
    whole = bd.wall_s if bd.wall_s is not None else bd.accounted_s()
    others = sorted(((v, k) for k, v in bd.totals().items() if k != "window"), reverse=True)[:3]
    rest = ", ".join(f"{label(k)} {_s(v)} s" for v, k in others if v >= 0.005)
    text = f"timed windows {_s(bd.window_s)} s of {_s(whole)} s {'wall' if bd.wall_s is not None else 'measuring'}"
    text += f": {share:.2f}" if share is not None else ""
    return text + (f" (most of the rest: {rest})" if rest else "")


def text_table(bd: Breakdown) -> list[str]:
    """The breakdown as aligned plain text: the summary line, then the table (the sweep's summary prints it)."""
    if not bd.boards:
        return []
    header, rows = table_rows(bd)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = [f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths)]
    lines = [summary_line(bd), "  ".join(f.format(c) for f, c in zip(fmt, header, strict=True))]
    lines += ["  ".join(f.format(c) for f, c in zip(fmt, r, strict=True)) for r in rows]
    if bd.without_phases:
        lines.append(f"({bd.without_phases} row(s) without phase times: failed or skipped cells, older results)")
    return lines


def markdown(bd: Breakdown) -> list[str]:
    """The breakdown as a Markdown table (report's "Where the time went")."""
    header, rows = table_rows(bd)
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def html_section(results: Iterable[Result]) -> str:
    """The report's "Where the time went" section: the summary line and the phase × board table."""
    import html

    bd = stored_breakdown(results)
    if bd is None:
        return '<p class="note">No result in this selection has phase times (schema 6 and later).</p>'
    header, rows = table_rows(bd)
    head = "".join(f'<th{" class=l" if i == 0 else ""}>{html.escape(h)}</th>' for i, h in enumerate(header))
    body = "".join("<tr>" + "".join(f'<td{" class=l" if i == 0 else ""}>{html.escape(c)}</td>'
                                    for i, c in enumerate(r)) + "</tr>" for r in rows)
    note = (" Rows without phase times (failed, skipped or older results) are not counted."
            if bd.without_phases else "")
    return (f'<p class="lede">{html.escape(summary_line(bd))}. Seconds per phase, summed over each board\'s '
            f'rows; a sweep board\'s wall time is its first cell\'s start to its last cell\'s end.{note}</p>'
            f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>')
