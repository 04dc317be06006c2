"""Sustained: a sustained run's windows and what its curve says (schema 7; docs/scenarios.md "sustained").

Owns: the `sustained` section of a Result — the duration and window asked, how the board's state was read, one
SustainedWindow row per window (latency percentiles, throughput and misses from that window's raw samples; the
board's state and power from readings taken during it) and the curve's figures (throttling onset, sustained
ratios, time to steady state, steady-state figures). Does not own: computing them (edgeprof/evaluation/sustained.py),
showing them (cli/ui.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .sections import Section


@dataclass(frozen=True)
class SustainedWindow(Section):
    """One window [start_s, end_s) of the run. Latency in ms and throughput (queries/s, and inferences/s) from
    the raw samples of the queries that started (or were due) in it; `misses`: fixed-rate queries not done
    before the next was due. The board's state: means of the n_readings readings taken in the window (°C per
    zone and the hottest; CPU clocks mean and lowest, MHz; GPU MHz; get_throttled "now" bits); power: mean W of
    the n_power readings in it, energy = mean W x the window, per inference in mJ. NVML (optional, additive: None
    in results from before it): the first NVIDIA GPU's n_nvml readings in the window, their mean board power (W),
    temperature, SM and graphics clocks, and the clock event reason bits seen in any of them."""

    SECTION: ClassVar[str] = "sustained.windows[]"
    index: int
    start_s: float
    end_s: float
    n: int
    p50_ms: float | None = None
    p90_ms: float | None = None
    p99_ms: float | None = None
    max_ms: float | None = None
    mean_ms: float | None = None
    qps: float | None = None
    ips: float | None = None
    misses: int | None = None
    n_readings: int = 0
    zones_c: dict[str, float] = field(default_factory=dict)
    temp_c: float | None = None
    cpu_mhz: float | None = None
    cpu_mhz_min: float | None = None
    gpu_mhz: float | None = None
    throttled: int | None = None
    n_power: int = 0
    mean_w: float | None = None
    energy_j: float | None = None
    mj_per_inference: float | None = None
    n_nvml: int = 0
    nvml_w: float | None = None
    nvml_temp_c: float | None = None
    nvml_sm_mhz: float | None = None
    nvml_graphics_mhz: float | None = None
    nvml_reasons: int | None = None


@dataclass(frozen=True)
class Sustained(Section):
    """A sustained run: its windows and the curve's figures (the rules: docs/scenarios.md, edgeprof/evaluation/sustained.py).
    `onset_*`: the first window whose CPU clock fell more than 5 % below the first window's or whose throttle
    bits rose (None: none did); `sustained_ratio`: the last `last_n` windows' mean throughput ÷ the first
    window's; `p50_ratio`: their mean p50 ÷ the first window's; `steady_window`: the first window of the run's
    steady tail (None: the run ended before a steady state), `time_to_steady_s` its start; `steady_*`: that
    tail's figures (p50/p99 of its pooled raw samples). `nvml_gpu`: the GPU NVML was read from (None: none)."""

    SECTION: ClassVar[str] = "sustained"
    duration_s: float
    window_s: float
    read_period_s: float | None = None
    telemetry_errors: int = 0
    throttle_source: str | None = None
    power_source: str | None = None
    windows: list[SustainedWindow] = field(default_factory=list)
    onset_window: int | None = None
    onset_s: float | None = None
    onset_temp_c: float | None = None
    onset_reason: str | None = None
    last_n: int | None = None
    sustained_ratio: float | None = None
    p50_ratio: float | None = None
    steady_window: int | None = None
    time_to_steady_s: float | None = None
    steady_qps: float | None = None
    steady_p50_ms: float | None = None
    steady_p99_ms: float | None = None
    steady_temp_c: float | None = None
    steady_cpu_mhz: float | None = None
    steady_w: float | None = None
    nvml_gpu: str | None = None

    @classmethod
    def from_dict(cls, d: Any) -> Sustained:
        out = super().from_dict(d)
        rows = [SustainedWindow.from_dict(w) for w in (d.get("windows") or [])]
        return dataclasses.replace(out, windows=rows)
