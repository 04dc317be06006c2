"""A measurement kind plugs in at one place (edgeprof/session/kinds.py, docs/architecture.md "Adding a measurement
kind"): a MeasurementKind with a method per measurer that offers it. Nothing in cli/, lab/ or transport/ knows
it: deploy and a sweep's static check reach it through the device's session, and a measurer without a method for
it (here the phone's) refuses it in one line before connecting. `edgeprof deploy` takes a kind's own precision and
flags from the kind (TOY, below): the parser, the spec and the refusal of its flags on a forward pass are the
kind's."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from edgeprof import session as seam
from edgeprof.cli.main import main
from edgeprof.errors import CapabilityError, ConfigError
from edgeprof.records import Device, Result, RunSpec
from edgeprof.records.device import PhoneConfig
from edgeprof.run.timing import PhaseClock
from edgeprof.session import FORWARD_PASS, DeviceSession, Job, MeasurementKind, kind_of, refusal, register
from edgeprof.session.agent import AgentMeasurer, ForwardPass
from edgeprof.vocab import Setting

CALLS: list[str] = []


class HarnessOnAgent:
    """The toy kind on the agent: the harness's own cost (the null runtime) for any model reference."""

    def __init__(self, measurer: AgentMeasurer) -> None:
        self.forward = ForwardPass(measurer)

    def refusal(self, spec: RunSpec, *, runtime_given: str | None = None, find_max_rate: bool = False) -> str | None:
        return "the harness has no rate to search" if find_max_rate else None

    def measure(self, spec: RunSpec, session: DeviceSession, job: Job, clock: PhaseClock) -> Result:
        CALLS.append(spec.model)
        null = dataclasses.replace(spec, model="none", runtime="null")
        return dataclasses.replace(self.forward.measure(null, session, job, clock), model=spec.model)


HARNESS = MeasurementKind("harness", wants=lambda spec: spec.model.startswith("harness:"),
                          methods={"agent": f"{__name__}:HarnessOnAgent"})


@pytest.fixture
def harness_kind() -> Iterator[MeasurementKind]:
    assert sys.modules[__name__] is not None  # the method's "module:Class" is this module
    undo = register(HARNESS)
    CALLS.clear()
    try:
        yield HARNESS
    finally:
        undo()


def spec(**kw: Any) -> RunSpec:
    return RunSpec(device="bench", model="harness:toy", runtime="null", min_duration_s=0.05, min_queries=10,
                   warmup_s=0.0, idle_s=0.0, **kw)


def phone() -> Device:  # no adb server on port 1: anything that reached the phone would be a TransportError
    return Device(name="pixel", kind="adb", phone=PhoneConfig(adb_server_port=1))


def test_a_registered_kind_takes_its_specs_and_forward_pass_the_rest(harness_kind: MeasurementKind) -> None:
    assert kind_of(spec()) is harness_kind
    assert kind_of(dataclasses.replace(spec(), model="none")) is FORWARD_PASS


def test_deploy_measures_a_new_kind_through_its_method_on_the_agent(harness_kind: MeasurementKind, tmp_path) -> None:
    local = Device(name="bench", kind="local", workdir=str(tmp_path / "wd"), python=sys.executable)
    r = seam.deploy(spec(), local)
    assert CALLS == ["harness:toy"]
    assert r.status == "ok" and r.model == "harness:toy" and r.runtime == "null" and len(r.samples_ms) >= 10
    assert r.phases is not None and r.phases.connect_s is not None  # a one-off session timed its connect


def test_a_measurer_without_a_method_refuses_the_kind_in_one_line_before_connecting(
        harness_kind: MeasurementKind) -> None:
    line = "harness measurements are not supported on phones (benchmark_model over adb) yet"
    assert refusal(phone(), spec()) == line  # a sweep's static skip (lab/matrix.py)
    with pytest.raises(CapabilityError) as e:
        seam.deploy(spec(), phone())
    assert e.value.one_line().startswith(f"device pixel: {line}") and CALLS == []


def test_a_kinds_method_refuses_what_it_cannot_do(harness_kind: MeasurementKind) -> None:
    s = DeviceSession(Device(name="bench", kind="local"))
    assert s.refusal(spec()) is None
    assert s.refusal(spec(), find_max_rate=True) == "the harness has no rate to search"


def test_without_the_kind_the_spec_is_a_forward_pass_again() -> None:
    assert kind_of(spec()) is FORWARD_PASS


def test_only_the_seam_the_transport_and_the_inventory_name_the_phones_device_kind() -> None:
    """Issue 34: outside edgeprof/session/ no code asks which kind of device it holds. The word "adb" as a string
    stays in the phone's measurer (session/phone.py and the phone package, its `devices check` table header
    included), the transport and the inventory (a phone setting's devices.yaml key is its record field's name)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "edgeprof"
    allowed = {"session/phone.py", "transport/__init__.py", "transport/adb.py", "inventory/devices.py"}
    found = sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if '"adb"' in p.read_text())
    outside = {f for f in found if f not in allowed and not f.startswith("phone/")}
    assert found and not outside, outside


# -- a kind that reaches `edgeprof deploy` with a precision and a flag of its own, declared by the kind only ---------

TOY_LEVEL = Setting("toy_level", "int", None, "toy: how many extra loops", lo=0, hi=9, flag="--toy-level",
                    nullable=True, metavar="N", flag_help="toy kind: how many extra loops (0-9)")
TOY_GROUP = "toy measurements (a test's kind)"


def toy_from_args(args: Any, spec: RunSpec, given: frozenset[str]) -> RunSpec | None:
    """The toy's spec for a `toy:` model (its level folded into runtime_options), else None."""
    if not args.model.startswith("toy:"):
        return None
    return dataclasses.replace(spec, runtime=args.runtime or "toyrt", precision=args.precision or "toy8",
                               runtime_options={"toy_level": args.toy_level})


def toy_check(spec: RunSpec) -> None:
    if spec.runtime != "toyrt":
        raise ConfigError(f"--runtime {spec.runtime}: a toy model runs on toyrt")
    problem = TOY_LEVEL.check(spec.runtime_options.get("toy_level"))
    if problem is not None:
        raise ConfigError(f"--toy-level: {problem}")


class ToyOnAgent:
    """The toy kind on the agent: the harness's own cost (the null runtime), as the toy's precision and runtime."""

    def __init__(self, measurer: AgentMeasurer) -> None:
        self.forward = ForwardPass(measurer)

    def refusal(self, spec: RunSpec, *, runtime_given: str | None = None, find_max_rate: bool = False) -> str | None:
        return None

    def measure(self, spec: RunSpec, session: DeviceSession, job: Job, clock: PhaseClock) -> Result:
        CALLS.append(f"{spec.model} {spec.runtime} {spec.precision} {spec.runtime_options}")
        null = dataclasses.replace(spec, model="none", runtime="null", precision="fp32", runtime_options={},
                                   min_duration_s=0.05, min_queries=10, warmup_s=0.0)
        r = self.forward.measure(null, session, dataclasses.replace(job, checked=False), clock)
        return dataclasses.replace(r, model=spec.model, runtime=spec.runtime, precision=spec.precision)


def toy_owns(model: str, runtime: str | None) -> bool:
    return model.startswith("toy:") or runtime == "toyrt"


def toy_decide(spec: RunSpec, label: str, facts: Any) -> str | None:
    """The toy's own decision on a sweep cell (static here: facts None)."""
    if spec.runtime != "toyrt":
        return f"{spec.runtime}: the toy model {label} runs on toyrt"
    if spec.seed > 5:
        return f"seed {spec.seed}: the toy knows seeds 0 to 5"
    return None


# a sweep axis must be a run setting (vocab.RunSettings: the cell's settings reach its RunSpec through it); the toy's
# own --toy-level is not one, so the toy sweeps an existing generic setting, the seed
TOY = MeasurementKind("toy", wants=lambda spec: spec.model.startswith("toy:"), methods={"agent": f"{__name__}:ToyOnAgent"},
                      group=TOY_GROUP, flags=(TOY_LEVEL,), precisions=("toy8",), runtimes=("toyrt",),
                      from_args=toy_from_args, check=toy_check,
                      owns=toy_owns, bundled=lambda name: name.startswith("toy:"), default_runtime=lambda m: "toyrt",
                      default_precision=lambda rt, model: "toy8" if rt == "toyrt" else None, sweep_runtimes=("toyrt",),
                      axes=("seed",), axis_ids={"seed": "s"}, decide=toy_decide)


@pytest.fixture
def toy_kind(tmp_path, monkeypatch) -> Iterator[MeasurementKind]:
    monkeypatch.setenv("HOME", str(tmp_path))  # the local device's workdir and caches under this test's folder
    undo = register(TOY)
    CALLS.clear()
    try:
        yield TOY
    finally:
        undo()


def deploy(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["deploy", "--device", "local", "--no-store", "--quiet", *args])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_a_kind_brings_its_own_precision_and_flag_to_deploy(toy_kind: MeasurementKind, capsys) -> None:
    code, out, err = deploy(capsys, "--model", "toy:one", "--precision", "toy8", "--toy-level", "3", "--json", "-")
    assert code == 0, err
    assert CALLS == ["toy:one toyrt toy8 {'toy_level': 3}"]  # parsed, the kind's spec, measured by its method
    import json

    r = json.loads(out)
    assert (r["model"], r["runtime"], r["precision"]) == ("toy:one", "toyrt", "toy8")  # the CLI took toy8
    assert r["status"] == "ok" and len(r["samples_ms"]) >= 10  # the null runtime measured for it


def test_a_kinds_flag_is_in_deploy_help_in_its_group_and_checked_by_the_kind(toy_kind: MeasurementKind,
                                                                             capsys) -> None:
    with pytest.raises(SystemExit):
        main(["deploy", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert f"{TOY_GROUP}: --toy-level N toy kind: how many extra loops (0-9)" in shown
    assert "toy8" not in shown  # accepted, not listed: --precision's choices stay the forward pass's
    code, _out, err = deploy(capsys, "--model", "toy:one", "--toy-level", "12")
    assert code == 2 and "--toy-level: must be <= 9" in err and CALLS == []


@pytest.mark.parametrize("args, line", [
    (["--precision", "toy8"], "--precision toy8: for toy measurements only, not mobilenet_v2"),
    (["--toy-level", "2"], "--toy-level: for toy measurements only, not mobilenet_v2"),
])
def test_a_kinds_precision_and_flag_are_refused_on_a_forward_pass(toy_kind: MeasurementKind, capsys,
                                                                 args: list[str], line: str) -> None:
    code, _out, err = deploy(capsys, "--model", "mobilenet_v2", *args)
    assert code == 2 and line in " ".join(err.split()) and CALLS == []


def test_without_the_kind_its_precision_is_not_a_choice(capsys) -> None:
    with pytest.raises(SystemExit) as e:
        main(["deploy", "--device", "local", "--model", "toy:one", "--precision", "toy8"])
    assert e.value.code == 2 and "invalid choice: 'toy8'" in capsys.readouterr().err


# -- a kind's sweep cells: its axes, its defaults and its decision, declared by the kind only (nothing in lab/) -------

TOY_SWEEP = """
models: [toy:one, mobilenet_v2]
devices: [bench]
seed: [1, 7]
"""


def toy_cells(text: str) -> dict[str, str | None]:
    from edgeprof.lab.spec import expand, parse_sweep

    cells = expand(parse_sweep(text, "toy.yaml"), [Device(name="bench", kind="local")])
    return {c.cell_id: c.skip for c in cells}


def test_a_kinds_axis_expands_its_sweep_cells_and_its_hook_decides_them(toy_kind: MeasurementKind) -> None:
    assert toy_cells(TOY_SWEEP) == {
        "bench/toy:one/toyrt/toy8/b1/tauto/s1": None,  # its default runtime and precision, its axis in the id
        "bench/toy:one/toyrt/toy8/b1/tauto/s7": "seed 7: the toy knows seeds 0 to 5",  # its own skip row
        "bench/mobilenet_v2/onnxruntime/fp32/b1/tauto": None,  # a forward pass: one cell, no axis of the toy's
    }


def test_a_kinds_sweep_runtime_is_known_and_its_hook_refuses_another(toy_kind: MeasurementKind) -> None:
    rows = toy_cells("models: [toy:one]\ndevices: [bench]\nruntimes: [toyrt, onnxruntime]\nprecisions: [toy8]\n")
    assert rows == {"bench/toy:one/toyrt/toy8/b1/tauto/s0": None,  # no axis given: the seed's setting (0)
                    "bench/toy:one/onnxruntime/toy8/b1/tauto/s0": "onnxruntime: the toy model toy:one runs on toyrt"}


def test_without_the_kind_its_axis_is_no_key_of_a_sweep_file() -> None:
    with pytest.raises(ConfigError) as e:
        toy_cells(TOY_SWEEP)
    assert "seed: unknown key" in e.value.one_line()
