"""Terminal output shared by commands: live progress for a deploy, and the result tables.

Owns: presentation only (rich). Progress and tables go to stderr/stdout respectively, so `--json -` output on
stdout stays clean.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from edgeprof_agent.messages import LogEvent, ProgressEvent

from ..files.output import visible
from ..records import Memory, OpsProfile, Power, Result, SystemMemory, Thermal, ThermalSnapshot
from ..vocab import fmt_value


def shown(text: object) -> str:
    """`text` made visible (control characters escaped) and safe as rich markup: for names and reasons."""
    return escape(visible(str(text)))


class SafeConsole(Console):
    """A rich Console that never sends a control character it was given as text: every string it renders
    (print, table cells, titles) has them shown visibly (`visible`, newlines and tabs kept). Rich's own
    styling and live display are not text and are unaffected."""

    def render_str(self, text: str, **kwargs: Any) -> Any:
        return super().render_str(visible(text, lines=True), **kwargs)


out = SafeConsole(highlight=False, width=None if sys.stdout.isatty() else 150)
err = SafeConsole(stderr=True, highlight=False, width=None if sys.stderr.isatty() else 150)


class DeployProgress:
    """Live status line: stage, then warm-up/measure progress from the agent's events."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._status = err.status("starting", spinner="dots") if enabled and err.is_terminal else None
        self._last_print = 0.0
        self._started = False
        self._last_phase: str | None = None

    def __enter__(self) -> DeployProgress:
        if self._status is not None:
            self._status.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._status is not None:
            self._status.stop()

    def _show(self, text: str, *, force: bool = False) -> None:
        """Every progress line goes through here: its names, paths and the device's words (a model file may be named
        with escape sequences) are shown visibly, never sent raw, and are never read as rich markup."""
        if not self.enabled:
            return
        if self._status is not None:
            self._status.update(shown(text))  # rich's status reads markup and does not go through render_str
            return
        now = time.monotonic()
        if force or now - self._last_print >= 2.0:  # not a terminal: a line every 2 s at most
            print(f"  {visible(text)}", file=sys.stderr, flush=True)
            self._last_print = now

    def stage(self, text: str) -> None:
        self._show(text, force=True)

    def window_line(self, event: ProgressEvent) -> None:
        """A sustained run's window closed: one line that stays (window k/N, p50, °C, MHz)."""
        from ..evaluation.sustained import window_line

        text = window_line(event)
        if not self.enabled:
            return
        if self._status is not None:
            err.print(f"  {escape(text)}")
        else:
            print(f"  {visible(text)}", file=sys.stderr, flush=True)

    def event(self, event: ProgressEvent | LogEvent) -> None:
        if isinstance(event, LogEvent):
            self._show(event.message, force=True)
            return
        phase = event.phase
        if phase == "measure" and event.window is not None:
            self.window_line(event)
            return
        force = phase != self._last_phase
        self._last_phase = phase
        if phase in ("warmup", "measure"):
            el, tot, n = event.elapsed_s or 0, event.total_s or 0, event.n or 0
            extra = f", min {event.min_queries} queries" if phase == "measure" and event.min_queries else ""
            last = f", last {fmt_value(event.last_ms, 'ms')}" if event.last_ms is not None else ""
            self._show(f"{phase}: {el:.1f}/{tot:.0f} s, {n} queries{extra}{last}", force=force)
        elif phase == "idle":
            self._show(f"idle power baseline ({event.total_s or 0:.0f} s)", force=force)
        elif phase == "cooldown":
            self._show(f"cooling below {event.below_c} °C", force=force)
        elif phase == "accuracy":
            self._show(f"accuracy: {event.n or 0}/{event.total or 0} samples", force=force)
        elif phase == "cooled":
            end = event.end_c
            self._show(f"cooldown: waited {event.waited_s or 0:.0f} s"
                       + (f", now {end:.1f} °C" if end is not None else ""), force=True)
        elif phase:
            self._show(f"{phase} {event.runtime or ''}", force=force)


def scenario_lines(r: Result) -> list[str]:
    """The scenario-specific summary (docs/scenarios.md): empty for a plain single-stream run."""
    sc = r.scenario
    if sc.name == "single-stream" and sc.battery_hours is None:
        return []
    lines: list[str] = []
    if sc.name != "single-stream":
        head = f"scenario {sc.label}: {sc.queries} queries, {sc.samples} samples"
        if sc.name in ("server", "fixed-rate"):
            head += f" · latency counted from the scheduled time · sustained {fmt_value(sc.sustained_qps, 'q/s')}"
        else:
            head += f" · {fmt_value(sc.samples_per_s, 'samples/s')}"
        lines.append(head)
        if sc.mode:
            lines.append(f"  issued: {sc.mode}")
        if sc.misses is not None:
            lines.append(f"  deadline misses: {sc.misses} of {sc.queries} ({fmt_value(sc.miss_rate, '%')})")
        if sc.lateness_ms:
            late = sc.lateness_ms
            lines.append(f"  issue lateness: p50 {fmt_value(late['p50'], 'ms')} · p99 {fmt_value(late['p99'], 'ms')}"
                         f" · max {fmt_value(late['max'], 'ms')}")
        if sc.valid is not None:
            lines.append(f"  {'VALID' if sc.valid else 'INVALID'}: {sc.valid_reason}")
    if sc.j_per_frame is not None:
        what = ("energy per frame", "(idle gaps included)") if sc.name in ("server", "fixed-rate") else (
            "energy per sample", "(at this load)")
        text = f"  {what[0]} {fmt_value(sc.j_per_frame * 1000, 'mJ')} {what[1]}"
        if sc.j_above_idle_per_frame is not None:
            text += f", above idle {fmt_value(sc.j_above_idle_per_frame * 1000, 'mJ')}"
        lines.append(text)
    if sc.battery_hours is not None:
        lines.append(f"  on a {sc.battery_wh:g} Wh battery: {fmt_value(sc.battery_hours, 'h')} at this duty cycle")
    return lines


def sustained_table(r: Result) -> Table | None:
    """A sustained run's windows, one row each (docs/scenarios.md "sustained"); GPU MHz, GPU °C and GPU W where
    the windows read them (NVML; a Jetson's devfreq clock), as the report's window table has them."""
    from ..report.curves import gpu_mhz, throttle_text

    s = r.sustained
    if s is None:
        return None
    gpu = any(gpu_mhz(w) is not None for w in s.windows)
    gpu_c = any(w.nvml_temp_c is not None for w in s.windows)
    gpu_w = any(w.nvml_w is not None for w in s.windows)
    t = Table(title=f"sustained: {len(s.windows)} windows of {s.window_s:g} s"
              + (f"; GPU: {s.nvml_gpu} (NVML)" if s.nvml_gpu else ""), title_justify="left")
    cols = ["window", "from s", "n", "p50 ms", "p99 ms", "q/s", "misses", "°C", "CPU MHz", "min MHz"]
    cols += ["GPU MHz"] * gpu + ["GPU °C"] * gpu_c + ["GPU W"] * gpu_w + ["W", "mJ/inf", "throttled"]
    for col in cols:
        t.add_column(col, justify="right")
    for w in s.windows:
        cells = [str(w.index), f"{w.start_s:g}", str(w.n), fmt_value(w.p50_ms), fmt_value(w.p99_ms),
                 fmt_value(w.qps), "-" if w.misses is None else str(w.misses), fmt_value(w.temp_c),
                 fmt_value(w.cpu_mhz), fmt_value(w.cpu_mhz_min)]
        cells += [fmt_value(gpu_mhz(w))] * gpu + [fmt_value(w.nvml_temp_c)] * gpu_c + [fmt_value(w.nvml_w)] * gpu_w
        t.add_row(*cells, fmt_value(w.mean_w), fmt_value(w.mj_per_inference), throttle_text(w))
    return t


def sustained_lines(r: Result) -> list[str]:
    """What a sustained run's curve says, in words (the report says the same: report/curves.py)."""
    from ..report.curves import curve_lines

    return [f"  {line}" for line in curve_lines(r.sustained)] if r.sustained is not None else []


def render_sustained(r: Result) -> None:
    table = sustained_table(r)
    if table is None:
        return
    out.print(table)
    for line in sustained_lines(r):
        out.print(escape(line))


def render_scenario(r: Result) -> None:
    for line in scenario_lines(r):
        if line.startswith("  INVALID"):
            out.print(f"[bold red]{escape(line)}[/bold red]")
        elif line.startswith("  VALID"):
            out.print(f"[bold green]{escape(line)}[/bold green]")
        else:
            out.print(escape(line))


def _render_latency(r: Result) -> None:
    """A forward-pass run's latency, throughput and memory."""
    lat = r.latency_ms
    t = Table(title="latency (ms)", title_justify="left")
    cols = ("p50", "p90", "p95", "p97", "p99", "p999", "min", "max", "mean", "std")
    for k in cols:
        t.add_column("p99.9" if k == "p999" else k, justify="right")
    t.add_row(*[fmt_value(getattr(lat, k) if lat else None) for k in cols])
    out.print(t)
    cv = lat.cv if lat else None
    out.print(f"n={lat.n if lat else '-'}  CV={fmt_value(cv * 100 if cv is not None else None)} %  "
              f"early-stopping p90={fmt_value(lat.early_stop_p90 if lat else None)} ms  "
              f"p99={fmt_value(lat.early_stop_p99 if lat else None)} ms  "
              f"window={fmt_value(r.settings.window_s)} s")
    if r.sessions is not None:  # --sessions N: the first session's figures above, every session's here
        from ..evaluation.sessions import sessions_line

        out.print(escape(sessions_line(r.sessions)))
    if r.phone is not None or (lat is not None and lat.source):  # a phone run: where its numbers came from
        for line in phone_lines(r):
            out.print(line, markup=False, soft_wrap=True)
    s = Table(title="throughput and memory", title_justify="left")
    for c in ("inferences/s", "RSS before load MB", "after load MB", "peak MB", "artifact MB"):
        s.add_column(c, justify="right")
    m = r.memory_mb or Memory()
    s.add_row(fmt_value(r.throughput_ips), fmt_value(m.rss_before_load), fmt_value(m.rss_after_load),
              fmt_value(m.peak_rss), fmt_value(m.artifact_size))
    out.print(s)
    render_memory_extra(m)


def render_generation(r: Result) -> None:
    """A generative model's run: the llama-bench-like rows, then the section's lines (generative/table.py)."""
    from ..generative.table import bench_rows_of, generation_lines

    g = r.generation
    if g is None:
        return
    t = Table(title="tokens/s (mean ± sd over repetitions)", title_justify="left")
    for c, right in (("test", False), ("t/s", True), ("n", True)):
        t.add_column(c, justify="right" if right else "left")
    for row in bench_rows_of([r]):
        t.add_row(escape(row.test), row.tps, str(row.n))
    out.print(t)
    for line in generation_lines(g):
        out.print(escape(line))
    if r.phone is not None:  # a phone's tool measured it (LiteRT-LM's litert_lm_main): its run, thermal status
        for line in phone_lines(r):
            out.print(line, markup=False, soft_wrap=True)


def render_result(r: Result) -> None:
    from ..analysis.compare import (
        cell_label,  # the label with the precision's detail (the file's weights), shown only
    )

    out.print(f"\n[bold]{shown(cell_label(r))}[/bold]   run {shown(r.run_id)}")
    if r.status != "ok":  # a failed or skipped sweep cell: no numbers, a reason (and the stderr tail)
        color = "yellow" if r.status == "skipped" else "red"
        out.print(f"[{color}]{r.status}[/{color}]: {escape(r.reason or 'no reason recorded')}")
        if r.sweep is not None:
            out.print(escape(f"sweep {r.sweep.sweep_id} · cell {r.sweep.cell_id} · attempts {r.sweep.attempts}"))
        if r.stderr_tail:
            out.print(f"stderr tail:\n{escape(r.stderr_tail)}")
        return
    if r.io is not None:
        render_io(r)
    if r.generation is not None:  # a generative model's run (schema 10): its own figures
        render_generation(r)
    if r.generation is None or r.latency_ms is not None:
        _render_latency(r)
    p = r.power
    if p:
        pt = Table(title=escape(f"power · {p.source} {p.rail}"), title_justify="left")
        values = (("mean W", p.mean_w), ("p95 W", p.p95_w), ("idle W", p.idle_w), ("dynamic W", p.dynamic_w),
                  ("energy J", p.energy_j), ("mJ/inference", p.energy_mj_per_inference),
                  ("inferences/J", p.inferences_per_joule), ("GFLOPS/W", p.gflops_per_watt))
        for name, _ in values:
            pt.add_column(name, justify="right")
        pt.add_row(*[fmt_value(v) for _, v in values])
        out.print(pt)
        out.print(escape(power_provenance(p)))
        for note in p.warnings:
            out.print(f"[yellow]power warning[/yellow]: {escape(str(note))}")
    else:
        reason = r.null_reasons.power
        if reason and len(reason) > 160:
            # the full per-source explanation stays in the stored result; the terminal drops its last
            # parenthesised group (the per-source details) and says where to read it
            reason = _drop_last_group(reason) + f" (why each failed: edgeprof results show {r.run_id} --json)"
        out.print(escape(f"power: none ({reason})" if reason else "power: none"))
    if r.generation is None or r.generation.scenario is None:  # a generation's scenario: in its own lines
        render_scenario(r)
    render_sustained(r)
    render_thermal(r.thermal)
    if r.compute is not None:
        out.print(f"compute: {fmt_value(r.compute.achieved_gflops)} GFLOPS achieved "
                  f"({r.compute.flops_per_inference:,} FLOPs per inference)")
    render_fidelity(r)
    render_accuracy(r)
    if r.ops is not None:
        render_ops(r.ops)
    from ..report.phases import phase_lines

    for line in phase_lines(r.phases):  # where the measurement's time went (schema 6)
        out.print(escape(line))
    for w in r.warnings:
        text = escape(f"{w.code}: {w.message}")
        if w.code in THROTTLE_CODES:  # the numbers are not those of an unthrottled board: say so loudly
            out.print(f"[bold red]THROTTLED[/bold red] {text}")
        elif w.code in THERMAL_CODES:
            out.print(f"[bold red]thermal[/bold red] {text}")
        else:
            out.print(f"[yellow]warning[/yellow] {text}")


THROTTLE_CODES = ("rpi_throttled_now", "rpi_throttled_during_run", "gpu_clock_reasons")
THERMAL_CODES = ("temperature_rise", "cooldown_timeout", "rpi_throttle_history")


def phone_lines(r: Result) -> list[str]:
    """`results show` (and deploy) lines for a phone run: where the latency came from and what is absent,
    benchmark_model's init / first inference / warm-up, the delegate, the thermal status, the power's source
    (battery side or which rails, each rail's mean W) and each delegate's placement (ops on it vs the CPU)."""
    from ..phone.benchmark import NOT_EMITTED, Delegation, placement_line
    from ..phone.facts import THERMAL_STATUS

    lines: list[str] = []
    lat, ph, p = r.latency_ms, r.phone, r.power
    if lat is not None and lat.source:
        absent = lat.absent or {}
        same = [k for k, v in absent.items() if v == NOT_EMITTED]
        shown_p5 = f"p5 {lat.p5:.3f} ms, " if lat.p5 is not None else ""
        lines.append(f"latency: {lat.source}'s own statistics ({shown_p5}{lat.percentile_method}); not measured: "
                     f"{', '.join(same)} — {NOT_EMITTED}")
        lines += [f"not measured: {k} — {v}" for k, v in absent.items() if v != NOT_EMITTED]
    if ph is None:
        return lines

    def status(s: int | None) -> str:
        return f"{THERMAL_STATUS[s]} ({s})" if s is not None and 0 <= s < len(THERMAL_STATUS) else "unknown"

    def ms(v: float | None) -> str:
        return f"{v:.3f} ms" if v is not None else "-"

    if r.generation is not None:  # a generative model's tool run: a backend, warm-up iterations
        lines.append(f"phone: {ph.tool} {ph.binary or '?'} · backend {ph.delegate} · init {ms(ph.init_ms)} · "
                     f"warm-up {ph.warmup_runs} iteration (prefill + decode {ms(ph.warmup_mean_ms)}) · thermal "
                     f"status {status(ph.thermal_status_before)} → {status(ph.thermal_status_after)}")
    else:
        lines.append(f"phone: {ph.tool} {ph.binary or '?'} · delegate {ph.delegate} · init {ms(ph.init_ms)} · "
                     f"first inference {ms(ph.first_inference_ms)} · warm-up {ph.warmup_runs} runs (mean "
                     f"{ms(ph.warmup_mean_ms)}) · thermal status {status(ph.thermal_status_before)} → "
                     f"{status(ph.thermal_status_after)}")
    if p is not None and p.mean_w is not None:
        what = "battery, whole phone" if p.source == "battery" else f"{p.source}: {p.covers}"
        per = f", {p.energy_mj_per_inference:.3f} mJ per inference" if p.energy_mj_per_inference is not None else ""
        lines.append(f"power ({what}): mean {p.mean_w:.3f} W over {fmt_value(p.window_s)} s{per}")
        if p.rails:
            lines.append("rails (mean W): " + ", ".join(f"{k} {w:.3f}" for k, w in
                                                        sorted(p.rails.items(), key=lambda kv: -kv[1])))
    deviations = (ph.battery or {}).get("deviations")
    if deviations:
        lines.append(f"battery: deviates from the kernel ABI: {'; '.join(deviations)}")
    lines += [placement_line(Delegation.from_dict(d)) for d in ph.delegation]
    return lines


def power_provenance(p: Power) -> str:
    """One line saying where the power numbers came from: source, total rail, what it covers, how, idle."""
    total = p.rail
    if p.total_kind == "sum-of-rails":  # no single total rail: an estimate, labelled as one
        total = f"{total} (sum of rails)"
    rate, asked = p.rate_hz, p.rate_hz_requested
    rate_s = f"{fmt_value(rate, 'Hz')}" + (f" (asked {fmt_value(asked)})" if asked and rate and rate < 0.8 * asked
                                           else "")
    idle = ("idle baseline " + (f"{fmt_value(p.idle_w, 'W')} before load; energy not idle-subtracted"
                                if p.idle_w is not None else f"not measured ({p.idle_note or '--idle 0'})"))
    how = (f"{p.method} at {rate_s}, {p.n_samples} samples" if rate is not None
           else f"{p.method}, {p.n_samples} reads")  # energy counters read before and after: no sampling rate
    return (f"power source: {p.source} · total {total} · covers: {p.covers or '?'} · "
            f"{how} over {fmt_value(p.window_s, 's')} · {idle}")


def render_memory_extra(m: Memory) -> None:
    sysm = m.system or SystemMemory()
    parts = []
    before, peak, total = sysm.before_bytes, sysm.peak_bytes, sysm.total_bytes
    if before is not None:
        parts.append(f"system used {fmt_value(before / 1e6, 'MB')} before, peak {fmt_value((peak or 0) / 1e6, 'MB')}"
                     + (f" of {fmt_value(total / 1e6, 'MB')}" if total else "")
                     + " (system-wide, all processes; on Jetson this includes GPU memory)")
    if m.gpu_process_bytes is not None:
        parts.append(f"GPU memory of the agent {m.gpu_process_bytes / 1e6:.1f} MB (NVML)")
    if m.baseline:
        parts.append(f"RSS before load holds {m.baseline}")
    if parts:
        out.print(escape("memory: " + "; ".join(parts)))


def render_thermal(th: Thermal | None) -> None:
    """One or two lines: temperatures before → after, clocks/power mode, Pi throttle bits, GPU clock reasons."""
    if not th:
        return
    before, after = th.before or ThermalSnapshot(), th.after or ThermalSnapshot()
    parts = []
    if before.max_temp_c is not None or after.max_temp_c is not None:
        parts.append(f"max {fmt_value(before.max_temp_c)} → {fmt_value(after.max_temp_c)} °C")
    cool = th.cooldown
    if cool:
        state = {True: "cooled", False: "NOT cooled", None: "no sensor"}[cool.cooled]
        parts.append(f"cooldown < {fmt_value(cool.below_c)} °C: {state} after {fmt_value(cool.waited_s)} s")
    if after.nvpmodel:
        parts.append(f"nvpmodel {after.nvpmodel.name} ({after.nvpmodel.id})")
    if after.jetson_clocks:
        parts.append("jetson_clocks " + ("on" if after.jetson_clocks.locked else "off") + " (inferred)")
    if after.governors:
        parts.append("governor " + ",".join(after.governors))
    thr = after.rpi_throttled
    if thr:
        flags = list(thr.now) + [f"{n} (has occurred)" for n in thr.has_occurred]
        parts.append(f"get_throttled {thr.raw}" + (": " + ", ".join(flags) if flags else ""))
    for g in after.nvml or []:
        if g.clock_reasons is not None:
            parts.append(f"GPU {g.index} clock reasons: {', '.join(g.clock_reasons) or 'none'}")
    if parts:
        out.print(escape("thermal: " + " · ".join(parts)))


def render_accuracy(r: Result) -> None:
    """The accuracy pass (--accuracy): top-1 / top-5 or each output's errors, the data and where it ran."""
    a = r.accuracy
    if a is None:  # when one was asked for, the warnings say why there is none
        return
    head = f"accuracy ({r.precision}): "
    if a.top1 is not None:
        head += f"top-1 {fmt_value(a.top1, '%')}" + (f" · top-5 {fmt_value(a.top5, '%')}" if a.top5 is not None
                                                      else f" (top-5: {a.classes} classes)")
        head += f" on output {a.output}"
    else:
        head += "vs expected outputs"
    out.print(escape(f"{head} · {a.samples} samples of {a.data} (sha256 {a.sha256[:12]}) · {a.inferences} "
                     f"inferences of {a.per_inference}" + (f", {a.padded} padding" if a.padded else "")
                     + f" in {fmt_value(a.duration_s, 's')} on the device, after the timed loop"),
              style="bold" if a.top1 is not None else None)
    if a.errors:
        t = Table(title="accuracy vs expected outputs", title_justify="left")
        for c in ("output", "samples", "MAE", "RMSE", "max abs error", "cosine"):
            t.add_column(c, justify="left" if c == "output" else "right")
        for e in a.errors:
            t.add_row(escape(e.output), str(e.samples), fmt_value(e.mean_abs_error), fmt_value(e.rmse),
                      fmt_value(e.max_abs_error), fmt_value(e.cosine_similarity))
        out.print(t)


def render_fidelity(r: Result) -> None:
    f = r.fidelity
    if not f:
        reason = r.null_reasons.fidelity
        out.print(f"fidelity: none ({reason})" if reason else "fidelity: none")
        return
    seed = f.inputs["seed"] if f.inputs else None
    t = Table(title=f"fidelity vs {f.reference} · seed {seed}", title_justify="left")
    for c in ("max abs error", "mean abs error", "cosine similarity", "top-1 agreement", "ok"):
        t.add_column(c, justify="right")
    top1 = f.top1_agreement
    cos = "-" if f.cosine_similarity is None else f"{f.cosine_similarity:.6f}"  # 1 - cos is the signal: 6 places
    t.add_row(fmt_value(f.max_abs_error), fmt_value(f.mean_abs_error), cos,
              "-" if top1 is None else f"{top1 * 100:.0f} % of {f.top1_rows}",
              "yes" if f.ok else "[yellow]no[/yellow]")
    out.print(t)


def render_ops(ops: OpsProfile, k: int = 10) -> None:
    from ..evaluation.opprofile import top

    if not ops.available:
        counts = ops.op_counts or {}
        listed = ", ".join(f"{name} ×{n}" for name, n in sorted(counts.items(), key=lambda kv: -kv[1]))
        out.print(f"op profile: none ({ops.reason})" + (f"\n  ops in the graph: {listed}" if listed else ""))
        return
    t = Table(title=f"top ops · {ops.source} · {ops.iterations} runs (separate pass)", title_justify="left")
    for c in ("node", "op type", "ms/run", "share"):
        t.add_column(c, justify="left" if c in ("node", "op type") else "right", overflow="fold")
    for n in top(ops, k):
        t.add_row(str(n["name"]), str(n["op_type"]), fmt_value(n["ms_per_run"]),
                  "-" if n["share"] is None else fmt_value(n["share"] * 100, "%"))
    out.print(t)
    types = top(ops, 6, by="op_type")
    out.print("by op type: " + ", ".join(f"{t['op_type']} {fmt_value(t['share'] * 100, '%')}" for t in types
                                         if t["share"] is not None))


def render_ops_side_by_side(view: dict[str, Any]) -> None:
    t = Table(title="ops side by side (ms per run · share)", title_justify="left")
    t.add_column("op type")
    for label in view["columns"]:
        t.add_column(label, justify="right", overflow="fold")
    for row in view["rows"]:
        t.add_row(row["op_type"], *["-" if c is None else
                                    f"{fmt_value(c['ms_per_run'])} · {fmt_value(c['share'] * 100, '%')}"
                                    for c in row["cells"]])
    out.print(t)
    for label, note in view["notes"].items():
        out.print(f"{label}: {note}")


def _drop_last_group(text: str) -> str:
    """Remove the last balanced '( ... )' group (and the space before it) from text."""
    end = text.rfind(")")
    depth = 0
    for i in range(end, -1, -1):
        if text[i] == ")":
            depth += 1
        elif text[i] == "(":
            depth -= 1
            if depth == 0:
                return (text[:i].rstrip() + text[end + 1:]).strip()
    return text


def render_io(r: Result) -> None:
    """The I/O summary: each input's shape, dtype and where its values came from, the outputs' shapes, then the
    load time and the first inference next to the steady state's p50."""
    from ..export.inputs import (  # the export package stays unimported until shown
        batch_label,
        io_summary_lines,
    )

    io = r.io
    if io is None:
        return
    label = batch_label(io.batch, io.batched, io.inputs) if io.batch is not None else ""
    out.print("[bold]inputs and outputs[/bold]" + (f" ({label})" if label else ""))
    for line in io_summary_lines(io.inputs, io.outputs):
        out.print("  " + escape(line))
    p50 = r.latency_ms.p50 if r.latency_ms is not None else None
    out.print(f"load {fmt_value(io.load_s, 's')} (includes the first inference) · first inference "
              f"{fmt_value(io.first_run_ms, 'ms')} · steady p50 {fmt_value(p50, 'ms')}")
