"""One definition per notion across the wire: the Result sections that hold what the agent sends
(edgeprof/records/wire_sections.py) are rendered from the FIELDS of the agent's records (messages.py), as
messages.pyi is. The test below compares the module with a fresh rendering (`python tests/unit/test_wire_sections.py`
rewrites it), so a field the agent gains, loses or retypes is a field of the stored section at once (and a schema
question for the host, asked by the golden results). The other tests check what the rendering promises: a reply's
record becomes its section unchanged, the host-only fields are the only extra ones, and the sustained window rows
copy the agent's readings by the agent's own field list."""

from __future__ import annotations

import dataclasses
import inspect
import textwrap
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from edgeprof.evaluation.sustained import AGENT_FIELDS, window_rows
from edgeprof.records import Memory, Power, RunWarning, Thermal, ThermalSnapshot
from edgeprof.records import wire_sections as ws
from edgeprof.records.sustained import SustainedWindow
from edgeprof_agent import messages as m
from edgeprof_agent.record import REQUIRED

REPO = Path(__file__).resolve().parents[2]
MODULE = REPO / "edgeprof" / "records" / "wire_sections.py"


class Extra(NamedTuple):
    """A host-only field of a rendered section: its type, default (source text), the wire field it follows (None:
    last) and a comment."""

    name: str
    type: str
    default: str
    after: str | None
    comment: str


class Rendered(NamedTuple):
    host: str  # the section's class name on the host
    wire: type[m.Record]  # the agent's record it holds
    section: str  # Section.SECTION (error messages)
    extra: tuple[Extra, ...] = ()
    optional: tuple[str, ...] = ()  # fields the agent must send that a host section may lack (a phone's run)
    base: str = "Section"
    note: str = ""  # what the host adds, after the record's own docstring


SECTIONS = (
    Rendered("SystemMemory", m.SystemMemory, "memory_mb.system"),
    Rendered("Memory", m.Memory, "memory_mb",
             extra=(Extra("artifact_size", "float | None", "None", "gpu_process_bytes", "MB, the host's"),),
             optional=("peak_source",),
             note="The host adds `artifact_size` (the artifact's size, MB); a phone's run has no peak_source when "
                  "benchmark_model reported no peak."),
    Rendered("PowerTrace", m.PowerTrace, "power trace"),
    Rendered("Power", m.PowerSummary, "power",
             extra=(Extra("rails_energy_j", "dict[str, float] | None", "None", "rails",
                          "schema 8: each rail's energy from its own counter (phone ODPM)"),
                    Extra("achieved_gflops", "float | None", "None", None, "the host's, when the FLOPs are known"),
                    Extra("gflops_per_watt", "float | None", "None", None, "the host's, when the FLOPs are known")),
             note="The host adds `rails_energy_j` (schema 8, optional: each rail's energy in J where a meter counts "
                  "energy, a phone's ODPM rails) and achieved_gflops / gflops_per_watt when the FLOPs are known."),
    Rendered("ThermalZone", m.ThermalZone, "thermal snapshot zone"),
    Rendered("CpuFreq", m.CpuFreq, "thermal snapshot cpufreq"),
    Rendered("GpuFreq", m.GpuFreq, "thermal snapshot gpu_freq"),
    Rendered("FanState", m.FanState, "thermal snapshot fan"),
    Rendered("NvpModel", m.NvpModel, "thermal snapshot nvpmodel"),
    Rendered("JetsonClocks", m.JetsonClocks, "thermal snapshot jetson_clocks"),
    Rendered("RpiThrottled", m.RpiThrottled, "thermal snapshot rpi.throttled"),
    Rendered("RpiState", m.RpiState, "thermal snapshot rpi"),
    Rendered("NvmlGpu", m.NvmlGpu, "thermal snapshot nvml"),
    Rendered("ThermalSnapshot", m.ThermalSnapshot, "thermal snapshot", base="ThermalSnapshotReads"),
    Rendered("CooldownWait", m.CooldownWait, "thermal cooldown"),
    Rendered("Thermal", m.ThermalReply, "thermal"),
    Rendered("L4TRelease", m.L4TRelease, "environment.device.l4t"),
    Rendered("RuntimeFact", m.RuntimeFact, "environment.device.runtimes"),
    Rendered("BoardFacts", m.Facts, "environment.device",
             extra=(Extra("kind", 'Literal["board"]', '"board"', None,
                          "schema 10: which kind of Environment.device this is"),),
             optional=tuple(f.name for f in m.Facts.FIELDS if f.default is REQUIRED),
             note="Schema 10: a board's facts as the Result stores them (Environment.device); every field may be "
                  "null (a result whose facts were not all read: unknown), and `kind` is \"board\"."),
    Rendered("RunWarning", m.RunWarning, "warnings",
             note="The host's own warnings (high_cv, few_queries, fidelity, ...) are made with it too."),
)
HOST_OF = {s.wire: s.host for s in SECTIONS}
_PY = {bool: "bool", int: "int", float: "float", str: "str", list: "list[Any]", dict: "dict[str, Any]"}


def _type(f: Any, optional: bool) -> str:
    if f.record is not None:
        host = HOST_OF[f.record]
        t = f"dict[str, {host}]" if f.keyed else f"list[{host}]" if f.many else host
    else:
        names = [_PY[t] for t in f.types]
        if "int" in names and "float" in names:
            names.remove("int")  # an int is a float to mypy
        t = " | ".join(names)
        if f.of is not None:
            items = [_PY[o] for o in f.of]
            if "int" in items and "float" in items:
                items.remove("int")
            t = t.replace("list[Any]", f"list[{' | '.join(items)}]")
    return f"{t} | None" if f.nullable or optional else t


def _default(f: Any, optional: bool) -> str | None:
    d = f.default
    if d is REQUIRED:
        return "None" if optional else None
    if d == [] or d == {}:
        return f"field(default_factory={type(d).__name__})"
    if isinstance(d, list | dict):
        raise ValueError(f"{f.name}: a non-empty default {d!r} is not rendered")
    return repr(d)


def _doc(spec: Rendered) -> list[str]:
    own = inspect.getdoc(spec.wire) if "__doc__" in spec.wire.__dict__ and spec.wire.__doc__ else None
    text = (own + "\n\n" if own else "") + (f"The agent's {spec.wire.NAME} ({spec.wire.__module__.rsplit('.', 1)[1]}.{spec.wire.__name__}), as the "
                                            "Result stores it. " + spec.note).rstrip()
    paras = [textwrap.fill(" ".join(p.split()), 106) if i == len(text.split("\n\n")) - 1 else p
             for i, p in enumerate(text.split("\n\n"))]
    lines = "\n\n".join(paras).split("\n")
    lines[0] = '"""' + lines[0]
    lines[-1] += '"""'
    return [("    " + x) if x else "" for x in lines]


def render_module() -> str:
    out = [
        "# Rendered from the FIELDS of agents/edgeprof_agent/messages.py (and snapshots.py, which it re-exports) by",
        "# tests/unit/test_wire_sections.py (run it to rewrite); do not edit.",
        '"""The Result sections that hold what the agent sends: one frozen Section per agent record, with the',
        "record's fields (names, order, types, defaults) and the few the host adds.",
        "",
        "Owns: nothing by hand — each class is rendered from its record in edgeprof_agent/messages.py, the one",
        "definition of the notion on both sides of the wire (run/assemble.py fills a section with",
        "Section.from_record). Does not own: the agent's records (messages.py), Section and the host's reads",
        "(section.py), the other sections (sections.py and beside it).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "import dataclasses",
        "from collections.abc import Mapping",
        "from dataclasses import dataclass, field",
        "from typing import Any, ClassVar, Literal",
        "",
        "from .section import Section, ThermalSnapshotReads, _keyed, _many, _opt",
    ]
    for spec in SECTIONS:
        optional = set(spec.optional)
        fields: list[tuple[str, str, str | None, str]] = []
        for f in spec.wire.FIELDS:
            fields.append((f.name, _type(f, f.name in optional), _default(f, f.name in optional), ""))
            fields += [(x.name, x.type, x.default, x.comment) for x in spec.extra if x.after == f.name]
        fields += [(x.name, x.type, x.default, x.comment) for x in spec.extra if x.after is None]
        seen_default = False
        out += ["", "", "@dataclass(frozen=True)", f"class {spec.host}({spec.base}):" if spec.base == "Section"
                else f"class {spec.host}({spec.base}, Section):", *_doc(spec), "",
                f'    SECTION: ClassVar[str] = "{spec.section}"']
        if spec.wire.OMIT_NONE:
            out.append("    OMIT_NONE: ClassVar[bool] = True")
        for name, t, default, comment in fields:
            if default is None and seen_default:
                raise ValueError(f"{spec.host}.{name}: a required field after one with a default")
            seen_default = seen_default or default is not None
            out.append(f"    {name}: {t}" + (f" = {default}" if default is not None else "")
                       + (f"  # {comment}" if comment else ""))
        nested = [f for f in spec.wire.FIELDS if f.record is not None]
        if nested:
            out += ["", "    @classmethod", f"    def from_dict(cls, d: Mapping[str, Any]) -> {spec.host}:",
                    "        flat = super().from_dict(d)"]
            args = []
            for f in nested:
                host = HOST_OF[f.record]
                helper = "_keyed" if f.keyed else "_many" if f.many else "_opt"
                args.append(f"{f.name}={helper}({host}, flat.{f.name})")
            out.append("        return dataclasses.replace(flat, " + ",\n                                   ".join(args) + ")")
    return "\n".join(out) + "\n"


def test_the_rendered_sections_match_the_agents_records() -> None:
    assert MODULE.read_text() == render_module(), "wire_sections.py is stale: run python tests/unit/test_wire_sections.py"


@pytest.mark.parametrize("spec", SECTIONS, ids=lambda s: s.host)
def test_a_section_has_its_records_fields_in_order_and_only_the_hosts_extras(spec: Rendered) -> None:
    cls = getattr(ws, spec.host)
    names = [f.name for f in dataclasses.fields(cls)]
    wire = [f.name for f in spec.wire.FIELDS]
    assert [n for n in names if n in wire] == wire
    assert set(names) - set(wire) == {x.name for x in spec.extra}


REPLY_MEMORY = m.Memory(rss_before_load=30.5, rss_after_load=41.0, peak_rss=44.0, peak_source="VmHWM",
                        system=m.SystemMemory(before_bytes=900, peak_bytes=950, peak_delta_bytes=50, total_bytes=4000,
                                              n_samples=12, method="MemTotal - MemAvailable"),
                        gpu_process_bytes=1024, baseline="Python 3.6.9")
SNAP = m.ThermalSnapshot(t_ns=5, unix_time=1.5e9, zones={"thermal_zone0": {"type": "cpu-thermal", "temp_c": 51.2}},
                         cpufreq={"cpu0": {"governor": "ondemand", "cur_khz": 2400000}}, governors=["ondemand"],
                         rpi={"throttled": {"bits": 0, "raw": "0x0", "now": [], "has_occurred": []}, "temp_c": 51.0},
                         nvml=[{"index": 0, "temp_c": 40.0, "clock_reasons_bits": 1, "clock_reasons": ["GpuIdle"]}],
                         max_temp_c=51.2)


def test_a_reply_record_is_stored_as_the_agent_sent_it_with_the_hosts_extras_beside_it() -> None:
    mem = Memory.from_record(REPLY_MEMORY, artifact_size=1.5)
    assert mem.system is not None and mem.system.peak_delta_bytes == 50 and mem.artifact_size == 1.5
    stored = mem.to_dict()
    assert {k: v for k, v in stored.items() if k != "artifact_size"} == REPLY_MEMORY.to_dict()
    assert list(stored) == ["rss_before_load", "rss_after_load", "peak_rss", "peak_source", "system",
                            "gpu_process_bytes", "artifact_size", "baseline"]  # the stored order of schema 8
    th = Thermal.from_record(m.ThermalReply(before=SNAP, after=None,
                                            cooldown=m.CooldownWait(cooled=True, start_c=60.0, end_c=49.5,
                                                                    waited_s=12.0, below_c=50.0)))
    assert isinstance(th.before, ThermalSnapshot) and th.before.rpi_throttled is not None
    assert th.before.rpi_throttled.to_dict() == {"bits": 0, "raw": "0x0", "now": [], "has_occurred": []}
    assert th.after is None and th.cooldown is not None and th.cooldown.waited_s == 12.0
    assert th.to_dict()["before"] == SNAP.to_dict() and Thermal.from_dict(th.to_dict()) == th
    trace = m.PowerTrace(t_s=[0.0, 0.5], w=[4.0, 4.5])
    p = Power.from_record(m.PowerSummary(source="rpi5-pmic", mean_w=4.2, trace=trace, warnings=["w"]))
    assert p.trace is not None and p.trace.w == [4.0, 4.5] and p.idle_trace is None and p.rails_energy_j is None
    assert RunWarning.from_record(m.RunWarning(code="c", message="x")) == RunWarning("c", "x")


def test_a_field_the_agent_does_not_send_is_refused_as_a_stored_section_would_be() -> None:
    from edgeprof.errors import StoreError

    with pytest.raises(StoreError, match="memory_mb.*unknown field.*'rss'"):
        Memory.from_dict({"rss": 1.0})


def test_window_rows_copy_the_agents_readings_by_its_field_list() -> None:
    wire = {f.name: f for f in m.SustainedWindow.FIELDS}
    host = {f.name: f for f in dataclasses.fields(SustainedWindow)}
    assert AGENT_FIELDS == tuple(n for n in wire if n in host)
    assert set(AGENT_FIELDS) == set(wire) - {"start_ns", "end_ns", "first", "count"}  # the samples' own fields
    for name in AGENT_FIELDS:  # the host's row keeps the reading's default (and requires what the agent must send)
        h = host[name]
        d = h.default if h.default_factory is dataclasses.MISSING else h.default_factory()
        assert d == (dataclasses.MISSING if wire[name].default is REQUIRED else wire[name].default), name
    w = m.SustainedWindow(index=0, start_ns=0, end_ns=1_000_000_000, first=0, count=2, n_readings=3,
                          zones_c={"cpu": 60.0}, temp_c=60.0, cpu_mhz=1500.0, cpu_mhz_min=1400.0, gpu_mhz=None,
                          throttled=0, mean_w=4.0, energy_j=4.0, n_power=10, n_nvml=2, nvml_w=30.0,
                          nvml_temp_c=55.0, nvml_sm_mhz=1800.0, nvml_graphics_mhz=1700.0, nvml_reasons=4)
    reply = m.SustainedReply(duration_s=1.0, window_s=1.0, read_period_s=0.1, windows=[w])
    (row,) = window_rows(reply, [10.0, 12.0], 1, None)
    assert {n: getattr(row, n) for n in AGENT_FIELDS} == {n: getattr(w, n) for n in AGENT_FIELDS}
    assert row.n == 2 and row.mj_per_inference == 2000.0


if __name__ == "__main__":
    MODULE.write_text(render_module())
    print(f"wrote {MODULE}")
