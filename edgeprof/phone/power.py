"""What one phone run's power reading is, typed (session.PhoneRun.power): the battery sampler's trace
(session.battery_power) or two reads of the ODPM rails (rails.rails_power); result.py makes the stored Power
section of it.

Owns: the two records and their fields' units. Does not own: reading the battery or the rails (runner.py,
rails.py), the stored section (records.Power, built in result.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RailEnergy:
    """One ODPM rail over the window: its energy (J) and mean power (W) from its own counter and timestamps."""

    rail: str
    meter: str  # iio:deviceN
    channel: int
    energy_j: float
    mean_w: float
    duration_s: float


@dataclass(frozen=True)
class PowerReading:
    """A phone run's power over the whole benchmark_model process. `source` "battery": the sampler's samples
    (`max_w`, `discharge_sign` from them; energy is mean × duration); "rails": the sum of `rails` (energy from the
    counters, two samples: before and after). `energy_per_inference_j` and its note: the mean power × the timed
    runs' mean latency (set once benchmark_model's output is read). `trace_ns` / `trace_w`: the battery sampler's
    samples themselves (none for the rails: two counter reads are no trace)."""

    source: str  # "battery" | "rails"
    covers: str  # what the reading covers, in words
    mean_w: float
    samples: int
    duration_s: float
    clock: str  # whose clock timed the samples
    max_w: float | None = None
    energy_j: float | None = None
    discharge_sign: str | None = None  # battery: "negative" (the kernel ABI's) | "positive" | "mixed"
    rails: tuple[RailEnergy, ...] = ()
    energy_per_inference_j: float | None = None
    energy_note: str | None = None
    # battery: every sample as taken (phone clock ns, W), for cutting into windows (litertlm.py's phases)
    trace_ns: tuple[int, ...] = ()
    trace_w: tuple[float, ...] = ()
