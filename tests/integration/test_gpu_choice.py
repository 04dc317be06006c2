"""The GPU a run uses on a multi-GPU x86 server, end to end: `edgeprof deploy` and `edgeprof sweep` over a real sshd
to a board tree with two Tesla T4s (tests/data/boards/x86-2xt4: the driver's /proc/driver/nvidia/gpus, in PCI bus
order) seen through the pynvml double on the device's PYTHONPATH (boardlab.py), each GPU with its own power
(30 W and 55 W), its own per-process memory for the agent's process (100 MiB and 700 MiB), UUID and PCI bus id.

- `--gpu 1`: NVML's power (rail gpu1, ~55 W), the agent's GPU memory (700 MiB) and the stored environment's GPU
  (index, name, UUID, PCI bus id, CUDA pinned to the UUID) are GPU 1's; the stored settings say gpu 1.
- devices.yaml `gpu: 1` does the same without the flag; `--gpu 0` overrides it and reads GPU 0.
- `--gpu 2`: one line naming the device's two GPUs, before the model is pushed.
- a sweep's `settings: {gpu: 1}` carries it to the cell's run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from boardlab import BoardLab, board_lab, matmul_model
from sshd import SSHLab

from edgeprof.cli.main import main

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

MIB = 2**20
UUIDS = ("GPU-6a5f0e44-21c4-9b3e-1f0d-3c0a4b5e6f70", "GPU-6a5f0e44-21c4-9b3e-1f0d-3c0a4b5e6f71")
GPUS = [
    {"name": "Tesla T4", "uuid": UUIDS[0], "bus_id": "00000000:3B:00.0", "temp_c": 41,
     "wave": {"base": 30.0, "amp": 0.0}, "processes": [["self", 100 * MIB]]},
    {"name": "Tesla T4", "uuid": UUIDS[1], "bus_id": "00000000:AF:00.0", "temp_c": 63,
     "wave": {"base": 55.0, "amp": 0.0}, "processes": [["self", 700 * MIB]]},
]
FAST = ("--min-duration", "0.5", "--min-queries", "20", "--warmup", "0.1", "--idle", "0", "--threads", "1",
        "--power-rate", "50")


@pytest.fixture(scope="module")
def lab(ssh_lab: SSHLab, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BoardLab]:
    with board_lab(ssh_lab, tmp_path_factory.mktemp("gpu-lab"), "gpu-lab") as lab:
        yield lab


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> str:
    return matmul_model(tmp_path_factory.mktemp("gpu-model") / "matmul.onnx")


def set_entry(board: Any, **keys: Any) -> None:
    doc = yaml.safe_load(board.inventory.read_text())
    doc["devices"][board.device].update(keys)
    board.inventory.write_text(yaml.safe_dump(doc, sort_keys=False))


def assert_reads_gpu(r: dict[str, Any], index: int) -> None:
    p = r["power"]
    assert (p["source"], p["rail"]) == ("nvml", f"gpu{index}"), p
    assert p["mean_w"] == pytest.approx(GPUS[index]["wave"]["base"], rel=0.01)
    assert r["memory_mb"]["gpu_process_bytes"] == GPUS[index]["processes"][0][1]
    gpu = r["environment"]["runtime"]["gpu"]
    assert gpu == {"index": index, "name": "Tesla T4", "uuid": UUIDS[index], "pci_bus_id": GPUS[index]["bus_id"],
                   "source": "NVML", "kind": "discrete", "cuda_env": {"CUDA_VISIBLE_DEVICES": UUIDS[index]}}
    assert r["settings"]["gpu"] == index


def test_gpu_flag_reads_and_runs_on_that_gpu(lab: BoardLab, model: str, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with lab.board("x86-2xt4", nvml={"gpus": GPUS}, drive=False) as b:
        code, _out, err, r = lab.deploy(b, model, *FAST, "--gpu", "1", monkeypatch=monkeypatch, capsys=capsys)
        assert code == 0 and r is not None, err
        assert_reads_gpu(r, 1)
        code, _out, err, r = lab.deploy(b, model, *FAST, monkeypatch=monkeypatch, capsys=capsys)
        assert code == 0 and r is not None, err
        # no --gpu and no gpu: entry: as before: NVML's power of GPU 0, the agent's memory summed over the GPUs,
        # and nothing pinned (the runtime's own default device)
        assert r["power"]["rail"] == "gpu0" and r["memory_mb"]["gpu_process_bytes"] == 800 * MIB
        assert "gpu" not in r["environment"]["runtime"] and r["settings"]["gpu"] is None


def test_device_entry_gpu_and_the_flag_over_it(lab: BoardLab, model: str, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    with lab.board("x86-2xt4", nvml={"gpus": GPUS}, drive=False) as b:
        set_entry(b, gpu=1)
        code, _out, err, r = lab.deploy(b, model, *FAST, monkeypatch=monkeypatch, capsys=capsys)
        assert code == 0 and r is not None, err
        assert_reads_gpu(r, 1)
        code, _out, err, r = lab.deploy(b, model, *FAST, "--gpu", "0", monkeypatch=monkeypatch, capsys=capsys)
        assert code == 0 and r is not None, err
        assert_reads_gpu(r, 0)


def test_a_gpu_beyond_the_facts_is_one_line_before_the_model_is_pushed(
        lab: BoardLab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import onnx

    m = onnx.load(matmul_model(tmp_path / "other.onnx"))
    m.graph.initializer[0].float_data[0] += 1.0  # another model, never pushed before: its own content address
    model = str(tmp_path / "other.onnx")
    onnx.save(m, model)
    sha = hashlib.sha256(Path(model).read_bytes()).hexdigest()
    with lab.board("x86-2xt4", nvml={"gpus": GPUS}, drive=False) as b:
        code, out, err, r = lab.deploy(b, model, *FAST, "--quiet", "--gpu", "2", monkeypatch=monkeypatch, capsys=capsys)
        assert code != 0 and r is None
        lines = [line for line in err.strip().splitlines() if line.strip()]
        assert len(lines) == 1, err
        assert f"--gpu 2: {b.device} has 2 NVIDIA GPU(s) (0: Tesla T4, 1: Tesla T4)" in lines[0]
        assert not list(Path(lab.host.workdir).rglob(f"{sha}*")), "the model was pushed"
        # the same from devices.yaml: one line naming the entry
        set_entry(b, gpu=5)
        code, _out, err, r = lab.deploy(b, model, *FAST, "--quiet", monkeypatch=monkeypatch, capsys=capsys)
        lines = [line for line in err.strip().splitlines() if line.strip()]
        assert code != 0 and len(lines) == 1 and f"gpu: 5 ({b.inventory}:" in lines[0] and f"{b.device} has 2" in lines[0], err
        assert not list(Path(lab.host.workdir).rglob(f"{sha}*")), "the model was pushed"


def test_a_sweep_setting_gpu_runs_its_cells_on_that_gpu(lab: BoardLab, model: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from edgeprof.lab import sweep_state as ledger
    from edgeprof.store import Store

    with lab.board("x86-2xt4", nvml={"gpus": GPUS}, drive=False) as b:
        sweep = tmp_path / "gpu.yaml"
        sweep.write_text(f"name: gpu\nmodels: [{model}]\ndevices: [{b.device}]\nruntimes: [onnxruntime]\n"
                         "settings: {min_duration_s: 0.5, min_queries: 20, warmup_s: 0.1, idle_s: 0, gpu: 1}\n")
        code = main(["sweep", str(sweep), "--inventory", str(b.inventory), "--db", lab.db, "--quiet",
                     "--id-file", str(tmp_path / "id")])
        err = capsys.readouterr().err
        assert code == 0, err
        rec = ledger.get_sweep(Store(lab.db), (tmp_path / "id").read_text().strip())
        assert [c.status for c in rec.cells] == ["ok"], err
        r = Store(lab.db).get(rec.cells[0].run_id)
        assert r is not None
        d = r.to_dict()
        assert d["power"]["rail"] == "gpu1" and d["memory_mb"]["gpu_process_bytes"] == 700 * MIB
        assert d["environment"]["runtime"]["gpu"]["uuid"] == UUIDS[1] and d["settings"]["gpu"] == 1
