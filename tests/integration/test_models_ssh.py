"""The models users bring, round 3 (issue 20), over a real sshd (boardlab.py): an ONNX file with external data
travels as one self-contained artifact (the weights arrive; a second run moves nothing) and runs on the board."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from boardlab import BoardLab, board_lab
from sshd import SSHLab
from test_models_round3 import external_data_model

pytestmark = pytest.mark.ssh

RUN = ["--min-duration", "0.2", "--min-queries", "10", "--warmup", "0", "--idle", "0", "--threads", "1"]


@pytest.fixture(scope="module")
def lab(ssh_lab: SSHLab, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BoardLab]:
    with board_lab(ssh_lab, tmp_path_factory.mktemp("models-ssh"), "models-lab") as bl:
        yield bl


def test_external_data_model_is_pushed_with_its_weights_once(lab: BoardLab, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    model = external_data_model(tmp_path / "user")
    with lab.board("rpi5", drive=False) as b:
        code, _, err, r = lab.deploy(b, str(model), *RUN, monkeypatch=monkeypatch, capsys=capsys)
        assert code == 0, err
        assert r is not None and r["status"] == "ok"
        assert r["transfer"]["artifact_bytes"] > 64 * 64 * 4  # the weights travelled in the artifact
        assert list(r["artifact"]["export_options"]["external_data"]["files"]) == ["model.onnx", "model.onnx.data"]
        code, _, err, again = lab.deploy(b, str(model), *RUN, monkeypatch=monkeypatch, capsys=capsys)
        assert code == 0, err
        assert again is not None and again["transfer"]["artifact_bytes"] == 0
