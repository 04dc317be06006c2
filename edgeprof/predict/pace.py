"""The board's speed through its calibration, from the speed probe (calibrate.py times it; table.SpeedProbe holds
its samples): what fit.py divides each calibration model's times by.

Owns: `probe_reference` (the probe's median p50: the speed a paced table predicts for), `paced_models` (each model's
times divided by the probe's speed at its time, linear between probes, over that median) and `moved_warning` (the
line a prediction carries when the probe moved more than PACE_WARN). The interval's probe term (fit.pace_spread)
is fit.py's, beside its other conformal quantiles.
Does not own: timing the probe (calibrate.py), the method's other parts (fit.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from .table import CalibrationModel, CalibrationTable

__all__ = ["PACE_WARN", "probe_reference", "paced_models", "moved_warning"]

PACE_WARN = 0.10  # a probe that moved more than this (max/min − 1) during the calibration is warned of


def probe_reference(table: CalibrationTable) -> float | None:
    """The speed probe's median p50 (ms): the board speed a paced table's predictions are for; None without one."""
    ms = table.probe.p50s() if table.probe is not None else []
    return float(np.median(ms)) if ms else None


def _speed_at(samples: Sequence[tuple[float, float]], at_s: float) -> float:
    """The probe's p50 at `at_s`: linear between the probes around it, the nearest one's outside them."""
    pts = sorted(samples)
    return float(np.interp(at_s, [t for t, _ in pts], [ms for _, ms in pts]))


def paced_models(table: CalibrationTable, pace: bool = True) -> list[CalibrationModel]:
    """The table's models with their times divided by the board's relative speed when each was measured (`pace`,
    a speed probe in the table, the model's at_s known); the others as they are."""
    ref = probe_reference(table)
    if not pace or ref is None or table.probe is None:
        return list(table.models)
    out = []
    for m in table.models:
        if m.at_s is None:
            out.append(m)
            continue
        f = _speed_at(table.probe.samples, m.at_s) / ref
        out.append(dataclasses.replace(
            m, p50_ms=m.p50_ms / f, unmatched_us=m.unmatched_us / f,
            profiled_run_ms=None if m.profiled_run_ms is None else m.profiled_run_ms / f,
            kernels=tuple(dataclasses.replace(mk, us=None if mk.us is None else mk.us / f) for mk in m.kernels)))
    return out


def moved_warning(table: CalibrationTable, paced: bool) -> str | None:
    """A prediction's warning when the board's speed probe moved more than PACE_WARN during the calibration."""
    probe = table.probe
    ms = probe.p50s() if probe is not None else []
    if probe is None or len(ms) < 2 or max(ms) / min(ms) - 1 <= PACE_WARN:
        return None
    what = ("the table's times are scaled to its median speed and the interval holds the spread" if paced
            else "the table's times are taken as measured")
    return (f"the board's speed moved during its calibration: the speed probe ({probe.model}) ran "
            f"{min(ms):.3g}–{max(ms):.3g} ms over {len(ms)} probes (×{max(ms) / min(ms):.2f}); {what} — "
            f"calibrate it idle, with its clocks fixed, for a narrower one")
