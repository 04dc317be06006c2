"""Issue 14's defects that had no end-to-end test of their own (docs/hardening.md lists the test of each):
a YAML alias bomb through the commands that read the files (`sweep --dry-run`, `sweep`, `deploy`), `--resume`
of a sweep whose rows cannot be stored (exit 1 again, never a silent 0), and a results database written by an
older edgeprof with bare NaN in its JSON read by `results show --json`, `report` and `check`."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest
from test_store_faults import make_result

from edgeprof.cli.main import main
from edgeprof.lab import sweep_state as ledger
from edgeprof.store import Store

BOMB = "{a: &a [x, x, x, x, x, x, x, x, x, x], " + ", ".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]" for i in range(8)) + "}"  # 10^9 nodes


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", [["sweep", "s.yaml", "--dry-run"], ["sweep", "s.yaml"],
                                     ["deploy", "--device", "nano", "--model", "ds_cnn", "--runtime", "null"]])
def test_an_alias_bomb_under_pass_through_keys_is_one_line_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   command: list[str]) -> None:
    """The bomb under `power:` (devices.yaml) and `runtime_options` / `exclude` (sweep.yaml) used to hang
    deploy, sweep and --dry-run: each is a file:line error in well under a second of parsing."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "devices.yaml").write_text(f"version: 1\ndevices:\n  nano:\n    host: a\n    power: {BOMB}\n")
    (tmp_path / "s.yaml").write_text(f"models: [ds_cnn]\ndevices: [local]\nexclude: [{BOMB}]\n"
                                     f"settings: {{runtime_options: {BOMB}}}\n")
    started = time.monotonic()
    code = main([*command, "--inventory", "devices.yaml", "--db", str(tmp_path / "r.sqlite")])
    elapsed = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 2 and elapsed < 20, (code, elapsed, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert "expands to more than" in err and (":3" in err or ":5" in err), err


def test_resume_of_a_sweep_whose_rows_cannot_be_stored_exits_1_again(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 14's silent green: `--resume` of a sweep whose board worker broke repeated the exit 0. Here the
    database refuses every row (the cell stays pending): the sweep exits 1, and so does its resume."""
    from test_sweep_local import write_model

    write_model(tmp_path / "m.onnx")
    (tmp_path / "s.yaml").write_text("name: again\nmodels: [m.onnx]\ndevices: [local]\nruntimes: ['null']\n"
                                     "settings: {min_duration_s: 0.1, min_queries: 5, warmup_s: 0}\n")
    db = str(tmp_path / "db.sqlite")

    def commit_broken(*a: object) -> None:
        raise OverflowError("Python int too large to convert to SQLite INTEGER")

    monkeypatch.setattr(ledger, "commit_cell", commit_broken)
    assert main(["sweep", str(tmp_path / "s.yaml"), "--db", db, "--quiet", "--id-file", str(tmp_path / "id")]) == 1
    sweep_id = (tmp_path / "id").read_text().strip()
    capsys.readouterr()
    assert main(["sweep", "--resume", sweep_id, "--db", db, "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "rerunning 1 of 1 cells" in err and "1 not run" in err, err
    assert ledger.get_sweep(Store(db), sweep_id).counts()["pending"] == 1


def test_a_database_with_bare_nan_from_an_older_edgeprof_reads_cleanly(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Rows stored before NaN was refused hold bare NaN in their JSON (`report` crashed on them, and
    `results show --json` printed invalid JSON): they read as missing numbers."""
    db = tmp_path / "r.sqlite"
    r = make_result()
    Store(str(db)).save(r)
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE runs SET result_json = replace(result_json, '\"throughput_ips\": 1.0', "
                    "'\"throughput_ips\": NaN'), throughput_ips = NULL WHERE run_id = ?", (r.run_id,))
    assert "NaN" in con.execute("SELECT result_json FROM runs").fetchone()[0]
    con.close()
    assert main(["results", "show", r.run_id, "--db", str(db), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out, parse_constant=lambda c: pytest.fail(f"bare {c} printed"))
    assert shown["throughput_ips"] is None
    for fmt in ("html", "md", "csv"):
        out = tmp_path / f"report.{fmt}"
        assert main(["report", "--db", str(db), "--out", str(out)]) == 0, capsys.readouterr().err
        text = out.read_text().replace("isNaN(", "")  # the HTML report's own sorting script
        assert "NaN" not in text, fmt
    capsys.readouterr()
