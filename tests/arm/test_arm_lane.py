"""The aarch64 lane: real arm64 user spaces (Debian 12 = Pi OS Bookworm's, Debian 11 with the Jetson families'
runtime releases) run under qemu-user as boards behind a real sshd (conftest.py, roots.py).

For every venv of every root: `edgeprof devices check` reads aarch64, the root's Debian release, its Python and
numpy, each runtime's version and the Arm CPU from the root's cpuinfo; `edgeprof deploy` measures ds_cnn (tiny:
emulation is 350-650x slower than the board) fp32 and int8 on every runtime of the venv, with fidelity against
the host's torch reference, and the aarch64 outputs agree with the same artifact run by this machine's x86
runtime on the same seeded inputs. Versions, architecture and numbers are asserted — never a time. A board tree
of tests/data/boards is layered on the Pi root as its sysfs_root. A root that cannot be built fails here.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from arm_recipes import ROOT_BY_NAME, ROOTS, runtime_dist
from armlab import REPO, ArmBoard, device_yaml
from sshd import SSHLab

from edgeprof.cli.main import main

pytestmark = [pytest.mark.arm, pytest.mark.ssh]

MODEL = "ds_cnn"  # the smallest bundled classifier: ~50 ms an inference under qemu
# a measurement that proves the path, not the speed: emulated timings mean nothing
FAST = ["--min-duration", "0", "--min-queries", "3", "--warmup", "0", "--idle", "0", "--quiet"]
# the agent's module name for each distribution (its facts key runtimes by module)
MODULE = {"onnxruntime": "onnxruntime", "tflite-runtime": "tflite_runtime", "ai-edge-litert": "ai_edge_litert",
          "numpy": "numpy"}
# How the aarch64 numbers must agree with this machine's x86 run of the same artifact on the same inputs:
# - fp32: the same to 1e-4 (only the summation order differs);
# - int8 TFLite: XNNPACK's kernels on NEON and on AVX round alike: within one output quantization step (~0.005);
# - int8 ONNX: no worse than x86 (+ one step). On x86 with AVX2, onnxruntime's U8S8 kernels use VPMADDUBSW,
#   whose 16-bit sums can saturate (onnxruntime's quantization docs: "When to use reduce-range"); Arm's dot
#   product kernels do not, so aarch64 may well be closer to the reference than x86 (ds_cnn: 0.005 vs 0.08).
FP32_AGREE = 1e-4
INT8_STEP = 0.01


def venv_ids() -> list[Any]:
    return [pytest.param(v.name, id=f"{r.name}-{v.name}") for r in ROOTS for v in r.venvs]


def deploy_cases() -> Iterator[Any]:
    for r in ROOTS:
        for v in r.venvs:
            for runtime, dist in v.runtimes:
                for precision in ("fp32", "int8"):
                    yield pytest.param(v.name, runtime, precision,
                                       id=f"{v.name}-{dist}-{dict(v.expected)[dist]}-{precision}")


@pytest.mark.parametrize("root", [r.name for r in ROOTS])
def test_every_root_is_ready_with_its_recorded_versions(root: str,
                                                        arm_root: Callable[[str], dict[str, object]]) -> None:
    recipe = ROOT_BY_NAME[root]
    venvs = arm_root(root)["venvs"]
    assert isinstance(venvs, dict)
    for venv in recipe.venvs:
        found = venvs[venv.name]["found"]
        assert found["machine"] == "aarch64" and found["python"] == recipe.python and found["os"] == recipe.os
        assert found["dists"] == dict(venv.expected) and not any(found["imports"].values()), found
        assert Path(venvs[venv.name]["python"]).is_file()


def devices_check(board: ArmBoard, capsys: pytest.CaptureFixture[str], inventory: Path | None = None,
                  device: str | None = None) -> dict[str, Any]:
    code = main(["devices", "check", device or board.device, "--inventory", str(inventory or board.inventory),
                 "--no-store", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    res: dict[str, Any] = json.loads(out)[0]
    assert res["ok"], res
    return res


@pytest.mark.timeout(900)
@pytest.mark.parametrize("venv", venv_ids())
def test_devices_check_reads_the_arm_root(venv: str, arm_board: Callable[[str], ArmBoard],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    board = arm_board(venv)
    root, v = board.root, board.venv
    res = devices_check(board, capsys)
    facts = res["facts"]
    assert res["python"] == root.python and facts["python"] == root.python
    assert facts["arch"] == "aarch64"
    assert facts["os"] == root.os
    assert facts["cpu"] == root.cpu  # read from the root's Arm cpuinfo (CPU implementer / part)
    assert facts["python_executable"] == f"{v.path}/bin/python"
    runtimes = facts["runtimes"]
    assert runtimes["numpy"]["version"] == v.numpy
    for dist, version in v.expected:
        assert runtimes[MODULE[dist]]["version"] == version, runtimes
    for dist in ("onnxruntime", "tflite-runtime", "ai-edge-litert"):
        if dist not in dict(v.expected):  # the venv does not have it: the board says so instead of a version
            assert "version" not in runtimes[MODULE[dist]], runtimes
            assert "No module named" in runtimes[MODULE[dist]]["error"], runtimes
    if "onnxruntime" in dict(v.expected):
        assert runtimes["onnxruntime"]["providers"][-1] == "CPUExecutionProvider"
    assert "No module named 'tensorrt'" in runtimes["tensorrt"]["error"]  # no aarch64 TensorRT here


def host_outputs_fidelity(result: dict[str, Any]) -> dict[str, Any]:
    """The fidelity of the pushed artifact run by this machine's (x86) runtime on the device's seeded inputs,
    against the same torch reference the deploy used."""
    from edgeprof.evaluation.fidelity import Reference, compare, reference_outputs
    from edgeprof.export.inputs import make_inputs
    from edgeprof.records import Artifact

    art = Artifact.from_dict(result["artifact"])
    shapes = {k: tuple(v) for k, v in result["fidelity"]["inputs"]["shapes"].items()}
    seed = int(result["fidelity"]["inputs"]["seed"])
    feed = make_inputs(list(art.inputs), shapes, seed, None)
    if art.format == "onnx":
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        sess = ort.InferenceSession(art.path, opts, providers=["CPUExecutionProvider"])
        got = list(sess.run(None, feed))
    else:
        from edgeprof.hostrun.reference import tflite_outputs

        got = tflite_outputs(Path(art.path), feed)
    from edgeprof.export.resolve import resolve_model

    source = resolve_model(MODEL)
    ref = Reference("torch", f"torch (bundled {MODEL})", source=source,
                    num_classes=source.bundled.num_classes if source.bundled is not None else None)
    want = reference_outputs(ref, list(art.inputs), shapes, seed)
    return compare(got, want, precision=result["precision"], num_classes=ref.num_classes).to_dict()


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("venv, runtime, precision", list(deploy_cases()))
def test_deploy_on_the_arm_root(venv: str, runtime: str, precision: str, arm_board: Callable[[str], ArmBoard],
                                tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = arm_board(venv)
    root, v = board.root, board.venv
    out_json = tmp_path / "result.json"
    code = main(["deploy", "--device", board.device, "--inventory", str(board.inventory), "--model", MODEL,
                 "--runtime", runtime, "--precision", precision, "--db", str(tmp_path / "r.sqlite"),
                 "--json", str(out_json), *FAST])
    out, err = capsys.readouterr()
    assert code == 0, f"deploy of {MODEL} {precision} with {runtime} on {venv} failed: {(out + err)[-3000:]}"
    r = json.loads(out_json.read_text())
    assert r["status"] == "ok" and r["runtime"] == runtime and r["precision"] == precision
    dev = r["environment"]["device"]
    assert dev["arch"] == "aarch64" and dev["python"] == root.python and dev["os"] == root.os
    assert dev["cpu"] == root.cpu
    dist = runtime_dist(v, runtime)
    assert r["environment"]["runtime"]["version"] == dict(v.expected)[dist]
    assert dev["runtimes"][MODULE[dist]]["version"] == dict(v.expected)[dist]
    assert r["latency_ms"]["n"] >= 3  # measured; how fast means nothing under emulation
    assert r["artifact"]["format"] == ("onnx" if runtime == "onnxruntime" else "tflite")
    assert r["artifact"]["precision"] == precision
    fid = r["fidelity"]
    assert fid is not None and fid["ok"], fid
    assert fid["reference"] == f"torch (bundled {MODEL})" and fid["top1_agreement"] == 1.0
    host = host_outputs_fidelity(r)  # the same artifact and inputs on this machine's x86 runtime
    assert host["ok"], host
    print(f"{venv} {runtime} {precision}: aarch64 max/mean abs error {fid['max_abs_error']:.6g} / "
          f"{fid['mean_abs_error']:.6g}, x86 {host['max_abs_error']:.6g} / {host['mean_abs_error']:.6g}")
    for key in ("max_abs_error", "mean_abs_error"):
        arm, x86 = fid[key], host[key]
        if precision == "fp32":
            assert abs(arm - x86) <= FP32_AGREE, (key, fid, host)
        elif runtime == "tflite":
            assert abs(arm - x86) <= INT8_STEP, (key, fid, host)
        else:
            assert arm <= x86 + INT8_STEP, (key, fid, host)
    if precision == "fp32":
        assert abs(fid["cosine_similarity"] - host["cosine_similarity"]) <= FP32_AGREE, (fid, host)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("venv", ["pi"])
def test_a_board_tree_layers_onto_the_pi_root(venv: str, arm_board: Callable[[str], ArmBoard], ssh_lab: SSHLab,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """tests/data/boards/rpi5 (thermal zone, cpufreq, meminfo) copied inside the root and given as the board's
    sysfs_root: the agent, aarch64 in the chroot, reads the board's files there, the root's cpuinfo with them."""
    board = arm_board(venv)
    tree = board.inside("rpi5") / "rpi5"
    shutil.copytree(REPO / "tests" / "data" / "boards" / "rpi5", tree, symlinks=True)
    (tree / "proc" / "cpuinfo").write_bytes((REPO / "tests" / "data" / "arm" / board.root.cpuinfo).read_bytes())
    inv = board.inventory.with_name("devices-rpi5.yaml")
    inv.write_text("version: 1\ndevices:\n" + device_yaml(board, ssh_lab, sysfs_root=tree, name="arm-pi-rpi5"))
    res = devices_check(board, capsys, inventory=inv, device="arm-pi-rpi5")
    facts = res["facts"]
    assert facts["arch"] == "aarch64" and facts["cpu"] == "ARM Cortex-A76"
    assert facts["memory_mb"] == round(8245840 / 1024.0, 1)  # the tree's /proc/meminfo, not this machine's
