"""Exporting for the board's onnxruntime (issue 10 part 3): the table of what each onnxruntime release loads, the
IR / opset a torch model is exported at for a device's facts, the refusal of an ONNX file too new for the device
(one line naming both versions, with what to do), and the order of a deploy and a sweep: what a device lacks is
found before anything is exported or pushed. The device's facts here are the real local ones with the runtimes
replaced; the lane (tests/stacks) proves the same on the real onnxruntime releases over sshd."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import onnx
import pytest
from onnx import TensorProto, helper

from edgeprof import run as measurement
from edgeprof import session as seam
from edgeprof.agentlink import AgentLink
from edgeprof.capability import (
    ORT_ONNX_MAX,
    OnnxTarget,
    first_ort_loading,
    onnx_target,
    ort_onnx_limit,
    require_loadable,
)
from edgeprof.cli.main import main
from edgeprof.errors import CapabilityError, ModelError
from edgeprof.export import onnx_export
from edgeprof.export.onnx_export import (
    DEFAULT_OPSET,
    MAX_OPSET,
    MIN_OPSET,
    cache_key,
    onnx_versions,
    prepare_onnx,
)
from edgeprof.export.resolve import resolve_model
from edgeprof.lab import sweep_state as ledger
from edgeprof.lab.scheduler import run_sweep
from edgeprof.lab.spec import expand, parse_sweep
from edgeprof.records import Device, Result, RunSpec
from edgeprof.session import DeviceSession
from edgeprof.store import Store
from edgeprof.transport.local import LocalTransport
from edgeprof.vocab import SETTINGS
from edgeprof_agent.messages import Facts

# onnxruntime release → (IR, opset) it loads at most: ONNX Runtime's compatibility page, as docs/stacks.md cites it
DOCS = {"1.10.0": (8, 15), "1.11.1": (8, 16), "1.12.1": (8, 17), "1.13.1": (8, 17), "1.14.1": (8, 18),
        "1.15.1": (9, 19), "1.16.3": (9, 19), "1.17.3": (9, 20), "1.18.1": (10, 21), "1.19.2": (10, 21),
        "1.20.1": (10, 21)}


def deploy_with_facts(spec: RunSpec, device: Device, facts: Facts) -> Result:
    """One measurement on a one-off session that holds these facts (not read from the device)."""
    with DeviceSession(device, keep=False, facts=facts) as session:
        return seam.deploy(spec, session)


def facts_with(base: Facts, **runtimes: dict[str, Any]) -> Facts:
    return Facts.from_dict({**base.to_dict(), "runtimes": {"numpy": {"version": "1.19.5"}, **runtimes}})


def ort(version: str) -> dict[str, Any]:
    return {"version": version, "providers": ["CPUExecutionProvider"]}


NO_ORT = {"error": "ModuleNotFoundError: No module named 'onnxruntime'"}


@pytest.fixture(scope="module")
def local_facts(tmp_path_factory: pytest.TempPathFactory) -> Facts:
    d = Device(name="bench", kind="local", workdir=str(tmp_path_factory.mktemp("wd")), python=sys.executable)
    with AgentLink.open(LocalTransport(), d) as link:
        return link.facts(runtimes=False)


# -- the table -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version, loads", sorted(DOCS.items()))
def test_the_table_says_what_each_release_loads(version: str, loads: tuple[int, int]) -> None:
    limit = ort_onnx_limit(version)
    assert limit is not None and (limit.ir, limit.opset) == loads and limit.exact
    assert limit.runtime_version == version


def test_releases_outside_the_table() -> None:
    newer = ort_onnx_limit("1.23.2")
    assert newer is not None and (newer.ir, newer.opset) == (10, 21) and not newer.exact  # a floor, not a ceiling
    assert ort_onnx_limit("1.9.0") is None and ort_onnx_limit("garbage") is None and ort_onnx_limit("") is None
    assert ort_onnx_limit("1.16.3+cu118") == dataclasses.replace(ort_onnx_limit("1.16.3"), runtime_version="1.16.3+cu118")


def test_the_oldest_release_that_loads_a_file() -> None:
    assert first_ort_loading(10, 18) == "1.18" and first_ort_loading(8, 15) == "1.10"
    assert first_ort_loading(9, 18) == "1.15" and first_ort_loading(8, 16) == "1.11"
    assert first_ort_loading(11, 18) is None and first_ort_loading(10, 22) is None


def test_the_opset_setting_spans_what_the_exporter_writes_and_the_table_names() -> None:
    s = SETTINGS["opset"]
    assert (s.lo, s.hi, s.default, s.flag) == (MIN_OPSET, MAX_OPSET, None, "--opset")
    assert MIN_OPSET == ORT_ONNX_MAX[0][2] and MAX_OPSET == ORT_ONNX_MAX[-1][2]
    assert s.check(14) and s.check(22) and s.check(16.0) and s.check(None) is None and s.check(17) is None


# -- the export target ---------------------------------------------------------------------------------------------


def test_the_export_target_fits_the_device(local_facts: Facts) -> None:
    t = onnx_target("onnxruntime", facts_with(local_facts, onnxruntime=ort("1.10.0")), DEFAULT_OPSET)
    assert (t.opset, t.max_ir) == (15, 8)
    t = onnx_target("onnxruntime", facts_with(local_facts, onnxruntime=ort("1.16.3")), DEFAULT_OPSET)
    assert (t.opset, t.max_ir) == (18, 9)
    for v in ("1.18.1", "1.23.2"):  # the exporter's own IR: the newest row loads it
        t = onnx_target("onnxruntime", facts_with(local_facts, onnxruntime=ort(v)), DEFAULT_OPSET)
        assert (t.opset, t.max_ir) == (18, None)
    assert onnx_target("onnxruntime", None, DEFAULT_OPSET) == OnnxTarget(18)  # no facts: the default
    old = facts_with(local_facts, onnxruntime=ort("1.10.0"))
    assert onnx_target("tensorrt", old, DEFAULT_OPSET) == OnnxTarget(18)  # TensorRT's parser: not fitted
    assert onnx_target("tensorrt", old, DEFAULT_OPSET, 17) == OnnxTarget(17)
    t = onnx_target("onnxruntime", facts_with(local_facts, onnxruntime=ort("1.16.3")), DEFAULT_OPSET, 17)
    assert (t.opset, t.max_ir) == (17, 9)  # --opset below what the device loads: as asked


def test_an_opset_above_what_the_device_loads_is_refused_in_one_line(local_facts: Facts) -> None:
    with pytest.raises(CapabilityError) as e:
        onnx_target("onnxruntime", facts_with(local_facts, onnxruntime=ort("1.10.0")), DEFAULT_OPSET, 16, "nano")
    line = e.value.one_line()
    assert "\n" not in line and "--opset 16" in line and "onnxruntime 1.10.0 on nano" in line
    assert "at most IR 8 / opset 15" in line and "use --opset 15 or lower" in line


def test_an_onnxruntime_older_than_the_table_is_refused(local_facts: Facts) -> None:
    with pytest.raises(CapabilityError, match=r"onnxruntime 1\.9\.0 on nano is older than 1\.10.*>= 1\.10"):
        onnx_target("onnxruntime", facts_with(local_facts, onnxruntime=ort("1.9.0")), DEFAULT_OPSET, None, "nano")


# -- the refusal of a file too new for the device ------------------------------------------------------------------


def test_a_file_too_new_is_refused_naming_both_versions(local_facts: Facts) -> None:
    with pytest.raises(CapabilityError) as e:
        require_loadable("m.onnx", 10, 18, facts_with(local_facts, onnxruntime=ort("1.10.0")), "nano")
    line = e.value.one_line()
    assert "\n" not in line
    assert line.startswith("m.onnx is ONNX IR 10 / opset 18, newer than onnxruntime 1.10.0 on nano loads "
                           "(at most IR 8 / opset 15: IR 10 > 8 and opset 18 > 15)")
    assert "re-export it at opset 15 (IR 8) or lower, or upgrade onnxruntime on nano to >= 1.18" in line
    with pytest.raises(CapabilityError, match=r"opset 20 > 19\).*upgrade onnxruntime on b to >= 1\.17"):
        require_loadable("x.onnx", 9, 20, facts_with(local_facts, onnxruntime=ort("1.16.3")), "b")
    with pytest.raises(CapabilityError) as e:  # newer than any release in the table: no upgrade to name
        require_loadable("y.onnx", 10, 22, facts_with(local_facts, onnxruntime=ort("1.18.1")), "b")
    assert "upgrade" not in e.value.one_line() and "re-export it at opset 21" in e.value.one_line()


def test_what_a_device_loads_or_nobody_knows_is_let_through(local_facts: Facts) -> None:
    require_loadable("m.onnx", 8, 15, facts_with(local_facts, onnxruntime=ort("1.10.0")), "nano")
    require_loadable("m.onnx", 10, 22, facts_with(local_facts, onnxruntime=ort("1.23.2")), "t4")  # beyond the table
    require_loadable("m.onnx", 10, 18, None, "nano")
    require_loadable("m.onnx", 10, 18, local_facts, "nano")  # facts read without runtimes
    require_loadable("m.onnx", 10, 18, facts_with(local_facts, onnxruntime=NO_ORT), "nano")


# -- the export at the target ----------------------------------------------------------------------------------------


def test_the_export_is_written_at_the_opset_and_ir_asked(tmp_path: Path, bundled_onnx: Any) -> None:
    src = resolve_model("gemm:8x4x2")
    bundled_onnx.copy_into("gemm:8x4x2", tmp_path)  # the default export's entry, as a first export leaves it
    low = prepare_onnx(src, cache_dir=tmp_path, opset=15, max_ir=8)
    assert onnx_versions(Path(low.path)) == (8, 15)
    assert low.export_options.exporter == "torchscript" and low.export_options.opset == 15
    assert low.export_options.ir_version == 8 and low.export_options.max_ir == 8 and low.export_check["ok"]
    mid = prepare_onnx(src, cache_dir=tmp_path, opset=18, max_ir=9)
    assert onnx_versions(Path(mid.path)) == (9, 18) and mid.export_options.exporter == "dynamo"
    top = prepare_onnx(src, cache_dir=tmp_path)
    assert onnx_versions(Path(top.path))[1] == 18 and top.export_options.max_ir is None
    assert len({low.path, mid.path, top.path}) == 3  # three cache entries: the key holds the opset and the IR cap
    assert prepare_onnx(src, cache_dir=tmp_path, opset=15, max_ir=8).cache_hit
    keys = {cache_key(src, 0, onnx_export._options("dynamo", o, ir)) for o, ir in ((18, None), (18, 9), (17, 9))}
    assert len(keys) == 3
    with pytest.raises(ModelError, match="opset 22 is newer than edgeprof exports"):
        prepare_onnx(src, cache_dir=tmp_path, opset=22)


def test_the_ir_is_not_lowered_below_what_the_graph_uses() -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT8E4M3FN, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT8E4M3FN, [1, 4])
    m = helper.make_model(helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [x], [y]),
                          opset_imports=[helper.make_opsetid("", 19)])
    with pytest.raises(ModelError, match=r"m needs ONNX IR 9 for FLOAT8E4M3FN \(x\).*loads IR 8 at most"):
        onnx_export._lower_ir(m, 8, "m")
    onnx_export._lower_ir(m, 9, "m")
    assert m.ir_version == 9


def test_a_dynamo_fallback_to_another_opset_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = onnx_export._export_torch

    def falls_back(*a: Any, **kw: Any) -> onnx.ModelProto:
        proto = real(*a, **kw)
        proto.opset_import[0].version = 18  # what torch does when onnx's version converter fails
        return proto

    monkeypatch.setattr(onnx_export, "_export_torch", falls_back)
    with pytest.raises(ModelError, match="opset 19: the dynamo exporter wrote opset 18 instead"):
        prepare_onnx(resolve_model("gemm:8x4x2"), cache_dir=tmp_path, opset=19)


# -- the order of a deploy and a sweep -----------------------------------------------------------------------------


class NoExport:
    """Fails the test if anything is exported, prepared or pushed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        for obj, name in ((measurement, "prepare"), (onnx_export, "_export_torch"), (AgentLink, "push_artifact")):
            monkeypatch.setattr(obj, name, self._record(name))

    def _record(self, name: str) -> Any:
        def called(*a: Any, **kw: Any) -> Any:
            self.calls.append(name)
            raise AssertionError(f"{name} was called")
        return called


def test_deploy_finds_a_missing_runtime_before_any_export(tmp_path: Path, local_facts: Facts,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    no = NoExport(monkeypatch)
    d = Device(name="nano", kind="local", workdir=str(tmp_path / "wd"), python=sys.executable)
    spec = RunSpec(device="nano", model="mobilenet_v2", runtime="onnxruntime", min_duration_s=0.05, warmup_s=0,
                   idle_s=0)
    with pytest.raises(CapabilityError, match="onnxruntime is not installed on nano"):
        deploy_with_facts(spec, d, facts_with(local_facts, onnxruntime=NO_ORT))
    no_gpu = Facts.from_dict({**facts_with(local_facts, onnxruntime=ort("1.10.0"),
                                           tensorrt={"version": "8.2.1"}).to_dict(), "gpus": [], "l4t": None})
    with pytest.raises(CapabilityError, match="tensorrt needs an NVIDIA GPU; device nano has none"):
        deploy_with_facts(dataclasses.replace(spec, runtime="tensorrt"), d, no_gpu)
    with pytest.raises(CapabilityError, match="--opset 17 is above what onnxruntime 1.10.0 on nano loads"):
        deploy_with_facts(dataclasses.replace(spec, opset=17), d, facts_with(local_facts, onnxruntime=ort("1.10.0")))
    assert no.calls == []


def test_deploy_refuses_a_user_file_too_new_before_the_push(tmp_path: Path, local_facts: Facts,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    m = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y]),
                          opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 10
    onnx.save(m, str(tmp_path / "new.onnx"))
    pushed: list[str] = []
    monkeypatch.setattr(AgentLink, "push_artifact", lambda *a, **kw: pushed.append("push"))
    d = Device(name="nano", kind="local", workdir=str(tmp_path / "wd"), python=sys.executable)
    spec = RunSpec(device="nano", model=str(tmp_path / "new.onnx"), runtime="onnxruntime")
    with pytest.raises(CapabilityError) as e:
        deploy_with_facts(spec, d, facts_with(local_facts, onnxruntime=ort("1.10.0")))
    assert "new.onnx is ONNX IR 10 / opset 18, newer than onnxruntime 1.10.0 on nano" in e.value.one_line()
    assert pushed == []


def test_a_sweep_finds_what_a_board_lacks_before_exporting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's facts come first: a TensorRT cell on a board without TensorRT or a GPU is skipped, and its model
    is never exported (the sweep used to export every model before any board was asked)."""
    no = NoExport(monkeypatch)
    spec = parse_sweep("name: lacks\nmodels: [mobilenet_v2]\ndevices: [local]\nruntimes: [tensorrt]\n"
                       "settings: {min_duration_s: 0.05, warmup_s: 0, idle_s: 0, retries: 0}\n",
                       str(tmp_path / "s.yaml"))
    from edgeprof.records import local_device

    dev = local_device()
    cells = expand(spec, [dev])
    store = Store(str(tmp_path / "db.sqlite"))
    ledger.create_sweep(store, "sw-lacks", spec.name, None, {"name": spec.name}, cells)
    outcome = run_sweep(store, "sw-lacks", cells, [dev], cache_dir=tmp_path / "cache")
    assert [r.status for r in outcome.results] == ["skipped"], [r.reason for r in outcome.results]
    assert "tensorrt" in (outcome.results[0].reason or "")
    assert no.calls == [] and not (tmp_path / "cache").exists()


def test_opset_on_the_command_line_is_checked_in_one_line(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    assert main(["deploy", "--device", "local", "--model", "mobilenet_v2", "--opset", "14", "--no-store"]) == 2
    err = capsys.readouterr().err
    assert "--opset 14: must be >= 15" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "m.onnx").write_bytes(b"")
    assert main(["deploy", "--device", "local", "--model", str(tmp_path / "m.onnx"), "--opset", "17",
                 "--no-store"]) == 2
    err = capsys.readouterr().err
    assert "--opset 17: applies to a bundled or builder model" in err and len(err.strip().splitlines()) == 1


def test_opset_in_a_sweep_file_is_checked_by_the_settings_rules(tmp_path: Path) -> None:
    from edgeprof.errors import ConfigError

    with pytest.raises(ConfigError, match=r"settings\.opset.*must be <= 21"):
        parse_sweep("name: s\nmodels: [mobilenet_v2]\ndevices: [local]\nsettings: {opset: 22}\n",
                    str(tmp_path / "s.yaml"))
    spec = parse_sweep("name: s\nmodels: [mobilenet_v2]\ndevices: [local]\nsettings: {opset: 17}\n",
                       str(tmp_path / "s.yaml"))
    from edgeprof.records import local_device

    assert {c.setting("opset") for c in expand(spec, [local_device()])} == {17}



def test_a_local_deploy_exports_at_the_opset_asked_and_stores_it(tmp_path: Path) -> None:
    d = Device(name="bench", kind="local", workdir=str(tmp_path / "wd"), python=sys.executable)
    spec = RunSpec(device="bench", model="gemm:8x4x2", runtime="onnxruntime", min_duration_s=0.05, min_queries=5,
                   warmup_s=0, idle_s=0)
    r = seam.deploy(dataclasses.replace(spec, opset=16), d, cache_dir=tmp_path / "cache")
    assert r.status == "ok" and r.settings.opset == 16 and r.artifact is not None
    assert (r.artifact.export_options.opset, r.artifact.export_options.exporter) == (16, "torchscript")
    assert onnx_versions(Path(r.artifact.path)) == (8, 16)
    assert r.environment.fact("runtimes")["onnxruntime"].version  # the runtimes were read before the export
