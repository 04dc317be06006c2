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

from ..records import Result

out = Console(highlight=False, width=None if sys.stdout.isatty() else 150)
err = Console(stderr=True, highlight=False, width=None if sys.stderr.isatty() else 150)


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
        if not self.enabled:
            return
        if self._status is not None:
            self._status.update(text)
            return
        now = time.monotonic()
        if force or now - self._last_print >= 2.0:  # not a terminal: a line every 2 s at most
            print(f"  {text}", file=sys.stderr, flush=True)
            self._last_print = now

    def stage(self, text: str) -> None:
        self._show(text, force=True)

    def event(self, event: dict[str, Any]) -> None:
        if event.get("event") == "log":
            self._show(str(event.get("message", "")), force=True)
            return
        phase = event.get("phase")
        force = phase != self._last_phase
        self._last_phase = phase
        if phase in ("warmup", "measure"):
            el, tot, n = event.get("elapsed_s", 0), event.get("total_s", 0), event.get("n", 0)
            extra = f", min {event.get('min_queries')} queries" if phase == "measure" else ""
            last = f", last {event['last_ms']:.2f} ms" if event.get("last_ms") is not None else ""
            self._show(f"{phase}: {el:.1f}/{tot:.0f} s, {n} queries{extra}{last}", force=force)
        elif phase == "idle":
            self._show(f"idle power baseline ({event.get('total_s', 0):.0f} s)", force=force)
        elif phase == "cooldown":
            self._show(f"cooling below {event.get('below_c')} °C", force=force)
        elif phase == "cooled":
            end = event.get("end_c")
            self._show(f"cooldown: waited {event.get('waited_s', 0):.0f} s"
                       + (f", now {end:.1f} °C" if isinstance(end, (int, float)) else ""), force=True)
        elif phase:
            self._show(f"{phase} {event.get('runtime', '')}", force=force)


def _f(v: Any, digits: int = 3) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if v != 0 and abs(v) < 0.1:
            return f"{v:.{digits}g}"  # µs-scale latencies keep significant digits
        return f"{v:.{digits}f}"
    return str(v)


def render_result(r: Result) -> None:
    title = f"{r.model} on {r.device} · {r.runtime} {r.precision} · batch {r.batch}"
    if r.threads:
        title += f" · {r.threads} threads"
    out.print(f"\n[bold]{title}[/bold]   run {r.run_id}")
    lat = r.latency_ms or {}
    t = Table(title="latency (ms)", title_justify="left")
    keys = ["p50", "p90", "p95", "p97", "p99", "p999", "min", "max", "mean", "std"]
    for k in keys:
        t.add_column("p99.9" if k == "p999" else k, justify="right")
    t.add_row(*[_f(lat.get(k)) for k in keys])
    out.print(t)
    cv = lat.get("cv")
    es90, es99 = lat.get("early_stop_p90"), lat.get("early_stop_p99")
    out.print(f"n={lat.get('n')}  CV={_f(cv * 100 if cv is not None else None, 1)} %  "
              f"early-stopping p90={_f(es90)} ms  p99={_f(es99)} ms  "
              f"window={_f((r.settings or {}).get('window_s'), 2)} s")
    s = Table(title="throughput and memory", title_justify="left")
    for c in ("inferences/s", "RSS before load MB", "after load MB", "peak MB", "artifact MB"):
        s.add_column(c, justify="right")
    m = r.memory_mb or {}
    s.add_row(_f(r.throughput_ips, 1), _f(m.get("rss_before_load"), 1), _f(m.get("rss_after_load"), 1),
              _f(m.get("peak_rss"), 1), _f(m.get("artifact_size"), 2))
    out.print(s)
    render_memory_extra(m)
    p = r.power
    if p:
        pt = Table(title=escape(f"power · {p.get('source')} {p.get('rail')}"), title_justify="left")
        cols = [("mean W", "mean_w"), ("p95 W", "p95_w"), ("idle W", "idle_w"), ("dynamic W", "dynamic_w"),
                ("energy J", "energy_j"), ("mJ/inference", "energy_mj_per_inference"),
                ("inferences/J", "inferences_per_joule"), ("GFLOPS/W", "gflops_per_watt")]
        for name, _ in cols:
            pt.add_column(name, justify="right")
        pt.add_row(*[_f(p.get(k)) for _, k in cols])
        out.print(pt)
        out.print(escape(power_provenance(p)))
        for w in p.get("warnings") or []:
            out.print(f"[yellow]power warning[/yellow]: {escape(str(w))}")
    else:
        reason = (r.extra or {}).get("null_reasons", {}).get("power")
        if reason and len(reason) > 160:
            # the full per-source explanation stays in the stored result; the terminal drops its last
            # parenthesised group (the per-source details) and says where to read it
            reason = _drop_last_group(reason) + f" (why each failed: edgeprof results show {r.run_id} --json)"
        out.print(escape(f"power: none ({reason})" if reason else "power: none"))
    render_thermal(r.thermal)
    compute = (r.extra or {}).get("compute")
    if compute and compute.get("achieved_gflops") is not None:
        out.print(f"compute: {_f(compute['achieved_gflops'], 2)} GFLOPS achieved "
                  f"({compute.get('flops_per_inference'):,} FLOPs per inference)")
    render_fidelity(r)
    ops = (r.extra or {}).get("ops")
    if ops is not None:
        render_ops(ops)
    for w in r.warnings:
        text = escape(f"{w.get('code')}: {w.get('message')}")
        if w.get("code") in THROTTLE_CODES:  # the numbers are not those of an unthrottled board: say so loudly
            out.print(f"[bold red]THROTTLED[/bold red] {text}")
        elif w.get("code") in THERMAL_CODES:
            out.print(f"[bold red]thermal[/bold red] {text}")
        else:
            out.print(f"[yellow]warning[/yellow] {text}")


THROTTLE_CODES = ("rpi_throttled_now", "rpi_throttled_during_run", "gpu_clock_reasons")
THERMAL_CODES = ("temperature_rise", "cooldown_timeout", "rpi_throttle_history")


def power_provenance(p: dict[str, Any]) -> str:
    """One line saying where the power numbers came from: source, total rail, what it covers, how, idle."""
    total = p.get("rail")
    if p.get("total_kind") == "sum-of-rails":  # no single total rail: an estimate, labelled as one
        total = f"{total} (sum of rails)"
    rate, asked = p.get("rate_hz"), p.get("rate_hz_requested")
    rate_s = f"{_f(rate, 1)} Hz" + (f" (asked {_f(asked, 1)})" if asked and rate and rate < 0.8 * asked else "")
    idle = ("idle baseline " + (f"{_f(p.get('idle_w'))} W before load; energy not idle-subtracted"
                                if p.get("idle_w") is not None else "not measured (--idle 0)"))
    return (f"power source: {p.get('source')} · total {total} · covers: {p.get('covers') or '?'} · "
            f"{p.get('method')} at {rate_s}, {p.get('n_samples')} samples over {_f(p.get('window_s'), 2)} s · "
            f"{idle}")


def render_memory_extra(m: dict[str, Any]) -> None:
    sysm = m.get("system") or {}
    parts = []
    if sysm.get("before_bytes") is not None:
        parts.append(f"system used {sysm['before_bytes'] / 1e6:.0f} MB before, peak "
                     f"{_f((sysm.get('peak_bytes') or 0) / 1e6, 0)} MB"
                     + (f" of {sysm['total_bytes'] / 1e6:.0f} MB" if sysm.get("total_bytes") else "")
                     + " (system-wide, all processes; on Jetson this includes GPU memory)")
    if m.get("gpu_process_bytes") is not None:
        parts.append(f"GPU memory of the agent {m['gpu_process_bytes'] / 1e6:.1f} MB (NVML)")
    if parts:
        out.print(escape("memory: " + "; ".join(parts)))


def render_thermal(th: dict[str, Any] | None) -> None:
    """One or two lines: temperatures before → after, clocks/power mode, Pi throttle bits, GPU clock reasons."""
    if not th:
        return
    before, after = th.get("before") or {}, th.get("after") or {}
    parts = []
    tb, ta = before.get("max_temp_c"), after.get("max_temp_c")
    if tb is not None or ta is not None:
        parts.append(f"max {_f(tb, 1)} → {_f(ta, 1)} °C")
    cool = th.get("cooldown")
    if cool:
        state = {True: "cooled", False: "NOT cooled", None: "no sensor"}[cool.get("cooled")]
        parts.append(f"cooldown < {_f(cool.get('below_c'), 1)} °C: {state} after {_f(cool.get('waited_s'), 1)} s")
    mode = after.get("nvpmodel")
    if mode:
        parts.append(f"nvpmodel {mode.get('name')} ({mode.get('id')})")
    jc = after.get("jetson_clocks")
    if jc:
        parts.append("jetson_clocks " + ("on" if jc.get("locked") else "off") + " (inferred)")
    if after.get("governors"):
        parts.append("governor " + ",".join(after["governors"]))
    thr = (after.get("rpi") or {}).get("throttled")
    if thr:
        flags = (thr.get("now") or []) + [f"{n} (has occurred)" for n in thr.get("has_occurred") or []]
        parts.append(f"get_throttled {thr.get('raw')}" + (": " + ", ".join(flags) if flags else ""))
    for g in after.get("nvml") or []:
        reasons = g.get("clock_reasons")
        if reasons is not None:
            parts.append(f"GPU {g.get('index')} clock reasons: {', '.join(reasons) or 'none'}")
    if parts:
        out.print(escape("thermal: " + " · ".join(parts)))


def render_fidelity(r: Result) -> None:
    f = r.fidelity
    if not f:
        reason = (r.extra or {}).get("null_reasons", {}).get("fidelity")
        out.print(f"fidelity: none ({reason})" if reason else "fidelity: none")
        return
    t = Table(title=f"fidelity vs {f.get('reference')} · seed {f.get('inputs', {}).get('seed')}",
              title_justify="left")
    for c in ("max abs error", "mean abs error", "cosine similarity", "top-1 agreement", "ok"):
        t.add_column(c, justify="right")
    top1 = f.get("top1_agreement")
    t.add_row(_f(f.get("max_abs_error"), 4), _f(f.get("mean_abs_error"), 4), _f(f.get("cosine_similarity"), 6),
              "-" if top1 is None else f"{top1 * 100:.0f} % of {f.get('top1_rows')}",
              "yes" if f.get("ok") else "[yellow]no[/yellow]")
    out.print(t)


def render_ops(ops: dict[str, Any], k: int = 10) -> None:
    from ..opprofile import top

    if not ops.get("available"):
        counts = ops.get("op_counts") or {}
        listed = ", ".join(f"{name} ×{n}" for name, n in sorted(counts.items(), key=lambda kv: -kv[1]))
        out.print(f"op profile: none ({ops.get('reason')})" + (f"\n  ops in the graph: {listed}" if listed else ""))
        return
    t = Table(title=f"top ops · {ops.get('source')} · {ops.get('iterations')} runs (separate pass)",
              title_justify="left")
    for c in ("node", "op type", "ms/run", "share"):
        t.add_column(c, justify="left" if c in ("node", "op type") else "right", overflow="fold")
    for n in top(ops, k):
        t.add_row(str(n["name"]), str(n["op_type"]), _f(n["ms_per_run"], 4),
                  "-" if n.get("share") is None else f"{n['share'] * 100:.1f} %")
    out.print(t)
    types = top(ops, 6, by="op_type")
    out.print("by op type: " + ", ".join(f"{t['op_type']} {t['share'] * 100:.1f} %" for t in types
                                         if t.get("share") is not None))


def render_ops_side_by_side(view: dict[str, Any]) -> None:
    t = Table(title="ops side by side (ms per run · share)", title_justify="left")
    t.add_column("op type")
    for label in view["columns"]:
        t.add_column(label, justify="right", overflow="fold")
    for row in view["rows"]:
        t.add_row(row["op_type"], *["-" if c is None else f"{_f(c['ms_per_run'], 3)} · {c['share'] * 100:.1f} %"
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
