"""Typed records that flow through edgeprof, and their versioned JSON form.

One module per responsibility, every name re-exported here (import from `edgeprof.records`):
  spec.py      TensorSpec, Artifact, RunSpec — what to measure and what is pushed
  device.py    Device, local_device — one board of the lab
  sections.py  the typed sections of a Result (LatencyStats, Memory, Power, Thermal, Fidelity, Environment,
               Settings, Transfer, RunWarning, NullReasons, Compute, OpsProfile, IOSummary, SweepInfo, Scenario,
               Accuracy)
  phases.py    Phases — seconds per phase of one measurement (schema 6)
  sustained.py Sustained, SustainedWindow — a sustained run's windows and curve figures (schema 7)
  phone.py     PhoneBenchmark — what benchmark_model did on a phone (schema 8)
  samples.py   Samples — raw numbers as one float64 array, and their packed stored form (schema 9)
  result.py    Result (frozen: built once, by run/assemble.py), run ids, timestamps
  schema.py    RESULT_SCHEMA_VERSION, the format history and the migrations from every older version
  jsonio.py    dumps_json, finite_or_null — the one way edgeprof writes JSON
Does not own: how records are produced (stats, run/, fidelity, opprofile, lab/scheduler), stored (store) or
shown (cli, report); the identity of a configuration (vocab.ConfigIdentity; Result.identity builds it).
"""

from __future__ import annotations

from .device import Device, local_device
from .jsonio import dumps_json, finite_or_null
from .phases import Phases
from .phone import PhoneBenchmark
from .result import RESULT_KEYS, RESULT_TAIL_KEYS, Result, new_run_id, utc_now
from .samples import Samples
from .schema import RESULT_SCHEMA_VERSION
from .sections import (
    Accuracy,
    Compute,
    CooldownWait,
    Environment,
    Fidelity,
    IOSummary,
    IOTensor,
    LatencyStats,
    Memory,
    NullReasons,
    OpsProfile,
    OutputError,
    Power,
    PowerTrace,
    RunWarning,
    Scenario,
    Section,
    Settings,
    SweepInfo,
    SystemMemory,
    Thermal,
    ThermalSnapshot,
    Transfer,
)
from .spec import DTYPES, Artifact, RunSpec, TensorSpec
from .sustained import Sustained, SustainedWindow

__all__ = [
    "DTYPES", "RESULT_KEYS", "RESULT_SCHEMA_VERSION", "RESULT_TAIL_KEYS", "Accuracy", "Artifact", "Compute",
    "CooldownWait", "Device", "Environment", "Fidelity", "IOSummary", "IOTensor", "LatencyStats", "Memory",
    "NullReasons", "OpsProfile", "OutputError", "Phases", "PhoneBenchmark", "Power", "PowerTrace", "Result", "RunSpec", "RunWarning", "Samples",
    "Scenario",
    "Section", "Settings", "Sustained", "SustainedWindow", "SweepInfo", "SystemMemory", "TensorSpec", "Thermal", "ThermalSnapshot", "Transfer",
    "dumps_json", "finite_or_null", "local_device", "new_run_id", "utc_now",
]
