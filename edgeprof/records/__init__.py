"""Typed records that flow through edgeprof, and their versioned JSON form.

One module per responsibility, every name re-exported here (import from `edgeprof.records`):
  spec.py      TensorSpec, Artifact, RunSpec — what to measure and what is pushed
  device.py    Device, local_device — one board of the lab
  section.py   Section — the base of every section (JSON in / out, from_record: what the agent sent)
  sections.py  the typed sections of a Result (LatencyStats, Fidelity, Environment, Settings, Transfer,
               NullReasons, Compute, OpsProfile, IOSummary, SweepInfo, Scenario, Accuracy)
  wire_sections.py  Memory, SystemMemory, Power, PowerTrace, Thermal, ThermalSnapshot (with its probes' records:
               ThermalZone, CpuFreq, GpuFreq, FanState, NvpModel, JetsonClocks, RpiState, RpiThrottled,
               NvmlGpu), CooldownWait, RunWarning — the sections that hold what the agent sends, rendered
               from its records (messages.py) by tests/unit/test_wire_sections.py
  device_facts.py  PhoneDeviceFacts, DeviceFacts — Environment.device by kind (schema 10; a board's facts are
               wire_sections.BoardFacts, with L4TRelease and RuntimeFact)
  options.py   OnnxExportOptions, TfliteExportOptions, GenerativeBuild (ExportOptions: an artifact's, by kind),
               RuntimeFacts with RuntimeOptions, RunGpu, PhoneTool — typed export and runtime options (schema 12)
  phases.py    Phases — seconds per phase of one measurement (schema 6)
  sustained.py Sustained, SustainedWindow — a sustained run's windows and curve figures (schema 7)
  phone.py     PhoneBenchmark — what benchmark_model did on a phone (schema 8)
  generation.py  Generation, Spread, PhaseEnergy — a generative model's TTFT, tokens/s, J/token (schema 10)
  samples.py   Samples — raw numbers as one float64 array, and their packed stored form (schema 9)
  result.py    Result (frozen: built once, by run/assemble.py), run ids, timestamps
  schema.py    RESULT_SCHEMA_VERSION, the format history and the migrations from every older version
  jsonio.py    dumps_json, finite_or_null — the one way edgeprof writes JSON
Does not own: how records are produced (stats, run/, fidelity, opprofile, lab/scheduler), stored (store) or
shown (cli, report); the identity of a configuration (vocab.ConfigIdentity; Result.identity builds it).
"""

from __future__ import annotations

from .device import Device, local_device
from .device_facts import DeviceFacts, PhoneDeviceFacts
from .generation import Generation, PhaseEnergy, Spread
from .jsonio import dumps_json, finite_or_null
from .options import (
    ExportOptions,
    ExternalData,
    GenerativeBuild,
    OnnxExportOptions,
    PhoneTool,
    RunGpu,
    RuntimeFacts,
    RuntimeOptions,
    TfliteExportOptions,
)
from .phases import Phases
from .phone import PhoneBenchmark
from .result import RESULT_KEYS, RESULT_TAIL_KEYS, Result, new_run_id, utc_now
from .samples import Samples
from .schema import RESULT_SCHEMA_VERSION
from .sections import (
    Accuracy,
    Compute,
    CooldownWait,
    CpuFreq,
    Environment,
    FanState,
    Fidelity,
    GpuFreq,
    IOSummary,
    IOTensor,
    JetsonClocks,
    LatencyStats,
    Memory,
    NullReasons,
    NvmlGpu,
    NvpModel,
    OpsProfile,
    OutputError,
    Power,
    PowerTrace,
    RpiState,
    RpiThrottled,
    RunWarning,
    Scenario,
    Section,
    Settings,
    SweepInfo,
    SystemMemory,
    Thermal,
    ThermalSnapshot,
    ThermalZone,
    Transfer,
)
from .spec import DTYPES, Artifact, RunSpec, TensorSpec
from .sustained import Sustained, SustainedWindow
from .wire_sections import BoardFacts, L4TRelease, RuntimeFact

__all__ = [
    "DTYPES", "RESULT_KEYS", "RESULT_SCHEMA_VERSION", "RESULT_TAIL_KEYS", "Accuracy", "Artifact", "BoardFacts",
    "Compute", "CooldownWait", "CpuFreq", "Device", "DeviceFacts", "Environment", "ExportOptions", "ExternalData",
    "FanState", "Fidelity", "GenerativeBuild", "Generation", "OnnxExportOptions", "PhoneTool", "RunGpu", "RuntimeFacts",
    "RuntimeOptions", "TfliteExportOptions",
    "GpuFreq", "IOSummary", "IOTensor", "JetsonClocks", "L4TRelease", "LatencyStats", "Memory", "NullReasons",
    "NvmlGpu", "NvpModel", "OpsProfile", "OutputError", "PhaseEnergy", "Phases", "PhoneBenchmark", "PhoneDeviceFacts",
    "Power", "PowerTrace", "Result", "RpiState", "RpiThrottled", "RunSpec", "RunWarning", "RuntimeFact", "Samples",
    "Scenario", "Section", "Settings", "Spread", "Sustained", "SustainedWindow", "SweepInfo",
    "SystemMemory", "TensorSpec", "Thermal", "ThermalSnapshot", "ThermalZone", "Transfer", "dumps_json",
    "finite_or_null", "local_device", "new_run_id", "utc_now",
]
