"""A sustained run's duration rules, not a query count, and every sample is kept (issue 35): `edgeprof deploy
--scenario sustained` over a real sshd to a simulated Pi 5 (boardlab.py) with the null runtime, whose queries take
microseconds, for 4 s in 1 s windows: far more queries than the old default cap (--max-queries 200000) would
have let through. Every window holds queries, every sample crosses the wire packed, is stored packed in SQLite
and loads back to the same numbers; `results show` and `--json` still give them. --max-queries with sustained is
refused in one line."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator

import pytest
from boardlab import BoardLab, board_lab
from sshd import SSHLab

from edgeprof.cli.main import main
from edgeprof.records import RESULT_SCHEMA_VERSION
from edgeprof.store import Store
from edgeprof_agent.vocab import RUN_DEFAULTS

pytestmark = [pytest.mark.ssh, pytest.mark.slow]

OLD_CAP = int(RUN_DEFAULTS["max_queries"])  # 200000: where a sustained run used to stop


@pytest.fixture(scope="module")
def lab(ssh_lab: SSHLab, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BoardLab]:
    with board_lab(ssh_lab, tmp_path_factory.mktemp("sustained-duration"), "sustained-duration") as bl:
        yield bl


def test_a_fast_sustained_run_over_ssh_runs_its_duration_and_keeps_every_sample(
        lab: BoardLab, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with lab.board("rpi5", idle_w=2.0, wave={"base": 4.0, "amp": 0.0}) as b:
        code, _out, err, r = lab.deploy(b, "m", "--runtime", "null", "--scenario", "sustained", "--duration", "4",
                                        "--window", "1", "--warmup", "0", "--idle", "0",
                                        monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0 and r is not None, err
    n = len(r["samples_ms"])
    assert r["status"] == "ok" and n > OLD_CAP, n  # the old cap would have cut it
    assert r["latency_ms"]["n"] == n == r["scenario"]["queries"] == len(r["scenario"]["issued_ms"])
    rows = r["sustained"]["windows"]
    assert len(rows) == 4 and all(w["n"] > 0 for w in rows) and sum(w["n"] for w in rows) == n
    assert rows[-1]["start_s"] == 3.0 and rows[-1]["end_s"] == 4.0
    codes = [w["code"] for w in r["warnings"]]
    assert "max_queries" not in codes and "sustained_empty_windows" not in codes
    assert all(isinstance(v, float) and v > 0 for v in r["samples_ms"][:1000])  # --json: numbers
    issued = r["scenario"]["issued_ms"]
    assert issued[0] >= 0 and all(a <= b for a, b in zip(issued, issued[1:], strict=False))
    # the last query starts about when the duration ends and ends near it: the loop stops at the duration, not at a
    # count (the old cap stopped seconds early). It may start just past it: the loop looks at the clock when a query
    # is done, and the next one starts at a later reading of the clock (one started at 4000.0 ms, rounded, on a
    # loaded machine); what lies between a loaded machine can stretch to tens of milliseconds
    assert issued[-1] < 4000.0 + 250.0 and issued[-1] + r["samples_ms"][-1] > 4000.0 - 250.0
    # the store holds them packed, a few bytes each, and gives back the very numbers --json wrote
    with sqlite3.connect(lab.db) as c:
        (text,) = c.execute("SELECT result_json FROM runs WHERE run_id = ?", (r["run_id"],)).fetchone()
    stored = json.loads(text)
    assert stored["schema_version"] == RESULT_SCHEMA_VERSION and stored["samples_ms"]["encoding"] == "int64-shuffle8-zlib"
    assert stored["samples_ms"]["n"] == n and stored["scenario"]["issued_ms"]["n"] == n
    assert len(text) < 8 * n  # JSON numbers would take about 19 bytes a sample for each list
    back = Store(f"sqlite:///{lab.db}").get(r["run_id"])
    assert back.samples_ms == r["samples_ms"] and back.scenario.issued_ms == issued
    assert main(["results", "show", r["run_id"], "--db", lab.db]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "sustained: 4 windows of 1 s" in shown
    assert main(["results", "show", r["run_id"], "--db", lab.db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["samples_ms"] == r["samples_ms"]


def test_max_queries_with_sustained_is_one_line(lab: BoardLab, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    with lab.board("rpi5", drive=False) as b:
        code, _out, err, r = lab.deploy(b, "m", "--runtime", "null", "--scenario", "sustained", "--duration", "3",
                                        "--window", "1", "--max-queries", "1000", monkeypatch=monkeypatch,
                                        capsys=capsys)
    assert code != 0 and r is None
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert any("--max-queries does not apply to --scenario sustained" in ln for ln in lines), err
    assert "Traceback" not in err and len(lines) <= 2
