"""Terminal output shared by commands: live progress for a deploy, and the result tables.

Owns: presentation only (rich). Progress and tables go to stderr/stdout respectively, so `--json -` output on
stdout stays clean.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from rich.console import Console
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
    p = r.power
    if p:
        pt = Table(title=f"power · {p.get('source')} {p.get('rail')} ({p.get('covers', '')})", title_justify="left")
        cols = [("mean W", "mean_w"), ("p95 W", "p95_w"), ("idle W", "idle_w"), ("dynamic W", "dynamic_w"),
                ("energy J", "energy_j"), ("mJ/inference", "energy_mj_per_inference"),
                ("inferences/J", "inferences_per_joule"), ("GFLOPS/W", "gflops_per_watt")]
        for name, _ in cols:
            pt.add_column(name, justify="right")
        pt.add_row(*[_f(p.get(k)) for _, k in cols])
        out.print(pt)
    else:
        reason = (r.extra or {}).get("null_reasons", {}).get("power")
        out.print(f"power: none ({reason})" if reason else "power: none")
    compute = (r.extra or {}).get("compute")
    if compute and compute.get("achieved_gflops") is not None:
        out.print(f"compute: {_f(compute['achieved_gflops'], 2)} GFLOPS achieved "
                  f"({compute.get('flops_per_inference'):,} FLOPs per inference)")
    render_fidelity(r)
    ops = (r.extra or {}).get("ops")
    if ops is not None:
        render_ops(ops)
    for w in r.warnings:
        out.print(f"[yellow]warning[/yellow] {w.get('code')}: {w.get('message')}")


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
