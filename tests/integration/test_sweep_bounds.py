"""Issue 21 items 2 and 5 for sweep files, through `edgeprof sweep --dry-run`: the data paths a sweep names exist,
its rates have the bounds --rate has, its name is printable, its matrix has a size limit, and a sweep of 0 cells
is an error. Each is one line naming the file (and the line where it can)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from edgeprof.cli.main import main

BASE = "version: 1\nmodels: [mobilenet_v2]\ndevices: [local]\nruntimes: [onnxruntime]\n"


def refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> str:
    f = tmp_path / "s.yaml"
    f.write_text(text)
    code = main(["sweep", str(f), "--dry-run", "--db", str(tmp_path / "r.sqlite")])
    err = capsys.readouterr().err.strip()
    assert code != 0 and "Traceback" not in err and len(err.splitlines()) == 1, err
    assert "s.yaml" in err, err
    return err


@pytest.mark.parametrize("key", ["input_data", "accuracy", "calibration"])
def test_a_data_path_pointing_nowhere_is_refused_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             key: str) -> None:
    err = refusal(tmp_path, capsys, BASE + f"settings:\n  {key}: nowhere.npz\n")
    assert "s.yaml:6" in err and "nowhere.npz: no such file or directory" in err, err


def test_an_existing_data_path_is_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    np.savez(tmp_path / "val.npz", x=np.zeros((1, 4), np.float32), labels=np.zeros(1, np.int64))
    f = tmp_path / "s.yaml"
    f.write_text(BASE + "settings:\n  accuracy: val.npz\n")
    assert main(["sweep", str(f), "--dry-run", "--db", str(tmp_path / "r.sqlite")]) == 0


@pytest.mark.parametrize("rate,message", [("1.0e-300", "beyond the 7-day limit of a run"),
                                          ("1.0e-6", "beyond the 7-day limit"),
                                          ("1.0e6", "> 0, <= 100000")])
def test_rates_have_the_bounds_of_the_rate_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str], rate: str,
                                                message: str) -> None:
    err = refusal(tmp_path, capsys, BASE + f"scenarios: [fixed-rate]\nrates: [{rate}]\n")
    assert message in err and "s.yaml:6" in err, err


def test_a_nul_in_the_name_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = refusal(tmp_path, capsys, 'name: "night\\0ly"\n' + BASE)
    assert "s.yaml:1" in err and "without control characters" in err, err


def test_a_huge_matrix_is_refused_with_its_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    batches = ", ".join(str(b) for b in range(1, 201))
    threads = ", ".join(str(t) for t in range(1, 101))
    err = refusal(tmp_path, capsys, BASE + f"precisions: [fp32, fp16, int8]\nbatch: [{batches}]\n"
                                           f"threads: [{threads}]\n")
    assert "60000 cells, beyond the limit of 10000" in err, err


def test_a_sweep_of_zero_cells_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = refusal(tmp_path, capsys, BASE + "exclude: [{model: mobilenet_v2}]\n")
    assert "0 cells" in err and "measure nothing" in err, err
