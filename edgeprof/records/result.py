"""Result: one measured run, and its versioned JSON form.

Owns: the Result record (frozen: built once), its key order, run ids and timestamps, and the names of the keys
`results show --json` adds beside a result at read time (SHOWN_KEYS: not stored, dropped on load). Does not own: the
sections (sections.py), the schema history and migrations (schema.py), how a Result is built (run/assemble.py).
"""

from __future__ import annotations

import datetime as _dt
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import StoreError
from ..vocab import ConfigIdentity, scenario_label
from .generation import Generation
from .jsonio import dumps_json
from .phases import Phases
from .phone import PhoneBenchmark
from .samples import NS_PER_MS, TENTH_US_PER_MS, Samples
from .schema import _MIGRATIONS, RESULT_SCHEMA_VERSION
from .sections import (
    Accuracy,
    Compute,
    Environment,
    Fidelity,
    IOSummary,
    LatencyStats,
    Memory,
    NullReasons,
    OpsProfile,
    Power,
    RunWarning,
    Scenario,
    Section,
    Settings,
    SweepInfo,
    Thermal,
    Transfer,
    _plain,
)
from .sessions import Sessions
from .spec import Artifact
from .sustained import Sustained


def new_run_id() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


RESULT_KEYS = (
    "schema_version", "run_id", "status", "created_at", "device", "model", "runtime", "precision", "batch",
    "threads", "latency_ms", "throughput_ips", "memory_mb", "power", "thermal", "fidelity", "environment",
    "warnings", "samples_ms",
)
# after RESULT_KEYS, in this order (schema 2: the sections that lived in `extra` are top-level and typed)
RESULT_TAIL_KEYS = ("artifact", "settings", "transfer", "reason", "null_reasons", "compute", "ops", "sweep",
                    "stderr_tail", "io", "scenario", "accuracy", "phases", "sustained", "phone", "generation")
# after those, written only when set (additive within schema 12: absent in a result without it, and in older ones)
RESULT_WHEN_SET_KEYS = ("sessions",)
# keys `results show --json` adds after the result's own when it shows one: read-time joins from other tables (the
# newest stored prediction of the run's configuration, cli/predicted.py), never stored and part of no schema
# version; from_dict drops them, so a shown result still loads and imports as the stored one
SHOWN_KEYS = ("prediction",)


@dataclass(frozen=True)
class Result:
    """One measured run, built once (run/assemble.py; a failed or skipped row by lab/scheduler.py) and never
    changed: assigning to a field raises (a derived Result is dataclasses.replace(result, ...)).
    `to_dict()` has the top-level keys RESULT_KEYS then RESULT_TAIL_KEYS, then those of RESULT_WHEN_SET_KEYS set."""

    run_id: str
    status: str  # "ok" | "failed" | "skipped"
    created_at: str
    device: str
    model: str
    runtime: str
    precision: str
    batch: int
    threads: int | None
    latency_ms: LatencyStats | None
    throughput_ips: float | None
    memory_mb: Memory | None
    power: Power | None
    thermal: Thermal | None
    fidelity: Fidelity | None
    environment: Environment
    warnings: list[RunWarning]
    samples_ms: Sequence[float]  # every raw latency, in order: held as Samples (one float64 array, samples.py)
    artifact: Artifact | None = None
    settings: Settings = field(default_factory=Settings)
    transfer: Transfer | None = None
    reason: str | None = None  # for failed / skipped
    null_reasons: NullReasons = field(default_factory=NullReasons)
    compute: Compute | None = None
    ops: OpsProfile | None = None
    sweep: SweepInfo | None = None  # a sweep row: its sweep, cell and budgets
    stderr_tail: str | None = None  # a failed row: the end of the device's stderr or the traceback
    io: IOSummary | None = None  # inputs as fed, outputs, load and first-inference time (None: not recorded)
    scenario: Scenario = field(default_factory=Scenario)  # the load scenario (single-stream unless asked)
    accuracy: Accuracy | None = None  # the accuracy pass (--accuracy): None when not asked or not made
    phases: Phases | None = None  # seconds per phase (schema 6; None: a row without a measurement, or older)
    sustained: Sustained | None = None  # the sustained scenario's windows and curve (schema 7)
    phone: PhoneBenchmark | None = None  # a phone's run: benchmark_model on the phone (schema 8)
    generation: Generation | None = None  # a generative model's run: TTFT, tokens/s, J/token (schema 10)
    sessions: Sessions | None = None  # --sessions N: each session's figures and samples (within 12, when set)
    schema_version: int = RESULT_SCHEMA_VERSION

    def __post_init__(self) -> None:
        if not isinstance(self.samples_ms, Samples):  # a list given (a failed row's [], a test's numbers)
            object.__setattr__(self, "samples_ms", Samples(self.samples_ms))

    @property
    def identity(self) -> ConfigIdentity:
        """The configuration this result measured (vocab.ConfigIdentity: store, compare, reports, sweeps)."""
        a = self.artifact
        content = a.content if a is not None else None
        fed = self.settings.inputs
        shapes = tuple((str(i["name"]), tuple(int(d) for d in i["shape"])) for i in fed) if fed else None
        sc, kept = self.scenario, vars(self.settings)  # run settings are fields the table adds (sections.py)
        label = sc.label if sc.name != "sustained" else scenario_label(  # with its duration and window
            sc.name, sc.rate_qps, duration_s=kept.get("duration_s"), window_s=kept.get("sustained_window_s"))
        g = self.generation
        if g is not None and label is None:  # a generation's shape (llama-bench's names): depth 0 and 2048 differ
            label = f"pp{g.prompt_tokens} tg{g.tokens}" + (f" @ d{g.depth}" if g.depth else "")
        elif g is not None and g.depth:  # a server or sustained generation at a depth (depth 0: as before)
            label = f"{label} @ d{g.depth}"
        return ConfigIdentity(self.device, self.model, self.runtime, self.precision, self.batch, self.threads,
                              a.source if a else None, content, shapes, scenario=label, accelerator=self.accelerator())

    def accelerator(self) -> str | None:
        """The accelerator beyond the CPU the run asked its runtime for, part of its configuration (a CUDA run and
        a CPU run of one model are two configurations): onnxruntime-genai's provider option when not "cpu", or
        onnxruntime's first execution provider (as asked, else as used) when not CPUExecutionProvider, or a
        phone's delegate when it is not the CPU's (gpu, nnapi, hexagon, an external one; cpu and xnnpack: None).
        None on the CPU, and for runtimes that name their device by the runtime itself (TensorRT)."""
        if self.phone is not None and self.phone.delegate and self.phone.delegate not in ("cpu", "xnnpack"):
            return self.phone.delegate
        rt = self.environment.runtime
        if rt is None:
            return None
        opts = rt.options
        if opts is not None and opts.provider and opts.provider != "cpu":
            return opts.provider
        asked = (opts.providers_requested if opts is not None else None) or rt.providers
        if self.runtime == "onnxruntime" and asked and asked[0] != "CPUExecutionProvider":
            return str(asked[0])
        return None

    def to_dict(self, packed: bool = False) -> dict[str, Any]:
        """The JSON object. `packed`: the raw samples and the scenario's issue and due times in their compact
        form (samples.py; what the store and recovery files hold); otherwise as JSON numbers (--json exports)."""
        d = {k: _plain(getattr(self, k)) if k not in ("warnings", "samples_ms") else None
             for k in RESULT_KEYS + RESULT_TAIL_KEYS}
        d["warnings"] = [w.to_dict() for w in self.warnings]
        samples = Samples(self.samples_ms)  # the one it holds (no copy)
        d["samples_ms"] = samples.packed(NS_PER_MS) if packed else samples.tolist()
        if self.sessions is not None:  # RESULT_WHEN_SET_KEYS; each session's raw samples packed, as samples_ms
            d["sessions"] = self.sessions.stored() if packed else self.sessions.to_dict()
        if packed:
            if self.generation is not None:  # a scenario's every token time, packed (Generation.stored)
                d["generation"] = self.generation.stored()
            sc = d["scenario"]
            assert isinstance(sc, dict)
            sc["scheduled_ms"] = Samples(self.scenario.scheduled_ms).packed(TENTH_US_PER_MS)
            sc["issued_ms"] = Samples(self.scenario.issued_ms).packed(TENTH_US_PER_MS)
        return d

    def to_json(self, indent: int | None = None, packed: bool = False,
                shown: Mapping[str, Any] | None = None) -> str:
        """The JSON text (to_dict's). Unpacked, the raw samples and times are written as numbers a block at a time
        and on one line each (Samples.json_numbers: a 30-minute run's tens of millions of them through json's
        indenting encoder would take gigabytes). `shown`: read-time keys (SHOWN_KEYS only) written after the
        result's own."""
        extra = dict(shown or {})
        if set(extra) - set(SHOWN_KEYS):
            raise ValueError(f"not a shown key: {sorted(set(extra) - set(SHOWN_KEYS))}")
        if packed:
            return dumps_json({**self.to_dict(packed=True), **extra}, indent=indent)
        d = {**self.to_dict(packed=True), **extra}
        if self.generation is not None:  # token times as numbers (the packed form is the store's)
            d["generation"] = self.generation.to_dict()
        token = f"edgeprof-samples-{uuid.uuid4().hex}"
        lists = {f'"{token}-0"': Samples(self.samples_ms), f'"{token}-1"': Samples(self.scenario.scheduled_ms),
                 f'"{token}-2"': Samples(self.scenario.issued_ms)}
        if self.sessions is not None:  # each session's samples as numbers on one line, as samples_ms

            def placed(samples: Samples) -> str:
                lists[f'"{token}-{len(lists)}"'] = samples
                return f"{token}-{len(lists) - 1}"

            d["sessions"] = self.sessions.written(placed)
        d["samples_ms"] = f"{token}-0"
        d["scenario"]["scheduled_ms"] = f"{token}-1"
        d["scenario"]["issued_ms"] = f"{token}-2"
        text = dumps_json(d, indent=indent)
        for mark, samples in lists.items():
            head, tail = text.split(mark, 1)
            text = head + samples.json_numbers() + tail
        return text

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Result:
        """A Result from its JSON of any schema version up to RESULT_SCHEMA_VERSION, migrated step by step."""
        version = d.get("schema_version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise StoreError("result has no integer schema_version; it was not written by edgeprof",
                             hint="read only files written by edgeprof deploy --json or results show --json")
        if version > RESULT_SCHEMA_VERSION:
            raise StoreError(
                f"result {d.get('run_id', '?')} has schema version {version}, newer than this edgeprof "
                f"understands ({RESULT_SCHEMA_VERSION})",
                hint="upgrade edgeprof (pip install -U edgeprof) to read it",
            )
        data = {k: v for k, v in d.items() if k not in SHOWN_KEYS}  # read-time joins of `results show --json`
        while data["schema_version"] < RESULT_SCHEMA_VERSION:
            data = _MIGRATIONS[data["schema_version"]](data)
        unknown = sorted(set(data) - set(RESULT_KEYS + RESULT_TAIL_KEYS + RESULT_WHEN_SET_KEYS))
        if unknown:
            raise StoreError(f"result {data.get('run_id', '?')} has unknown field(s) {', '.join(map(repr, unknown))}",
                             hint="it was written by another edgeprof version; upgrade edgeprof to read it")
        kw: dict[str, Any] = {k: v for k, v in data.items() if k != "schema_version"}
        for key, section in _OPTIONAL_SECTIONS.items():
            v = kw.pop(key, None)
            kw[key] = None if v is None else section.from_dict(v)
        kw["environment"] = Environment.from_dict(kw.pop("environment", None) or {})
        kw["settings"] = Settings.from_dict(kw.pop("settings", None) or {})
        kw["null_reasons"] = NullReasons.from_dict(kw.pop("null_reasons", None) or {})
        kw["scenario"] = Scenario.from_dict(kw.pop("scenario", None) or {})
        kw["warnings"] = [RunWarning.from_dict(w) for w in kw.pop("warnings", None) or []]
        kw["samples_ms"] = Samples.from_json(kw.pop("samples_ms", None), "samples_ms")
        art = kw.pop("artifact", None)
        kw["artifact"] = None if art is None else Artifact.from_dict(art)
        try:
            return cls(**kw)
        except TypeError as e:
            raise StoreError(f"result {data.get('run_id', '?')} does not fit schema {RESULT_SCHEMA_VERSION}: {e}",
                             hint="the result JSON is damaged; rerun the measurement") from None

    def warning_codes(self) -> list[str]:
        return [w.code for w in self.warnings]


_OPTIONAL_SECTIONS: dict[str, type[Section]] = {
    "latency_ms": LatencyStats, "memory_mb": Memory, "power": Power, "thermal": Thermal, "fidelity": Fidelity,
    "transfer": Transfer, "compute": Compute, "ops": OpsProfile, "sweep": SweepInfo, "io": IOSummary,
    "accuracy": Accuracy, "phases": Phases, "sustained": Sustained, "phone": PhoneBenchmark,
    "generation": Generation, "sessions": Sessions,
}
