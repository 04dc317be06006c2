"""--input-data over a real sshd (boardlab.py): the data file travels with the model, content-addressed like an
artifact (a second run moves none of it), and the agent on the board feeds it; an ONNX file's external data
travels inside its artifact."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from boardlab import BoardLab, board_lab
from onnx_fixtures import sample_rate_model
from sshd import SSHLab

pytestmark = pytest.mark.ssh

RUN = ["--min-duration", "0.2", "--min-queries", "10", "--warmup", "0", "--idle", "0", "--threads", "1"]


@pytest.fixture(scope="module")
def lab(ssh_lab: SSHLab, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BoardLab]:
    with board_lab(ssh_lab, tmp_path_factory.mktemp("inputs-ssh"), "inputs-lab") as bl:
        yield bl


def test_input_data_is_pushed_once_and_fed_on_the_board(lab: BoardLab, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    model = sample_rate_model(tmp_path / "vad.onnx")
    data = tmp_path / "samples"
    data.mkdir()
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.save(data / "x.npy", x)
    np.save(data / "sr.npy", np.array(16000, dtype=np.int64))
    with lab.board("rpi5", drive=False) as b:
        code, out, err, r = lab.deploy(b, model, "--input-data", str(data), "--batch", "3", *RUN,
                                       monkeypatch=monkeypatch, capsys=capsys)
        assert code == 0, err
        assert r is not None
        ins = {i["name"]: i for i in r["io"]["inputs"]}
        assert ins["x"]["source"] == ins["sr"]["source"] == "data" and ins["x"]["shape"] == [3, 4]
        assert r["io"]["outputs"][0]["shape"] == [4, 3] and r["batch"] == 3
        first_bytes = r["transfer"]["artifact_bytes"]
        model_bytes = Path(model).stat().st_size
        assert first_bytes > model_bytes  # the model and the packed data
        code, out, err, again = lab.deploy(b, model, "--input-data", str(data), "--batch", "3", *RUN,
                                           monkeypatch=monkeypatch, capsys=capsys)
        assert code == 0, err
        assert again is not None and again["transfer"]["artifact_bytes"] == 0  # both already on the board
        assert "in  x: float32[3, 4] (model [batch, 4]) ← data" in out


def test_accuracy_data_travels_once_and_is_scored_on_the_board(lab: BoardLab, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """--accuracy over sshd: the data file (inputs only: the labels stay on the host) is pushed like an artifact,
    the board runs every sample, and the host's score matches the host runtime's own answers."""
    import onnxruntime as ort
    from accuracy_fixtures import train_classifier

    t = train_classifier(tmp_path / "trained", n_val=200)
    val = np.load(t.val)
    with lab.board("rpi5", drive=False) as b:
        code, out, err, r = lab.deploy(b, t.onnx, "--accuracy", t.val, "--batch", "8", *RUN,
                                       monkeypatch=monkeypatch, capsys=capsys)
        assert code == 0, err
        assert r is not None
        acc = r["accuracy"]
        logits = ort.InferenceSession(t.onnx, providers=["CPUExecutionProvider"]).run(
            None, {"features": val["features"]})[0]
        same = sum(p == q for p, q in zip(acc["predicted"], logits.argmax(axis=1).tolist(), strict=True))
        assert same >= 199 and acc["inferences"] == 25 and acc["per_inference"] == 8
        assert r["transfer"]["artifact_bytes"] > Path(t.onnx).stat().st_size + val["features"].nbytes
        code, out, err, again = lab.deploy(b, t.onnx, "--accuracy", t.val, "--batch", "8", *RUN,
                                           monkeypatch=monkeypatch, capsys=capsys)
        assert code == 0, err
        assert again is not None and again["transfer"]["artifact_bytes"] == 0  # both already on the board
        assert again["accuracy"]["top1"] == acc["top1"]


def test_external_data_model_is_pushed_with_its_weights_once(lab: BoardLab, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """An ONNX file with external data (issue 20) travels as one self-contained artifact: the weights arrive, a
    second run moves nothing."""
    from test_models_round3 import external_data_model

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
