"""The `phone` section of a Result (schema 8): what LiteRT's benchmark_model did on an Android phone.

Owns: the fields a phone run has and a board's run has not — benchmark_model's command line and binary, the
delegate asked for and what it took of the graph, benchmark_model's init and first-inference times, its warm-up
runs, its memory footprint deltas, the framework's thermal status before and after, the battery at the start and its
deviations from the kernel ABI.
Does not own: the statistics of the timed runs (LatencyStats with source "benchmark_model"), power (Power with
source "battery" or "rails"), thermal temperatures (Thermal), the phone's facts (Environment.device): those live in the
sections every result has. How the section is made: edgeprof/phone/result.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .sections import Section


@dataclass(frozen=True)
class PhoneBenchmark(Section):
    """benchmark_model's run on the phone. Times in ms, memory in MB as benchmark_model printed them; a thermal
    status is Android's PowerManager THERMAL_STATUS_* (0 none … 6 shutdown), None where dumpsys gave none."""

    SECTION: ClassVar[str] = "phone"
    tool: str = "benchmark_model"
    binary: str | None = None  # the path on the phone
    command: list[str] = field(default_factory=list)
    delegate: str | None = None  # asked for: cpu | xnnpack | gpu | nnapi | hexagon
    # per delegate: {delegate, graph, delegate_kernels} and, where the interpreter logged "Replacing N out of M
    # node(s)", the op counts: ops_on_delegate, ops_total, ops_on_cpu (LiteRT's CPU kernels), partitions, unit
    delegation: list[dict[str, Any]] = field(default_factory=list)
    init_ms: float | None = None  # model load + interpreter and delegate set-up (no inference)
    first_inference_ms: float | None = None  # the first warm-up run
    warmup_runs: int | None = None
    warmup_mean_ms: float | None = None
    memory_init_delta_mb: float | None = None  # footprint after init - at the tool's start
    memory_overall_delta_mb: float | None = None  # footprint after the timed runs - at the tool's start
    thermal_status_before: int | None = None
    thermal_status_after: int | None = None
    battery: dict[str, Any] | None = None  # {status, capacity_pct, deviations (from the kernel ABI)} at the start
