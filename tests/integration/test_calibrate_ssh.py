"""`edgeprof calibrate --device BOARD` over a real sshd (issue 37 item 4): the calibration models travel by the
ordinary deploy path, the table is keyed by the facts that board's agent reported (its sysfs tree's memory, not
this machine's), `predict --device BOARD` uses it without connecting, and with a table of this machine too the
report ranks the two boards by predicted and by measured latency."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from boardlab import BoardLab, board_lab
from sshd import SSHLab

from edgeprof.cli.main import main
from edgeprof.predict.table import load_table
from edgeprof.store import Store
from edgeprof.store.predictions import latest_by_key

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

BOARDS = Path(__file__).resolve().parents[1] / "data" / "boards"
RUN = ["--min-duration", "0.3", "--min-queries", "10", "--warmup", "0", "--idle", "0", "--threads", "1", "--quiet"]


@pytest.fixture(scope="module")
def lab(ssh_lab: SSHLab, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BoardLab]:
    with board_lab(ssh_lab, tmp_path_factory.mktemp("calibrate-ssh"), "calibrate-lab") as bl:
        yield bl


def _mem_total_mb(tree: str) -> float:
    text = (BOARDS / tree / "proc" / "meminfo").read_text()
    kb = int(re.search(r"MemTotal:\s+(\d+) kB", text).group(1))  # type: ignore[union-attr]
    return round(kb / 1024.0, 1)


@pytest.mark.timeout(420)
def test_calibrate_over_ssh_keys_the_table_by_the_board_and_predict_uses_it(
        lab: BoardLab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from boardlab import matmul_model

    monkeypatch.setenv("EDGEPROF_TABLES", str(tmp_path / "tables"))
    model = matmul_model(tmp_path / "mm.onnx")
    db = str(tmp_path / "r.sqlite")
    with lab.board("rpi5", drive=False) as b:
        code = main(["calibrate", "--device", b.device, "--inventory", str(b.inventory), "--budget", "15s",
                     "--threads", "1", "--out", str(tmp_path / "board.json")])
        err = capsys.readouterr().err
        assert code == 0, err
        assert f"calibrating {b.device}" in err
        table = load_table(tmp_path / "board.json")
        assert table.key.device_name == b.device and table.key.threads == 1 and table.key.runtime == "onnxruntime"
        assert table.key.device["memory_mb"] == _mem_total_mb("rpi5")  # the board's tree, not this machine
        assert len(table.models) >= 2 and sum(1 for m in table.models for k in m.kernels if k.us is not None) >= 10
        assert table.spent_s is not None and table.spent_s <= 15 * 1.5
        code, _out, err, r = lab.deploy(b, model, *RUN, "--db", db, monkeypatch=monkeypatch, capsys=capsys)
        assert code == 0 and r is not None, err

    # the board is gone (its sshd still up, but nothing connects): predict reads the table alone
    assert main(["predict", model, "--device", b.device, "--db", db, "--json"]) == 0
    p = json.loads(capsys.readouterr().out)["predictions"][0]
    assert p["board"] == b.device and p["table_id"] and p["low_ms"] <= p["p50_ms"] <= p["high_ms"]
    store = Store(db)
    run = store.get(r["run_id"])
    assert run.identity.key() == p["config_key"]  # the prediction is found beside the board's measured run
    assert latest_by_key(store, [p["config_key"]])[p["config_key"]].p50_ms == p["p50_ms"]

    # this machine too: a table, a run, a prediction; the report ranks the two boards both ways
    assert main(["calibrate", "--device", "local", "--budget", "15s", "--threads", "1"]) == 0
    assert main(["deploy", "--device", "local", "--model", model, *RUN, "--db", db]) == 0
    assert main(["predict", model, "--device", "local", "--db", db]) == 0
    capsys.readouterr()
    assert main(["report", "--model", "mm.onnx", "--format", "md", "--out", str(tmp_path / "r.md"), "--db", db]) == 0
    md = (tmp_path / "r.md").read_text()
    assert "### Boards ranked: mm.onnx · onnxruntime fp32 · b1" in md
    assert re.search(r"The orderings agree on [01] of 1 board pairs \(Kendall τ = [+-]1\.00\)", md)
    ranked = re.findall(r"^\| ([12]) \| (\S+) \| [\d.]+ \| (\S+) \| [\d.]+ \|$", md, re.M)
    assert {row[1] for row in ranked} == {row[2] for row in ranked} == {"local", b.device}
