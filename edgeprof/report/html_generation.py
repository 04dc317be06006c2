"""The HTML report's generation section: generative models' runs (records.Generation, schema 10) as llama-bench
prints them (pp / tg rows, tokens/s mean ± sample stdev over repetitions) with TTFT, TPOT, ITL p99, energy per
token and prompt token, tokens per joule and memory beside them.

Owns: that section's HTML. Does not own: the rows (generative/table.py), the figures (generative/stats.py,
reply.py), the page's helpers (html_page.py).
"""

from __future__ import annotations

from .data import ReportData, model_label, row
from .html_page import Colors, num_cell
from .svg import t


def generation_section(data: ReportData, colors: Colors) -> str:
    from ..generative.table import bench_rows

    gen = [r for r in data.ok if r.generation is not None]
    if not gen:
        return ('<p class="note">No generative model in this selection (a generation run measures time to first '
                'token, tokens per second and joules per token: docs/generative.md).</p>')
    names = ["board", "model", "runtime", "precision", "threads", "test", "t/s", "TTFT ms", "TPOT ms", "ITL p99 ms",
             "mJ/token", "mJ/prompt token", "tokens/J", "peak MB"]
    head = "".join(("<th class=\"l\">" if i < 6 else "<th>") + t(h) + "</th>" for i, h in enumerate(names))
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
                f'<td class="l">{t(b.test)}</td>' + num_cell(b.tps_mean, text=b.tps)
                + num_cell(d["ttft_ms"]) + num_cell(d["tpot_ms"]) + num_cell(d["itl_p99_ms"]) + num_cell(mj[0])
                + num_cell(mj[1]) + num_cell(d["tokens_per_j"]) + num_cell(d["peak_rss_mb"]) + "</tr>")
    notes = [f"<li>{t(r.device)} · {t(model_label(r))}: no energy per token ({t(r.generation.energy_reason)})</li>"
             for r in gen if r.generation is not None and r.generation.energy is None and r.generation.energy_reason]
    return ('<p class="lede">Every token timed by the agent itself: pp is prompt tokens per second (the prefill), tg '
            'decode tokens per second (the tokens after the first), each per repetition, then mean ± sample stdev, '
            'as llama-bench prints them. TTFT is the prefill plus the first token\'s pick; energy per token is the '
            'power integrated over the decode phase of every repetition, divided by its tokens.</p>'
            f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
            + (f'<ul class="note">{"".join(notes)}</ul>' if notes else ""))
