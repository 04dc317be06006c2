"""Energy per phase of a tool's run on a phone: the durations the tool printed, laid on the phone's clock from the
process's start, and the battery sampler's trace integrated over each timed iteration's windows.

A tool like LiteRT-LM's litert_lm_main prints how long each phase took (its init, each iteration's prefill and decode
turns) but not when on the phone's clock. PhoneRunner.run_tool reads that clock (runner.PHONE_CLOCK, the battery
sampler's own: toybox `date +%s%N`) just before the tool starts and just after it ends, in the same shell line, so
the process's span is known on the samples' clock. The durations are laid end to end from the start: the init,
then each iteration's prefill turn and decode turn (the warm-up first). They must fit the span: their sum may not
exceed it (beyond OVERRUN_SLACK_NS), and the time they leave out (the process's start-up, logging between
iterations, exit: `unaccounted`) may be at most FIT_FRACTION of it, since every window laid after a gap sits up to
that much earlier than it ran. Otherwise there is no energy per phase, and the reason says which way they did not
fit. The windows are the boards' (generative.stats.PhaseWindow): the TTFT window from the prefill's start to the
first token's end (prefill turn + decode turn / tokens: the tool's own GetTimeToFirstToken rule, the first token not
being timed on its own) and the decode window from there to the decode turn's end; stats.phase_energy integrates
the samples over them (trapezoids, linear interpolation at the edges: the integrator boards use), so a constant W
gives W x TTFT / prompt tokens and W x TPOT exactly. A window shorter than COARSE_INTERVALS sample intervals (or
than COARSE_INTERVALS x the unaccounted time) gets a warning that its figure is coarse.

Owns: laying the durations out (lay_out), the fit check and its tolerance, the windows, the energy or the reason
there is none, the coarse warnings. Does not own: what the tool printed (litertlm.py parses it), the sampler and the
clock reads (runner.py), the integration (generative/stats.py), the stored section (records.PhaseEnergy).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..generative.records import PhaseEnergy
from ..generative.stats import PhaseWindow, phase_energy
from .power import PowerReading

FIT_FRACTION = 0.10  # the most of the process's span the tool's durations may leave out
OVERRUN_SLACK_NS = 1_000_000  # the most the durations may exceed the span by (two clocks read by two processes)
COARSE_INTERVALS = 3  # a window shorter than this many sample intervals gets a coarse warning


@dataclass(frozen=True)
class Turns:
    """One iteration as the tool printed it: its prefill turn and decode turn (ns) and the decode turn's tokens."""

    prefill_ns: int
    decode_ns: int
    decode_tokens: int


@dataclass(frozen=True)
class Layout:
    """The durations laid on the phone clock: per iteration (warm-up included) [prefill start, prefill end, first
    token end, decode end] in ns on that clock; `unaccounted_ns` the span's time outside the durations."""

    start_ns: int
    end_ns: int
    accounted_ns: int
    unaccounted_ns: int
    windows: list[tuple[int, int, int, int]]


@dataclass
class PhaseFigures:
    """What phase_figures found: the energy (None with `reason`), the timed windows in ns from the first timed
    prefill's start (generation.windows_ns), the layout, and warnings (coarse windows)."""

    energy: PhaseEnergy | None
    reason: str | None
    windows_ns: list[list[int]] = field(default_factory=list)
    layout: Layout | None = None
    warnings: list[str] = field(default_factory=list)


def lay_out(span_ns: tuple[int, int], init_ns: int, iterations: Sequence[Turns]) -> Layout | str:
    """The init then each iteration's turns, end to end from the span's start; a reason (str) when they do not fit
    the span (see the module's docstring)."""
    start, end = span_ns
    span = end - start
    accounted = init_ns + sum(i.prefill_ns + i.decode_ns for i in iterations)
    unaccounted = span - accounted
    if span <= 0:
        return f"the process's span on the phone clock is {span / 1e9:.6f} s"
    if unaccounted < -OVERRUN_SLACK_NS:
        return (f"they add up to {accounted / 1e9:.3f} s, longer than the process's {span / 1e9:.3f} s on the phone "
                "clock")
    if unaccounted > FIT_FRACTION * span:
        return (f"they add up to {accounted / 1e9:.3f} s of the process's {span / 1e9:.3f} s on the phone clock: "
                f"{unaccounted / 1e9:.3f} s outside them is more than the {FIT_FRACTION:.0%} tolerance, so windows "
                "laid from the start could sit that much early")
    cursor = start + init_ns
    windows = []
    for it in iterations:
        pre_end = cursor + it.prefill_ns
        first = pre_end + round(it.decode_ns / it.decode_tokens)
        dec_end = pre_end + it.decode_ns
        windows.append((cursor, pre_end, first, dec_end))
        cursor = dec_end
    return Layout(start_ns=start, end_ns=end, accounted_ns=accounted, unaccounted_ns=max(unaccounted, 0),
                  windows=windows)


def phase_figures(tool: str, power: PowerReading | None, power_reason: str | None, span_ns: tuple[int, int] | None,
                  init_ns: int, iterations: Sequence[Turns], warmups: int, prompt_tokens: int,
                  gen_tokens: int) -> PhaseFigures:
    """Energy of the TTFT and decode phases over the timed iterations (those after the first `warmups`), from the
    battery samples in `power`; or the reason there is none."""
    if power is None:
        return PhaseFigures(None, f"no power was measured ({power_reason or 'not measured'})")
    if power.source != "battery" or not power.trace_ns:
        return PhaseFigures(None, f"the {power.source} reading is two counter reads around the whole {tool} "
                                  "process, no trace to cut into prefill and decode windows; the power section has "
                                  "the whole process's energy")
    whole = f"the power section has the whole {tool} process's mean W and J"
    if span_ns is None:
        return PhaseFigures(None, f"the phone clock was not read around {tool}; {whole}")
    laid = lay_out(span_ns, init_ns, iterations)
    if isinstance(laid, str):
        return PhaseFigures(None, f"{tool}'s durations (init, then each iteration's prefill and decode turns) do "
                                  f"not fit its process on the phone clock: {laid}; {whole}")
    timed = laid.windows[warmups:]
    origin = timed[0][0]
    t_s = [(t - origin) / 1e9 for t in power.trace_ns]
    interval_s = (power.trace_ns[-1] - power.trace_ns[0]) / 1e9 / (len(power.trace_ns) - 1)
    source = (f"battery, phases from {tool}'s durations anchored at the process start on the phone clock; "
              f"samples every {interval_s:.3g} s; {laid.unaccounted_ns / 1e9:.3f} s of the "
              f"{(laid.end_ns - laid.start_ns) / 1e9:.3f} s process outside the durations")
    wins = [PhaseWindow((a - origin) / 1e9, (c - origin) / 1e9, (d - origin) / 1e9) for a, _, c, d in timed]
    try:
        energy = phase_energy(t_s, list(power.trace_w), wins, prompt_tokens, gen_tokens, source=source)
    except ValueError as e:  # a trace that does not cover a window: never extrapolated
        return PhaseFigures(None, f"no energy per phase: {e}; {whole}", layout=laid)
    warnings = []
    floor_s = max(interval_s, laid.unaccounted_ns / 1e9)
    for name, what, shortest in (
            ("prefill (TTFT)", "J per prompt token", min(w.first_token_end_s - w.prefill_start_s for w in wins)),
            ("decode", "J per token", min(w.end_s - w.first_token_end_s for w in wins) if gen_tokens > 1 else None)):
        if shortest is not None and shortest < COARSE_INTERVALS * floor_s:
            warnings.append(f"energy per phase: the {name} window is {shortest:.3f} s, under {COARSE_INTERVALS} x "
                            f"{floor_s:.3f} s (the battery's sample interval {interval_s:.3f} s; "
                            f"{laid.unaccounted_ns / 1e9:.3f} s of the process outside {tool}'s durations): its "
                            f"{what} is coarse")
    return PhaseFigures(energy, None, windows_ns=[[a - origin, b - origin, c - origin, d - origin]
                                                  for a, b, c, d in timed], layout=laid, warnings=warnings)
