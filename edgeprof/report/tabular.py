"""The report as Markdown (for a wiki page or a merge request) and as CSV (one row per cell, for a spreadsheet).

Owns: both text formats, from the same ReportData as the HTML. Does not own: choosing results (data.py).
"""

from __future__ import annotations

import csv
import html
import io
import math

from ..analysis.breakdown import stored_breakdown
from ..files.output import csv_text, visible
from ..generative.table import bench_markdown, bench_rows_of, scenario_lines
from ..vocab import fmt_value
from . import predicted
from .curves import markdown as sustained_markdown
from .data import (
    ACCURACY_COLUMNS,
    GENERATION_COLUMNS,
    ROW_METRICS,
    SCENARIO_COLUMNS,
    ReportData,
    accuracy_rows,
    config_label,
    latency_notes,
    model_label,
    row,
)
from .phases import markdown, summary_line

CSV_COLUMNS = ("run_id", "created_at", "sweep_id", "status", "device", "model", "runtime", "precision",
               "precision_detail", "batch", "threads", *ROW_METRICS, "cv", "n", "latency_source", "power_source", *SCENARIO_COLUMNS, *ACCURACY_COLUMNS, *GENERATION_COLUMNS, "reason",
               *predicted.CSV_COLUMNS)

_MD_COLS = (("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"), ("throughput_ips", "inf/s"), ("peak_rss_mb", "peak MB"),
            ("mean_w", "W"), ("mj_per_inference", "mJ/inf"), ("inferences_per_joule", "inf/J"),
            ("gflops_per_watt", "GFLOPS/W"))


def render_csv(data: ReportData) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(CSV_COLUMNS), extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    beside = predicted.csv_cells(data)  # the run's stored prediction, where it has one (empty cells otherwise)
    for r in data.results:
        d = {**row(r), **dict.fromkeys(predicted.CSV_COLUMNS), **beside.get(r.run_id, {})}
        w.writerow({k: ("" if d[k] is None else csv_text(d[k])) for k in CSV_COLUMNS})
    return buf.getvalue()


def _md(text: object) -> str:
    """Text from names and messages as Markdown table-safe text: HTML escaped (a model named `<img ...>` shows as
    text, never as markup), pipes escaped, control characters shown visibly (\\x1b), one line."""
    return html.escape(visible(str(text), lines=True), quote=False).replace("|", "\\|").replace("\n", " ").replace("\r", " ")


def generation_markdown(ok: list) -> list[str]:
    """The `## Generation` section: llama-bench's rows (pp / tg, t/s mean ± sd), then per run TTFT, TPOT, ITL
    p99, energy per token and memory (records.Generation; docs/generative.md)."""
    gen = [r for r in ok if r.generation is not None]
    if not gen:
        return []
    lines = ["", "## Generation", "", "Tokens per second as llama-bench prints them (pp: prompt tokens/s; tg: "
             "decode tokens/s, the tokens after the first), mean ± sample stdev over repetitions, from the agent's "
             "own per-token times.", "", bench_markdown(bench_rows_of(gen), escape=_md), "",
             "| board | model | runtime | precision | TTFT ms | TPOT ms | ITL p99 ms | mJ/token | mJ/prompt token | "
             "tokens/J | peak MB | KV cache MB |", "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in gen:
        d, g = row(r), r.generation
        mj = [None if d[k] is None else d[k] * 1000 for k in ("j_per_token", "j_per_prompt_token")]
        kv = g.kv_cache_bytes / 2**20 if g.kv_cache_bytes is not None else None
        lines.append(f"| {_md(r.device)} | {_md(model_label(r))} | {_md(r.runtime)} | {_md(r.precision)} | "
                     f"{fmt_value(d['ttft_ms'])} | {fmt_value(d['tpot_ms'])} | {fmt_value(d['itl_p99_ms'])} | "
                     f"{fmt_value(mj[0])} | {fmt_value(mj[1])} | {fmt_value(d['tokens_per_j'])} | "
                     f"{fmt_value(d['peak_rss_mb'])} | {fmt_value(kv)} |")
    reasons = [f"{config_label(r, with_model=True)}: {r.generation.energy_reason}" for r in gen
               if r.generation.energy is None and r.generation.energy_reason]
    lines += [f"\nno energy per token for {_md(text)}" for text in reasons]
    for r in gen:  # a server's verdict and a sustained run's windows (generative/table.py scenario_lines)
        if r.generation.scenario is not None:
            lines += ["", f"**{_md(config_label(r, with_model=True))}**", "", "```",
                      *[visible(x, lines=True) for x in scenario_lines(r.generation.scenario)], "```"]
    return lines


def render_markdown(data: ReportData) -> str:
    lines = [f"# {_md(data.title)}", "", f"{_md(data.scope)} · generated {data.generated_at}", ""]
    ok, bad = data.ok, data.not_ok
    lines.append(f"**{len(ok)}** configurations measured on **{len(data.devices())}** boards; "
                 f"**{sum(r.status == 'failed' for r in bad)}** failed, **{sum(r.status == 'skipped' for r in bad)}**"
                 " skipped.")
    models: dict[str, list] = {}
    for r in ok:
        if r.generation is None:  # a generative model's run has its own section (no forward-pass latency)
            models.setdefault(model_label(r), []).append(r)
    if models:
        lines += ["", "## Board comparison"]
    for model, rs in models.items():
        lines += ["", f"### {_md(model)}", "",
                  "| board | runtime | precision | batch | threads | " + " | ".join(c[1] for c in _MD_COLS) + " |",
                  "|---|---|---|--:|--:|" + "--:|" * len(_MD_COLS)]
        for r in sorted(rs, key=lambda r: (r.latency_ms.p50 if r.latency_ms.p50 is not None else math.inf)
                        if r.latency_ms else 0):  # a phone build with no percentiles has no p50: last
            d = row(r)
            board = r.device + (f" ({r.scenario.label})" if r.scenario.label else "")
            prec = r.precision + (f" [{d['precision_detail']}]" if d["precision_detail"] else "")
            lines.append(f"| {_md(board)} | {_md(r.runtime)} | {_md(prec)} | {r.batch} | "
                         f"{r.threads or 'auto'} | "
                         + " | ".join(fmt_value(d[k]) for k, _ in _MD_COLS) + " |")
        lines += [f"\n{_md(note)}" for note in latency_notes(rs)]  # a phone's benchmark_model statistics
    acc = accuracy_rows(ok)
    if acc:
        lines += ["", "## Accuracy", "", "Every sample of the data through the measured artifact, on the board. "
                  "Δ: the change from the fp32 run of the same configuration on the same data.", "",
                  "| model | data | board | runtime | precision | top-1 | top-5 | Δ top-1 (points) | MAE | "
                  "p50 ms | mJ/inf |", "|---|---|---|---|---|--:|--:|--:|--:|--:|--:|"]
        for a in acc:
            d = row(a.result)
            delta = f"{a.vs_fp32_top1:+.1f}" if a.vs_fp32_top1 is not None else "–"
            lines.append(f"| {_md(a.model)} | {_md(a.data)} | {_md(a.result.device)} | {_md(a.result.runtime)} | "
                         f"{_md(a.result.precision)} | {fmt_value(a.top1, '%')} | {fmt_value(a.top5, '%')} | "
                         f"{delta} | {fmt_value(a.mae)} | {fmt_value(d['p50_ms'])} | "
                         f"{fmt_value(d['mj_per_inference'])} |")
    lines += predicted.markdown(data, _md)
    lines += generation_markdown(ok)
    lines += sustained_markdown(ok, _md)
    if bad:
        lines += ["", "## Failed and skipped cells", "", "| status | cell | reason |", "|---|---|---|"]
        for r in bad:
            lines.append(f"| {r.status} | {_md(config_label(r, with_model=True))} | {_md(r.reason or '')} |")
    spent = stored_breakdown(data.results)
    if spent is not None:
        lines += ["", "## Where the time went", "", _md(summary_line(spent)) + ".", "", *markdown(spent)]
    warns = [(config_label(r, with_model=True), w) for r in ok for w in r.warnings]
    if warns:
        lines += ["", "## Warnings", ""]
        lines += [f"- **{_md(label)}** `{_md(w.code).replace('`', '')}`: {_md(w.message)}" for label, w in warns]
    return "\n".join(lines) + "\n"
