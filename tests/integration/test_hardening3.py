"""Issue 21's defects in results, reports, check, compare, import and the data files, through the CLI: each
hostile input is one line and a non-zero exit (or works as documented), never a traceback, a hang, a lost
database or a raw escape sequence (docs/hardening.md lists the test of each)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgeprof.cli.main import main
from edgeprof.lab import ledger
from edgeprof.store import Store

PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


# -- check and compare: one set of bounds --------------------------------------------------------------------


@pytest.mark.parametrize("argv,message", [
    (["check", "--alpha", "nan"], "--alpha nan: a p-value threshold"),
    (["check", "--alpha", "2"], "--alpha 2.0: a p-value threshold"),
    (["check", "--alpha", "0"], "--alpha 0.0"),
    (["check", "--alpha", "inf"], "--alpha inf"),
    (["check", "--persist", "0"], "--persist 0: out of range"),
    (["check", "--persist", "-3"], "--persist -3: out of range"),
    (["check", "--history", "3", "--persist", str(10**21)], "out of range"),
    (["check", "--history", str(10**21)], "--history"),
    (["check", "--budget", "p99_ms < 1e999"], "not a finite number"),
    (["check", "--budget", "p99_ms > -1e999"], "not a finite number"),
    (["check", "--min-effect", "nan"], "--min-effect 'nan': out of range"),
    (["check", "--min-effect", "inf%"], "out of range"),
    (["compare", "a", "b", "--min-effect", "nan"], "--min-effect 'nan': out of range"),
    (["compare", "a", "b", "--min-effect", "-0.1"], "out of range"),
    (["compare", "a", "b", "--alpha", "nan"], "--alpha nan"),
    (["compare", "a", "b", "--alpha", "1"], "--alpha 1.0"),
    (["compare", "a", "b", "--min-effect", "p99_ms=0.2"], "one minimum effect"),
])
def test_statistics_options_out_of_bounds_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        argv: list[str], message: str) -> None:
    code = main([*argv, "--db", str(tmp_path / "r.sqlite")])
    err = one_line(capsys)
    assert code == 2 and message in err, err


@PROPS
@given(alpha=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, 1.0, 1e-300])),
       effect=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12)))
def test_any_alpha_and_min_effect_is_accepted_in_bounds_or_one_line(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str],
                                                                     alpha: float, effect: object) -> None:
    from edgeprof.compare import ALPHA_RANGE, check_alpha, parse_min_effect
    from edgeprof.errors import ConfigError

    try:
        assert ALPHA_RANGE[0] < check_alpha(alpha) < ALPHA_RANGE[1]
    except ConfigError as e:
        assert "\n" not in str(e)
    try:
        _, f = parse_min_effect(str(effect))
        assert 0 <= f < 10
    except ConfigError as e:
        assert "\n" not in e.message


def test_check_with_nothing_to_check_fails_unless_allowed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A sweep of 0 cells passed `check` with 0 checks: a nightly job that measures nothing was green."""
    db = str(tmp_path / "r.sqlite")
    store = Store(db)
    ledger.create_sweep(store, "sw-20260101-000000-0000", "nightly", None, {}, [])
    junit = tmp_path / "c.xml"
    assert main(["check", "--db", db, "--junit", str(junit)]) == 1
    err = capsys.readouterr().err
    assert "nothing to check" in err and "--allow-empty" in err and junit.exists(), err
    assert main(["check", "--db", db, "--allow-empty"]) == 0
    assert "nothing to check" in capsys.readouterr().err


# -- data files through the CLI ------------------------------------------------------------------------------


@pytest.mark.timeout(60)
@pytest.mark.parametrize("flag", ["--input-data", "--accuracy"])
def test_a_fifo_as_a_data_file_is_refused_without_hanging(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          flag: str) -> None:
    from test_sweep_local import write_model

    write_model(tmp_path / "m.onnx")
    fifo = tmp_path / "d.npz"
    os.mkfifo(fifo)
    started = time.monotonic()
    code = main(["deploy", "--device", "local", "--model", str(tmp_path / "m.onnx"), flag, str(fifo),
                 "--no-store", "--quiet", "--min-duration", "0.1", "--warmup", "0"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and time.monotonic() - started < 50, err
    assert "Traceback" not in err and len(err.splitlines()) == 1 and str(fifo) in err, err
