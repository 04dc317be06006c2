"""Output paths are checked before any work (issue 14): an unwritable --junit, --out or --id-file is a one-line
error at once, not found after measuring or reading every result."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgeprof.cli.main import main


@pytest.mark.parametrize("argv", [
    ["check", "--junit", "{missing}/check.xml"],
    ["report", "--out", "{missing}/report.html"],
    ["sweep", "{sweep}", "--id-file", "{missing}/id.txt"],
    ["check", "--junit", "{folder}"],
])
def test_an_unwritable_output_path_is_one_line_before_any_work(argv: list[str], tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    sweep = tmp_path / "s.yaml"
    sweep.write_text("name: s\nmodels: [gemm]\ndevices: [local]\nruntimes: [\"null\"]\n")
    subs = {"missing": str(tmp_path / "no" / "such"), "sweep": str(sweep), "folder": str(tmp_path)}
    args = [a.format(**subs) for a in argv] + ["--db", str(tmp_path / "r.sqlite")]
    code = main(args)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("edgeprof: error: --") and ("does not exist" in err[0] or "is a folder" in err[0])
    if argv[0] == "sweep":
        assert not (tmp_path / "r.sqlite").exists()  # refused before the sweep was even recorded
