"""The stack matrix: each board family's user space (tests/lanes/stack_profiles.py) as the `python:` of a real sshd board.

For every profile's stand-in venv (scripts/build-stack-venvs.py): `edgeprof devices check` shows the stack's
Python and runtime versions, and `edgeprof deploy` measures every bundled model on every runtime the stack has —
on an older onnxruntime (JetPack 4.6's 1.10, JetPack 5.1's 1.16) the host learns the runtime's version first and
exports at the IR / opset it loads (capability.ORT_ONNX_MAX), and the artifact's IR / opset are checked here —
plus, where the stack has onnxruntime, a user ONNX file written at exactly the newest IR / opset that release
loads. A user file one opset newer than that is refused before the push, in one line naming both versions.
A stack whose venv cannot be built fails here with the builder's reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from onnxfiles import tiny_cnn
from sshd import SSHLab
from stack_profiles import PROFILE_BY_NAME, PROFILES, StackProfile

import edgeprof_models
from edgeprof.capability import first_ort_loading, ort_onnx_limit
from edgeprof.cli.main import main

pytestmark = [pytest.mark.stacks, pytest.mark.ssh]

# what the host's ONNX export writes for a runtime that loads it (torch exporter: IR 10, opset 18; export/onnx_export.py)
HOST_EXPORT_IR_OPSET = (10, 18)
USER_ONNX = "user-onnx"
# the short run the lane measures with: enough to prove a real measurement, bounded in time
FAST = ["--min-duration", "0.3", "--warmup", "0", "--min-queries", "10", "--idle", "0", "--quiet"]
# the module each runtime's version is reported under by the agent's facts
RUNTIME_DISTS = {"onnxruntime": ("onnxruntime",), "tflite": ("ai-edge-litert", "tflite-runtime")}


def expected_export(profile: StackProfile) -> tuple[int, int]:
    """(IR, opset) the host should export a bundled model at for the stack's onnxruntime."""
    assert profile.onnx_max is not None
    return min(profile.onnx_max[0], HOST_EXPORT_IR_OPSET[0]), min(profile.onnx_max[1], HOST_EXPORT_IR_OPSET[1])


def device_name(profile: StackProfile) -> str:
    return profile.name.replace(".", "")


def runtime_version(profile: StackProfile, runtime: str) -> tuple[str, str]:
    """(distribution, version) of the runtime in the profile's pins."""
    pins = dict(profile.expected)
    for dist in RUNTIME_DISTS[runtime]:
        if dist in pins:
            return dist, pins[dist]
    raise AssertionError(f"{profile.name} lists {runtime} but pins none of {RUNTIME_DISTS[runtime]}")


def deploy_cases() -> Iterator[object]:
    for p in PROFILES:
        for rt in p.runtimes:
            if rt == "onnxruntime" and p.onnx_max is not None and p.onnx_max < HOST_EXPORT_IR_OPSET:
                yield pytest.param(p.name, rt, USER_ONNX, id=f"{p.name}-{rt}-{USER_ONNX}")
            for m in edgeprof_models.names():
                yield pytest.param(p.name, rt, m, id=f"{p.name}-{rt}-{m}")


@pytest.fixture
def board(ssh_lab: SSHLab, client_home: Path, stack_entry: Callable[[str], dict[str, object]], artifact_cache: Path,
          monkeypatch: pytest.MonkeyPatch) -> Callable[[str], tuple[Path, dict[str, object]]]:
    """board(stack) → (devices.yaml naming the stack's sshd board with its venv as `python:`, report entry)."""
    monkeypatch.setenv("EDGEPROF_CACHE", str(artifact_cache))

    def make(stack: str) -> tuple[Path, dict[str, object]]:
        entry = stack_entry(stack)
        name = device_name(PROFILE_BY_NAME[stack])
        host = ssh_lab.shared_host(name, client_home / ".ssh" / "known_hosts")
        inv = client_home.parent / "devices.yaml"
        inv.write_text("version: 1\ndevices:\n" + ssh_lab.yaml_entry(host, name, python=entry["python"]))
        return inv, entry
    return make


@pytest.mark.parametrize("stack", [p.name for p in PROFILES])
def test_devices_check_shows_the_stack(stack: str, board: Callable[[str], tuple[Path, dict[str, object]]],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    inv, entry = board(stack)
    profile = PROFILE_BY_NAME[stack]
    found = entry["found"]
    assert isinstance(found, dict)
    code = main(["devices", "check", device_name(profile), "--inventory", str(inv), "--no-store", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    res = json.loads(out)[0]
    assert res["ok"] and res["python"] == found["python"]
    assert res["python"].startswith(profile.python + ".")
    facts = res["facts"]
    assert facts["python"] == found["python"] and facts["python_executable"] == entry["python"]
    runtimes = facts["runtimes"]
    assert runtimes["numpy"]["version"] == profile.numpy
    for rt in ("onnxruntime", "tflite"):
        if rt in profile.runtimes:
            dist, version = runtime_version(profile, rt)
            assert runtimes[dist.replace("-", "_")]["version"] == version, runtimes
        else:  # the stack does not have it: the device says so instead of a version
            mods = ["onnxruntime"] if rt == "onnxruntime" else ["ai_edge_litert", "tflite_runtime"]
            for mod in mods:
                assert "version" not in runtimes[mod] and "No module named" in runtimes[mod]["error"], runtimes
    assert "No module named 'tensorrt'" in runtimes["tensorrt"]["error"]  # TensorRT cannot be had here (report)


@pytest.mark.parametrize("stack, runtime, model", list(deploy_cases()))
def test_deploy_measures_on_the_stack(stack: str, runtime: str, model: str,
                                      board: Callable[[str], tuple[Path, dict[str, object]]], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    inv, entry = board(stack)
    profile = PROFILE_BY_NAME[stack]
    found = entry["found"]
    assert isinstance(found, dict)
    if model == USER_ONNX:
        assert profile.onnx_max is not None
        ir, opset = profile.onnx_max
        model = str(tiny_cnn(tmp_path / f"tiny_ir{ir}_opset{opset}.onnx", ir_version=ir, opset=opset))
    out_json = tmp_path / "result.json"
    code = main(["deploy", "--device", device_name(profile), "--inventory", str(inv), "--model", model,
                 "--runtime", runtime, "--db", str(tmp_path / "r.sqlite"), "--json", str(out_json), *FAST])
    out, err = capsys.readouterr()
    assert code == 0, f"deploy of {model} with {runtime} on {stack} failed: {(out + err)[-3000:]}"
    result = json.loads(out_json.read_text())
    assert result["status"] == "ok" and result["runtime"] == runtime
    env = result["environment"]
    assert env["device"]["python"] == found["python"]
    assert env["runtime"]["version"] == runtime_version(profile, runtime)[1]
    assert result["latency_ms"]["n"] >= 10 and result["latency_ms"]["p50"] > 0
    if runtime == "onnxruntime" and not model.endswith(".onnx"):  # exported for the board: at what it loads
        import onnx

        ir, opset = expected_export(profile)
        art = result["artifact"]
        assert (art["export_options"]["ir_version"], art["export_options"]["opset"]) == (ir, opset), art
        assert profile.onnx_max is not None and art["export_options"].get("max_ir") == (  # absent: no cap (schema 12)
            None if profile.onnx_max[0] >= HOST_EXPORT_IR_OPSET[0] else profile.onnx_max[0])
        pushed = onnx.load(art["path"], load_external_data=False)
        assert pushed.ir_version == ir and [o.version for o in pushed.opset_import if o.domain in ("", "ai.onnx")] == [
            opset]


def exact_limit(profile: StackProfile) -> bool:
    """The table describes the stack's onnxruntime exactly (a newer release's row is a floor: nothing is refused)."""
    limit = ort_onnx_limit(runtime_version(profile, "onnxruntime")[1]) if "onnxruntime" in profile.runtimes else None
    return limit is not None and limit.exact


@pytest.mark.parametrize("stack", [p.name for p in PROFILES if exact_limit(p)])
def test_a_user_file_too_new_for_the_stack_is_refused_before_the_push(
        stack: str, board: Callable[[str], tuple[Path, dict[str, object]]], ssh_lab: SSHLab,
        client_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv, _entry = board(stack)
    profile = PROFILE_BY_NAME[stack]
    assert profile.onnx_max is not None
    ir, opset = profile.onnx_max
    opset += 1
    version = runtime_version(profile, "onnxruntime")[1]
    model = tiny_cnn(tmp_path / f"too_new_ir{ir}_opset{opset}.onnx", ir_version=ir, opset=opset)
    host = ssh_lab.shared_host(device_name(profile), client_home / ".ssh" / "known_hosts")
    pushed_before = sorted((Path(host.workdir) / "artifacts").glob("*")) if (Path(host.workdir) / "artifacts").exists() \
        else []
    code = main(["deploy", "--device", device_name(profile), "--inventory", str(inv), "--model", str(model),
                 "--runtime", "onnxruntime", "--no-store", *FAST])
    out, err = capsys.readouterr()
    assert code != 0, out + err
    line = [ln for ln in err.splitlines() if "newer than onnxruntime" in ln]
    assert len(line) == 1, err
    assert f"IR {ir} / opset {opset}" in line[0] and f"onnxruntime {version} on {device_name(profile)}" in line[0]
    assert f"at most IR {profile.onnx_max[0]} / opset {profile.onnx_max[1]}" in line[0]
    assert f"re-export it at opset {profile.onnx_max[1]}" in line[0]
    upgrade = first_ort_loading(ir, opset)  # none for a file newer than the table's newest row
    assert (f"upgrade onnxruntime on {device_name(profile)} to >= {upgrade}" in line[0]) if upgrade else (
        "upgrade" not in line[0])
    pushed_after = sorted((Path(host.workdir) / "artifacts").glob("*")) if (Path(host.workdir) / "artifacts").exists() \
        else []
    assert pushed_after == pushed_before  # refused before the push: nothing new on the board


@pytest.fixture(scope="session")
def trained(tmp_path_factory: pytest.TempPathFactory) -> object:
    from accuracy_fixtures import train_classifier, trained_builder

    d = tmp_path_factory.mktemp("accuracy")
    return train_classifier(d / "onnx", n_val=120), trained_builder(d / "builder")


@pytest.mark.parametrize("stack, runtime", [pytest.param(p.name, rt, id=f"{p.name}-{rt}") for p in PROFILES
                                            for rt in p.runtimes])
def test_accuracy_pass_on_the_stack(stack: str, runtime: str, board: Callable[[str], tuple[Path, dict[str, object]]],
                                    trained: tuple[object, object], tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """--accuracy on the board's own Python, numpy and runtime (the agent's accuracy.py and each backend's
    set_inputs on onnxruntime 1.10 / Python 3.6 up to LiteRT 2.x): batches of 8 with padding, and the answers
    the host's own runtime gives on the same samples."""
    import numpy as np

    onnx_t, builder_t = trained
    inv, _entry = board(stack)
    profile = PROFILE_BY_NAME[stack]
    model, val = (onnx_t.onnx, onnx_t.val) if runtime == "onnxruntime" else (builder_t.model, builder_t.val)
    out_json = tmp_path / "result.json"
    code = main(["deploy", "--device", device_name(profile), "--inventory", str(inv), "--model", model,
                 "--runtime", runtime, "--accuracy", val, "--batch", "8", "--db", str(tmp_path / "r.sqlite"),
                 "--json", str(out_json), *FAST])
    out, err = capsys.readouterr()
    assert code == 0, f"accuracy on {stack} with {runtime} failed: {(out + err)[-3000:]}"
    r = json.loads(out_json.read_text())
    acc = r["accuracy"]
    n = int(np.load(val)["labels"].shape[0])
    assert acc is not None, r["null_reasons"]
    assert acc["samples"] == n and acc["per_inference"] == 8 and acc["padded"] == (-n) % 8
    assert acc["top1"] >= 75.0 and len(acc["predicted"]) == n
    if runtime == "onnxruntime":  # the board's onnxruntime gives the host's answers
        import onnxruntime as ort

        x = np.load(val)["features"]
        host = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"features": x})[0]
        same = sum(p == q for p, q in zip(acc["predicted"], host.argmax(axis=1).tolist(), strict=True))
        assert same >= n - 1


def calibrate_stacks() -> list[str]:
    """The stacks calibrate is tried on (25 s each): the one whose onnxruntime loads the fewest opsets (its models are
    written below 17) and the newest (written at 17); the others lie between the two."""
    ort = sorted((p for p in PROFILES if "onnxruntime" in p.runtimes and p.onnx_max is not None),
                 key=lambda p: p.onnx_max or (0, 0))
    return [ort[0].name, ort[-1].name]


@pytest.mark.parametrize("stack", calibrate_stacks())
def test_calibrate_writes_its_models_at_the_opset_the_stacks_onnxruntime_loads(
        stack: str, board: Callable[[str], tuple[Path, dict[str, object]]], tmp_path: Path, artifact_cache: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`edgeprof calibrate` on the board: its generated models (and the speed probe) were written at opset 17,
    which JetPack 4.6's onnxruntime 1.10 (opset 15 at most) refuses — every model, so no table. It now reads the
    board's facts first, through one session for the whole calibration, and writes them at the opset the board
    loads (LayerNormalization written out below 17), saying so in the table's notes; a newer stack keeps 17."""
    import onnx

    from edgeprof.predict.kernels import OPSET
    from edgeprof.predict.table import load_table

    inv, _entry = board(stack)
    profile = PROFILE_BY_NAME[stack]
    assert profile.onnx_max is not None
    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path / "tables"))
    out = tmp_path / "t.json"
    code = main(["calibrate", "--device", device_name(profile), "--inventory", str(inv), "--budget", "25s",
                 "--probe-every", "10s", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err[-3000:]
    table = load_table(out)
    assert table.key.runtime_version == runtime_version(profile, "onnxruntime")[1]
    assert len(table.models) >= 3 and table.probe is not None and len(table.probe.samples) >= 2
    opset = min(OPSET, profile.onnx_max[1])
    written = [n for n in table.notes if "written at opset" in n]
    assert written == ([f"calibration models written at opset {opset}: the board's onnxruntime loads no newer "
                        f"(LayerNormalization written out, as exporters write it below opset 17)"]
                       if opset < OPSET else []), table.notes
    assert not [n for n in table.notes if "opset" in n and "newer than onnxruntime" in n]  # nothing refused
    # the generated files themselves (the run's cache, shared by the stacks: one per opset written)
    written_at = {o.version for f in (artifact_cache / "calibration").glob("cal-0-000-cnn-*.onnx")
                  for o in onnx.load(str(f)).opset_import if o.domain in ("", "ai.onnx")}
    assert opset in written_at
