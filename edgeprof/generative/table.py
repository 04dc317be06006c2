"""How a generation section is shown: the llama-bench-like table (one `pp<prompt>` row and one `tg<tokens>` row per
result, ` @ d<depth>` when the context was filled first, tokens/s as mean ± sample stdev over repetitions) and the
section's lines for `results show` and the reports, each figure saying where it comes from.

Owns: BenchRow and its rows from a Generation (bench_rows) or a Result (bench_rows_of), the markdown table
llama-bench prints (`-o md`: | model | runtime | precision | threads | test | t/s |), generation_lines, and the
section's shape label and one-line summary (shape_label, summary_line: a sweep's cell lines, results list), a
sustained run's window table and its curve in words (curve_lines: scenario.sustained_curve's onset, ratio and
steady state, in the forward pass's sentences).
Pure: strings out, no I/O, no terminal markup.
Does not own: the figures (stats.py, reply.py), the records (records/generation.py), printing (cli/ui.py).

The rows follow llama-bench (tools/llama-bench): pp = prompt tokens / prefill time, tg = generated tokens / their
time, each per repetition, then mean ± sample stdev (ddof 1). One difference, stated: tg here is decode tokens/s
= (tokens - 1) / (e2e - TTFT) (MLPerf Client's TPS: the tokens after the first), since the first token's time is
inside TTFT.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..evaluation.sustained import onset_line, steady_line
from ..numfmt import fmt_value
from ..records import Generation, Result
from ..records.generation import GenScenario
from .scenario import GenCurve, sustained_curve

__all__ = ["BenchRow", "bench_rows", "bench_rows_of", "bench_markdown", "generation_lines", "bench_test_name",
           "shape_label", "summary_line", "SUMMARY_COLUMNS", "summary_cells"]


@dataclass(frozen=True)
class BenchRow:
    """One llama-bench-like row: what ran, the test (`pp512`, `tg128 @ d2048`), tokens/s mean ± sd over n."""

    model: str
    runtime: str
    precision: str
    threads: int | None
    test: str
    tps_mean: float
    tps_std: float | None  # None with one repetition
    n: int

    @property
    def tps(self) -> str:
        """`12.34 ± 0.56` (llama-bench's "%.2f ± %.2f"); `12.34` with one repetition."""
        return f"{self.tps_mean:.2f}" + (f" ± {self.tps_std:.2f}" if self.tps_std is not None else "")


def bench_test_name(kind: str, tokens: int, depth: int) -> str:
    """llama-bench's test label: `pp512`, `tg128`, with ` @ d<depth>` when the KV cache held `depth` tokens."""
    return f"{kind}{tokens}" + (f" @ d{depth}" if depth else "")


def shape_label(g: Generation) -> str:
    """What one generation measured, in llama-bench's names: `pp512 tg128` (` @ d2048` with a filled context)."""
    return f"pp{g.prompt_tokens} tg{g.tokens}" + (f" @ d{g.depth}" if g.depth else "")


def summary_line(g: Generation) -> str:
    """The section in one line (a sweep's cell line): shape, TTFT, decode tokens/s, J/token when measured."""
    text = f"{shape_label(g)}: TTFT {fmt_value(g.ttft_ms.mean, 'ms')}, prefill {fmt_value(g.prefill_tps.mean, 'tokens/s')}"
    if g.decode_tps is not None:
        text += f", decode {fmt_value(g.decode_tps.mean, 'tokens/s')}"
    if g.energy is not None and g.energy.j_per_token is not None:
        text += f", {fmt_value(g.energy.j_per_token * 1000, 'mJ')}/token"
    return text


SUMMARY_COLUMNS = ("test", "TTFT ms", "decode t/s", "mJ/token")


def summary_cells(g: Generation | None) -> list[str]:
    """A table row's cells for SUMMARY_COLUMNS (a sweep's cells, results list); empty cells without a section,
    `-` for a figure the run has none of (no power reading, one generated token)."""
    if g is None:
        return [""] * len(SUMMARY_COLUMNS)
    e = g.energy
    return [shape_label(g), fmt_value(g.ttft_ms.mean), fmt_value(g.decode_tps.mean if g.decode_tps else None),
            fmt_value(e.j_per_token * 1000 if e is not None and e.j_per_token is not None else None)]


def bench_rows(g: Generation, *, model: str, runtime: str | None = None, precision: str = "",
               threads: int | None = None) -> list[BenchRow]:
    """The pp row (prompt tokens/s) and, with more than one generated token, the tg row (decode tokens/s)."""
    rt = runtime or g.runtime or ""
    rows = [BenchRow(model, rt, precision, threads, bench_test_name("pp", g.prompt_tokens, g.depth), g.prefill_tps.mean,
                     g.prefill_tps.std, g.prefill_tps.n)]
    if g.decode_tps is not None:
        rows.append(BenchRow(model, rt, precision, threads, bench_test_name("tg", g.tokens, g.depth), g.decode_tps.mean,
                             g.decode_tps.std, g.decode_tps.n))
    return rows


def bench_rows_of(results: Iterable[Result]) -> list[BenchRow]:
    """The rows of every result that has a generation section, in the results' order."""
    out: list[BenchRow] = []
    for r in results:
        if r.generation is not None:
            out += bench_rows(r.generation, model=r.model, runtime=r.runtime, precision=r.precision,
                              threads=r.threads)
    return out


def bench_markdown(rows: Sequence[BenchRow], escape: Callable[[str], str] = str) -> str:
    """The rows as llama-bench's markdown table (`-o md`), t/s right-aligned. `escape`: what makes a name
    safe in the caller's markdown (the report's _md); names are shown as given otherwise."""
    head = ("model", "runtime", "precision", "threads", "test", "t/s")
    cells = [(escape(r.model), escape(r.runtime), escape(r.precision), "-" if r.threads is None else str(r.threads),
              r.test, r.tps) for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(head)]

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.rjust(w) if i >= 3 else v.ljust(w)
                                 for i, (v, w) in enumerate(zip(values, widths, strict=True))) + " |"

    rule = "| " + " | ".join(("-" * (w - 1) + ":") if i >= 3 else "-" * w for i, w in enumerate(widths)) + " |"
    return "\n".join([line(head), rule] + [line(c) for c in cells])


def _pm(mean: float, std: float | None, unit: str) -> str:
    return fmt_value(mean, unit) if std is None else f"{fmt_value(mean)} ± {fmt_value(std, unit)}"


def generation_lines(g: Generation) -> list[str]:
    """The section in words: the shape, the speeds (mean ± sd over repetitions), the latencies, memory and the KV
    cache, the energy per phase (or why there is none), and where the figures come from."""
    reps = f"{g.repetitions} repetition{'s' if g.repetitions != 1 else ''}"
    lines = [f"generation ({g.runtime or '?'}): {g.prompt_tokens} prompt tokens, {g.tokens} generated, depth "
             f"{g.depth}, {reps}" + (f", seed {g.seed}" if g.seed is not None else "")]
    lines.append(f"  TTFT {_pm(g.ttft_ms.mean, g.ttft_ms.std, 'ms')} (prefill {_pm(g.prefill_ms.mean, g.prefill_ms.std, 'ms')})"
                 f" · prefill {_pm(g.prefill_tps.mean, g.prefill_tps.std, 'tokens/s')}")
    if g.decode_tps is not None and g.tpot_ms is not None:
        lines.append(f"  decode {_pm(g.decode_tps.mean, g.decode_tps.std, 'tokens/s')} · TPOT "
                     f"{_pm(g.tpot_ms.mean, g.tpot_ms.std, 'ms')}")
    if g.itl_ms is not None:
        itl = g.itl_ms
        lines.append(f"  ITL p50 {fmt_value(itl.p50, 'ms')} · p90 {fmt_value(itl.p90, 'ms')} · p99 "
                     f"{fmt_value(itl.p99, 'ms')} · max {fmt_value(itl.max, 'ms')} ({itl.n} decode steps pooled)")
    mem = [f"load {fmt_value(g.load_ms, 'ms')}"]
    if g.peak_rss_bytes is not None:
        mem.append(f"peak RSS {fmt_value(g.peak_rss_bytes / 2**20, 'MiB')}")
    gm = g.gpu_memory
    if gm is not None:  # a CUDA generation: NVML's reading of the process after the load and after the last token
        read = [f"{w} {fmt_value(b / 2**20, 'MiB')}" for w, b in (("after load", gm.after_load_bytes),
                                                                   ("at the end", gm.end_bytes)) if b is not None]
        mem.append(f"GPU memory{f' (GPU {gm.gpu})' if gm.gpu is not None else ''} {', '.join(read)} (NVML)")
    if g.kv_cache_bytes is not None:
        kv = g.kv_cache or {}
        what = f" for {kv['n_ctx']} tokens" if kv.get("n_ctx") else ""
        what += f" ({kv['dtype']})" if kv.get("dtype") else ""
        mem.append(f"KV cache {fmt_value(g.kv_cache_bytes / 2**20, 'MiB')}{what}")
    lines.append("  " + " · ".join(mem))
    e = g.energy
    if e is not None:
        lines.append(f"  energy ({e.source or 'power'}): prefill {fmt_value(e.prefill_j, 'J')} at "
                     f"{fmt_value(e.prefill_mean_w, 'W')} → {fmt_value(e.j_per_prompt_token * 1000, 'mJ')}/prompt "
                     f"token · decode {fmt_value(e.decode_j, 'J')} at {fmt_value(e.decode_mean_w, 'W')} → "
                     + (f"{fmt_value(e.j_per_token * 1000, 'mJ')}/token, {fmt_value(e.tokens_per_j, 'tokens/J')}"
                        if e.j_per_token is not None else "no decode step"))
    else:
        lines.append(f"  energy: none ({g.energy_reason or 'no power readings'})")
    if g.measured_by is not None:  # a tool's own figures (a phone's litert_lm_main): what it did not give, and why
        why: dict[str, list[str]] = {}
        for k, v in (g.absent or {}).items():
            why.setdefault(v, []).append(k)
        lines.append(f"  {g.measured_by}'s own figures, not timed by edgeprof; not measured: "
                     + "; ".join(f"{', '.join(ks)} — {v}" for v, ks in why.items()))
        return lines
    n = sum(len(t) for t in g.token_ns)
    lines.append(f"  from the agent's own clock: {n} per-token times and {len(g.prefill_ns)} prefill times kept "
                 "(results show --json); definitions stored with the result")
    if g.scenario is not None:
        lines += scenario_lines(g.scenario)
    return lines


def verdict_word(valid: bool | None) -> str:
    return "no verdict" if valid is None else "VALID" if valid else "INVALID"


def scenario_lines(sc: GenScenario) -> list[str]:
    """A generation's scenario in words: a server's requests, its p99 TTFT and TPOT from the scheduled arrivals
    and the verdict; a sustained run's windows as a table (tokens, decode tokens/s, TTFT p50, °C, MHz, W)."""
    def ms(v: float | None) -> str:
        return fmt_value(v, "ms")

    if sc.name == "server":
        lat = sorted(sc.latency_ms)
        lines = [f"server at {sc.rate_rps:g} requests/s (Poisson, seed {sc.seed}): {sc.requests} requests, one at a "
                 "time in arrival order; TTFT and latency counted from each request's scheduled arrival",
                 f"  p99 TTFT {ms(sc.ttft_p99_ms)} · p99 TPOT {ms(sc.tpot_p99_ms)} (LoadGen's p99: sorted[floor(n × "
                 f"0.99)]) · latency max {ms(lat[-1] if lat else None)}"]
        reason = sc.valid_reason or "no verdict"
        lines.append(f"  {reason}" if sc.valid is None else f"  {verdict_word(sc.valid)}: {reason}")
        return lines
    lines = [f"sustained for {fmt_value(sc.duration_s, 's')} in {fmt_value(sc.window_s, 's')} windows: "
             f"{sc.requests} requests back to back; TTFT = prefill + first token (no queue); tokens placed in the "
             "window their step ended in"]
    cv = sustained_curve(sc)
    onset = cv.shape.onset.index if cv is not None and cv.shape is not None and cv.shape.onset else None
    head = ("window", "start s", "requests", "tokens", "decode t/s", "TTFT p50 ms", "°C", "CPU MHz", "W")
    rows = [head] + [(f"{w.index}{' (onset)' if w.index == onset else ''}", fmt_value(w.start_s), str(w.requests),
                      str(w.tokens), fmt_value(w.decode_tps), fmt_value(w.ttft_p50_ms), fmt_value(w.temp_c),
                      fmt_value(w.cpu_mhz), fmt_value(w.mean_w)) for w in sc.windows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines += ["  " + "  ".join(c.rjust(widths[i]) for i, c in enumerate(r)) for r in rows]
    return lines + [f"  {x}" for x in curve_lines(cv)] if cv is not None else lines


def curve_lines(cv: GenCurve) -> list[str]:
    """What a sustained generation's curve says, in the forward pass's words (evaluation/sustained.py onset_line,
    steady_line): the onset, the ratio of decode tokens/s, the steady state; or why there is no curve."""
    sh = cv.shape
    if sh is None:
        return [cv.reason or "no curve"]
    on = sh.onset
    w = sh.steady_mean("mean_w")
    figures = [fmt_value(sh.steady_mean("throughput"), "decode tokens/s"), fmt_value(sh.steady_mean("temp_c"), "°C"),
               fmt_value(sh.steady_mean("cpu_mhz"), "MHz")] + ([fmt_value(w, "W")] if w is not None else [])
    return [onset_line(on.index if on else None, on.start_s if on else None, sh.onset_temp_c, sh.onset_reason),
            f"sustained ratio (last {sh.last_n} windows with a decode step ÷ window 0): decode tokens/s "
            f"{fmt_value(sh.ratio)}",
            steady_line(sh.steady_window, sh.time_to_steady_s, figures)]
