"""Issue 35 item 5 (and item 3's flag) through the CLI, each bad case one line: `compare` with a run id prefix that
fits several runs says it is ambiguous and lists a few (the sentence `results show` says); a database URL SQLAlchemy
cannot read names where it came from (--db / EDGEPROF_DB), the value, and the forms that are accepted; a bad
`deploy --lease-wait` names the flag."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_store import make_result

from edgeprof.cli.main import main
from edgeprof.store import Store

FORMS = "give a SQLite file path (results.sqlite), sqlite:///PATH or postgresql://USER@HOST/DB"


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("edgeprof: error: "), err
    return lines[0]


@pytest.fixture
def three_runs(tmp_path: Path) -> tuple[str, list[str]]:
    db = str(tmp_path / "r.sqlite")
    store = Store(db)
    ids = [f"20261205-0000{i}0-abc{i}" for i in range(3)]
    for run_id in ids:
        store.save(make_result(run_id=run_id))
    return db, ids


def test_compare_with_an_ambiguous_prefix_lists_a_few_runs(three_runs: tuple[str, list[str]],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    db, ids = three_runs
    assert main(["results", "show", "20", "--db", db]) == 2
    shown = one_line(capsys)
    assert main(["compare", "20", ids[0], "--db", db]) == 2
    line = one_line(capsys)
    assert line == shown, (line, shown)  # the same sentence as results show
    assert "run id prefix '20' is ambiguous" in line and "neither" not in line, line
    assert sum(i in line for i in ids) >= 2 and "give more characters of the run id" in line, line
    assert main(["compare", ids[1], "2026", "--db", db]) == 2  # as B too
    assert "run id prefix '2026' is ambiguous" in one_line(capsys)
    assert main(["compare", ids[0], ids[1], "--db", db]) == 0  # whole ids still compare
    capsys.readouterr()


def test_compare_with_an_unknown_ref_still_says_neither(three_runs: tuple[str, list[str]],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    db, _ = three_runs
    assert main(["compare", "19", "20", "--db", db]) == 2
    assert "'19' is neither a sweep nor a run" in one_line(capsys)


@pytest.mark.parametrize(("value", "said"), [
    ("bogus://", "EDGEPROF_DB 'bogus://': no database kind 'bogus' is known (SQLAlchemy has no such dialect)"),
    ("bogus://u:secret@h/db", "EDGEPROF_DB 'bogus://u:***@h/db': no database kind 'bogus' is known"),
    ("://u:secret@h", "EDGEPROF_DB '://u:***@h' is not a database URL"),
])
def test_a_bad_edgeprof_db_is_one_line_naming_it(value: str, said: str, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("EDGEPROF_DB", value)
    assert main(["results", "list"]) == 2
    line = one_line(capsys)
    assert said in line and line.endswith(FORMS) and "None" not in line and "secret" not in line, line


def test_a_bad_db_flag_is_named_as_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["results", "list", "--db", "nosuch+driver://x/y"]) == 2
    line = one_line(capsys)
    assert "--db 'nosuch+driver://x/y': no database kind 'nosuch+driver' is known" in line, line


@pytest.mark.parametrize(("value", "said"), [("soon", "must be seconds (90) or a duration with units"),
                                             ("-5", "must be >= 0 s"), ("200h", "must be <= 604800 s")])
def test_a_bad_lease_wait_is_one_line(value: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deploy", "--device", "local", "--model", "ds_cnn", "--runtime", "null", "--no-store",
                 f"--lease-wait={value}"]) == 2
    line = one_line(capsys)
    assert line.startswith(f"edgeprof: error: --lease-wait {value!r}: ") and said in line, line
