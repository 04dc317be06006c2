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
from edgeprof.lab import sweep_state as ledger
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
    from edgeprof.analysis.compare import ALPHA_RANGE, check_alpha, parse_min_effect
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


@PROPS
@given(bound=st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr),
                       st.sampled_from(["1e999", "-1e999", "1e308", "9" * 400, "+.5", "1e-400"]),
                       st.text(max_size=10)),
       op=st.sampled_from(["<", "<=", ">", ">=", "=", "<<"]))
def test_any_budget_is_a_finite_bound_or_one_line(bound: str, op: str) -> None:
    import math

    from edgeprof.analysis.regress import parse_budget

    try:
        b = parse_budget(f"p99_ms {op} {bound}")
    except ValueError as e:
        assert "\n" not in str(e)
        return
    assert math.isfinite(b.value) and b.op == op


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


# -- output that cannot be trusted -----------------------------------------------------------------------------

FORMULAS = ["=cmd|' /C calc'!A0", "@SUM(1+1)", "+1+1", "-2+3", "\t=1", "\r=1"]
ESCAPES = "m\x1b]0;owned\x07\x1b[31mred\x1b[2J\u202eevil.onnx"


def hostile_db(tmp_path: Path, **fields: str) -> str:
    import dataclasses

    import report_samples

    db = str(tmp_path / "db.sqlite")
    store = Store(db)
    store.save(dataclasses.replace(report_samples.make_result("x86-t4", "mobilenet_v2"), **fields))
    return db


@pytest.mark.parametrize("name", FORMULAS)
def test_csv_report_cells_never_start_a_formula(tmp_path: Path, name: str) -> None:
    import csv

    db = hostile_db(tmp_path, model=name, device=name)
    out = tmp_path / "r.csv"
    assert main(["report", "--db", db, "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open(newline="")))
    assert rows and all(r["device"] == "'" + name.replace("\t", "\\x09").replace("\r", "\\x0d") for r in rows), rows
    assert all(not r[k].startswith(("=", "+", "-", "@", "\t", "\r")) for r in rows for k in r)


def test_escape_sequences_in_names_are_shown_never_sent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A model named with a window-title sequence, colours, a screen clear and a right-to-left override reached
    the terminal raw in `results list` (and show, compare, reports)."""
    db = hostile_db(tmp_path, model=ESCAPES, device="dev\x1b[1mX", reason=None)
    run_id = Store(db).list()[0].run_id
    md = tmp_path / "r.md"
    for argv in (["results", "list"], ["results", "show", run_id], ["compare", run_id, run_id],
                 ["report", "--out", str(md)]):
        code = main([*argv, "--db", db])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert "\x1b" not in out + err and "\u202e" not in out + err and "\x07" not in out + err, (argv, out, err)
    assert "\\x1b]0;owned\\x07" in md.read_text() and "\x1b" not in md.read_text()


# -- the results database ------------------------------------------------------------------------------------


def saved(tmp_path: Path, n: int = 2) -> tuple[str, list[str]]:
    import dataclasses

    import report_samples

    db = str(tmp_path / "db.sqlite")
    store = Store(db)
    ids = []
    for i, model in enumerate(["mobilenet_v2", "ds_cnn"][:n]):
        r = dataclasses.replace(report_samples.make_result("x86-t4", model), run_id=f"20261120-02000{i}-00000{i}")
        store.save(r)
        ids.append(r.run_id)
    store.engine.dispose()
    return db, ids


@pytest.mark.parametrize("value", ["abc", "", "4.5", "-1", "99999999999999999999", "٣"])
def test_a_corrupt_meta_schema_version_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   value: str) -> None:
    import sqlite3

    db, _ = saved(tmp_path, 1)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (value,))
    code = main(["results", "list", "--db", db])
    err = one_line(capsys)
    assert code == 2 and "corrupt schema version" in err and db in err, err


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", "null", '{"run_id": 3}', "\"x\""])
def test_a_corrupt_row_is_one_line_and_the_other_rows_still_show(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 text: str) -> None:
    import sqlite3

    db, (bad, good) = saved(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE runs SET result_json = ? WHERE run_id = ?", (text, bad))
    assert main(["results", "show", bad, "--db", db]) == 2
    err = one_line(capsys)
    assert bad in err and "cannot be read" in err, err
    assert main(["results", "list", "--db", db]) == 0
    listed = capsys.readouterr().out
    assert bad in listed and good in listed
    out = tmp_path / "r.md"
    assert main(["report", "--db", db, "--model", "x", "--out", str(out)]) == 2  # no match: still one line
    capsys.readouterr()
    assert main(["report", "--db", db, "--device", "x86-t4", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "skipped" in err and bad in err and "Traceback" not in err, err
    assert main(["results", "show", good, "--db", db]) == 0
    capsys.readouterr()
    assert main(["compare", bad, good, "--db", db]) == 2  # the row is named, not "neither a sweep nor a run"
    err = one_line(capsys)
    assert bad in err and "cannot be read" in err and "neither" not in err, err


@pytest.mark.parametrize("argv,message", [
    (["results", "show", "x" * 60_000], "60000 characters"),
    (["results", "show", ""], "0 characters"),
    (["results", "list", "--model", "m" * 60_000], "model filter of 60000 characters"),
    (["results", "list", "--device", "d" * 60_000], "device filter of 60000 characters"),
    (["results", "list", "--limit", str(10**21)], "out of range"),
    (["results", "list", "--limit", "-5"], "out of range"),
    (["compare", "x" * 60_000, "y"], "60000 characters"),
    (["report", "--model", "m" * 60_000, "--out", "{tmp}/r.html"], "model filter of 60000"),
    (["results", "list", "--db", "sqlite://"], "in-memory"),
    (["results", "list", "--db", "sqlite:///:memory:"], "in-memory"),
])
def test_results_queries_out_of_bounds_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    argv: list[str], message: str) -> None:
    db, _ = saved(tmp_path, 1)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code = main(argv if "--db" in argv else [*argv, "--db", db])
    err = one_line(capsys)
    assert code == 2 and message in err, err


# -- results import validates like a fresh result ---------------------------------------------------------------


def result_file(tmp_path: Path, **changes: object) -> Path:
    import json

    import report_samples

    data = json.loads(report_samples.make_result("x86-t4", "mobilenet_v2").to_json())
    for dotted, value in changes.items():
        node = data
        *head, last = dotted.split("__")
        for k in head:
            node = node[k]
        node[last] = value
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("changes,field", [
    ({"run_id": "../../x"}, "run_id"),
    ({"run_id": ""}, "run_id"),
    ({"run_id": "r" * 100_000}, "run_id"),
    ({"run_id": "a/b"}, "run_id"),
    ({"run_id": "a\x1b[31m"}, "run_id"),
    ({"status": "bogus"}, "status"),
    ({"latency_ms__p50": -1.0}, "latency_ms.p50"),
    ({"latency_ms__p99": -0.001}, "latency_ms.p99"),
    ({"samples_ms": [1.0, -2.0]}, "samples_ms[1]"),
    ({"throughput_ips": -5}, "throughput_ips"),
    ({"batch": 0}, "batch"),
    ({"model": "m" * 300}, "model"),
    ({"device": ""}, "device"),
    ({"latency_ms__cv": []}, "latency_ms.cv"),  # found by the property test below: results show then crashed
    ({"latency_ms__n": "12"}, "latency_ms.n"),
    ({"scenario": {"name": "server", "valid": [0]}}, "scenario.valid"),  # found by the property test: report crashed
])
def test_results_import_refuses_what_edgeprof_would_never_store(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 changes: dict[str, object], field: str) -> None:
    path = result_file(tmp_path, **changes)
    db = str(tmp_path / "db.sqlite")
    code = main(["results", "import", str(path), "--db", db])
    err = one_line(capsys)
    assert code == 2 and f"field {field}:" in err and str(path) in err, err
    assert Store(db).count() == 0
    assert main(["report", "--db", db, "--out", str(tmp_path / "r.html")]) == 2  # nothing stored: one line
    one_line(capsys)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("kind", ["fifo", "dev", "huge", "dir"])
def test_results_import_of_a_fifo_a_device_or_a_huge_file_is_refused_at_once(tmp_path: Path,
                                                                              capsys: pytest.CaptureFixture[str],
                                                                              kind: str) -> None:
    path = tmp_path / "r.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev":
        path = Path("/dev/zero")
    elif kind == "huge":
        with open(path, "wb") as f:
            f.truncate(600 << 20)  # sparse
    else:
        path.mkdir()
    code = main(["results", "import", str(path), "--db", str(tmp_path / "db.sqlite")])
    err = one_line(capsys)
    assert code == 2 and str(path) in err, err


def test_a_recovery_file_never_escapes_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    import report_samples

    from edgeprof import store as store_mod

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    r = dataclasses.replace(report_samples.make_result("x86-t4", "mobilenet_v2"), run_id="../../escaped")
    path = store_mod.write_recovery(r, "somewhere")
    assert path.parent == store_mod.recovery_dir() and path.name.startswith("run-")
    assert not list(tmp_path.glob("escaped*")) and not (tmp_path / "data" / "escaped.json").exists()


# -- nothing overwrites the results ---------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["", "-journal", "-wal", "-shm"])
@pytest.mark.parametrize("command", [["report", "--out"], ["check", "--junit"]])
def test_an_output_path_that_is_the_database_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch, suffix: str,
                                                        command: list[str]) -> None:
    db, _ = saved(tmp_path, 1)
    before = Path(db).read_bytes()
    monkeypatch.chdir(tmp_path)
    target = Path(db + suffix).name
    code = main([*command, target, "--db", "db.sqlite"])
    err = one_line(capsys)
    assert code == 2 and "results database" in err and "destroy" in err, err
    assert Path(db).read_bytes() == before
    link = tmp_path / "link.html"
    link.symlink_to(db)
    monkeypatch.setenv("EDGEPROF_DB", db)
    assert main([*command, str(link)]) == 2  # through a link, and the database from $EDGEPROF_DB
    one_line(capsys)
    assert Path(db).read_bytes() == before


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", [["report", "--out"], ["check", "--junit"]])
def test_a_full_disk_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    db, _ = saved(tmp_path, 1)
    ledger.create_sweep(Store(db), "sw-20260101-000000-0000", "nightly", None, {}, [])
    code = main([*command, "/dev/full", "--db", db, *(["--allow-empty"] if command[0] == "check" else ["--device", "x86-t4"])])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and "Traceback" not in "\n".join(err) and "/dev/full" in err[-1] and "No space" in err[-1], err


def test_a_failed_write_leaves_the_old_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from edgeprof.errors import ConfigError
    from edgeprof.files import output as outputs

    target = tmp_path / "report.html"
    target.write_text("old")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(outputs.os, "fsync", full)
    with pytest.raises(ConfigError, match="No space left"):
        outputs.write_output(target, "new" * 1000, "--out")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_deploy_json_onto_edgeprof_db_is_refused_before_measuring(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """check_writable (cli/common.py) protects the database $EDGEPROF_DB names for every output flag using it."""
    db, _ = saved(tmp_path, 1)
    before = Path(db).read_bytes()
    monkeypatch.setenv("EDGEPROF_DB", db)
    code = main(["deploy", "--device", "local", "--model", "ds_cnn", "--runtime", "null", "--json", db])
    err = one_line(capsys)
    assert code == 2 and "--json" in err and "results database" in err, err
    assert Path(db).read_bytes() == before


# -- hostile data files through --input-data and --calibration -------------------------------------------------


def hostile_arrays(kind: str, path: Path) -> None:
    """Write a hostile data file at `path` (.npz, or a directory of x.npy)."""
    import io
    import zipfile

    import numpy as np
    import numpy.lib.format as npformat

    def header(shape: tuple[int, ...], descr: str = "<f4") -> bytes:
        buf = io.BytesIO()
        npformat.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False, "shape": shape})
        return buf.getvalue()

    members = {
        "empty": lambda: np.zeros((0, 16, 128), np.float32),
        "complex": lambda: np.ones((1, 16, 128), np.complex64),
        "unicode": lambda: np.array(["a"] * 4),
        "object": lambda: np.array([{"a": 1}], dtype=object),
    }
    if kind in members:
        arr = members[kind]()
        with zipfile.ZipFile(path, "w") as z:
            with z.open("x.npy", "w") as f:
                np.lib.format.write_array(f, arr, allow_pickle=True)
    elif kind == "claims_terabytes":
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("x.npy", header((10**12, 4)) + b"\0" * 64)
    elif kind == "zip_bomb":
        np.savez_compressed(path, x=np.zeros(40 << 20, np.uint8))
    elif kind == "garbage":
        path.write_bytes(b"PK\x03\x04" + os.urandom(300))
    elif kind == "float64_overflow":
        np.savez(path, x=np.full((1, 16, 128), 1e300))


HOSTILE_DATA = {"empty": "holds no values", "complex": "complex numbers", "unicode": "unicode strings",
                "object": "Python objects", "claims_terabytes": "above the limit", "zip_bomb": "zip bomb",
                "garbage": "", "float64_overflow": "float64"}  # --input-data: exact dtype; calibration: "1e+300 overflows float32"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", sorted(HOSTILE_DATA))
def test_hostile_input_data_is_one_line_naming_file_and_array(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              kind: str) -> None:
    from test_sweep_local import write_model

    write_model(tmp_path / "m.onnx")
    data = tmp_path / "d.npz"
    hostile_arrays(kind, data)
    code = main(["deploy", "--device", "local", "--model", str(tmp_path / "m.onnx"), "--input-data", str(data),
                 "--no-store", "--quiet", "--min-duration", "0.1", "--warmup", "0"])
    err = one_line(capsys)
    assert code == 2 and str(data) in err and HOSTILE_DATA[kind] in err, err


@pytest.mark.parametrize("kind", sorted(HOSTILE_DATA))
def test_hostile_calibration_files_are_one_line(tmp_path: Path, kind: str) -> None:
    from edgeprof.errors import ConfigError
    from edgeprof.export.quantize import calibration_samples
    from edgeprof.records import TensorSpec

    (tmp_path / "cal").mkdir()
    hostile_arrays(kind, tmp_path / "cal" / "s.npz")
    spec = TensorSpec(name="x", shape=[1, 16, 128], dtype="float32")
    with pytest.raises(ConfigError) as info:
        calibration_samples([spec], {"x": (1, 16, 128)}, 0, tmp_path / "cal")
    assert "--calibration" in info.value.message and "s.npz" in info.value.message
    want = "1e+300 overflows float32" if kind == "float64_overflow" else HOSTILE_DATA[kind]
    assert want in str(info.value) and "\n" not in str(info.value)


def test_calibration_that_is_missing_is_refused_whatever_the_precision() -> None:
    from edgeprof.errors import ConfigError
    from edgeprof.files.datafiles import require_calibration_dir

    with pytest.raises(ConfigError, match="no such directory"):
        require_calibration_dir("/nonexistent/calib")
    with pytest.raises(ConfigError, match="not a directory"):
        require_calibration_dir("/dev/null")
    assert require_calibration_dir(None) is None


def test_junit_xml_of_hostile_names_is_well_formed(tmp_path: Path) -> None:
    """An escape sequence or NUL in a model name made check's JUnit XML unreadable to a CI server (XML 1.0 has no
    control characters); they are shown as \\x1b and the file parses."""
    import xml.etree.ElementTree as ET

    from edgeprof.analysis.regress import Finding
    from edgeprof.report.junit import junit_xml

    f = Finding(classname="edgeprof.d\x00", name=ESCAPES + " · p99_ms", outcome="failed", kind="budget",
                message="=cmd\x1b[2J", detail="line\nx\x07")
    root = ET.fromstring(junit_xml([f], properties={"scope": "s\x1b"}).split("\n", 1)[1])
    case = root.find("testsuite/testcase")
    assert case is not None and "\\x1b]0;owned\\x07" in case.get("name", "")
    failure = case.find("failure")
    assert failure is not None and failure.text == "line\nx\\x07"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("flags,message", [
    (["--input", "x=99999999999x16x128"], "GiB per input"),
    (["--input", "x=600000x16x128"], "GiB per input"),
    (["--input-value", "x=1e308"], "beyond float32's range"),
    (["--input-value", "x=-3.5e38"], "beyond float32's range"),
    (["--input-value", "x=" + "9" * 400], "beyond float32's range"),
    (["--input-range", "x=-1e308:1e308"], "beyond what float32 values can span"),
    (["--input-range", "x=0:1e39"], "beyond what float32 values can span"),
])
def test_input_numbers_a_float32_cannot_hold_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          flags: list[str], message: str) -> None:
    """`--input x=99999999999x4` was an allocation traceback, `--input-range x=-1e308:1e308` an OverflowError,
    `--input-value x=1e308` for a float32 input fed inf without a word."""
    from test_sweep_local import write_model

    write_model(tmp_path / "m.onnx")
    code = main(["deploy", "--device", "local", "--model", str(tmp_path / "m.onnx"), *flags, "--no-store", "--quiet",
                 "--min-duration", "0.1", "--warmup", "0"])
    err = one_line(capsys)
    assert code == 2 and message in err, err


JSON_VALUES = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                                     st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20)),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                        max_size=3), max_leaves=6)


_IMPORTS: dict[str, object] = {}


@pytest.mark.timeout(240)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(data=st.data())
def test_any_mutated_result_file_is_stored_cleanly_or_one_line(tmp_path_factory: pytest.TempPathFactory,
                                                               data: st.DataObject) -> None:
    """results import of a result file with any field replaced by any JSON value: stored (and then shown and
    reported without a traceback) or refused in one StoreError line."""
    import json

    import report_samples

    from edgeprof.cli.ui import render_result
    from edgeprof.errors import StoreError
    from edgeprof.report.data import gather
    from edgeprof.report.tabular import render_csv, render_markdown

    if "store" not in _IMPORTS:
        tmp = tmp_path_factory.mktemp("imp")
        _IMPORTS.update(store=Store(str(tmp / "db.sqlite")), tmp=tmp,
                        doc=report_samples.make_result("x86-t4", "mobilenet_v2").to_json())
    store, tmp = _IMPORTS["store"], _IMPORTS["tmp"]
    assert isinstance(store, Store) and isinstance(tmp, Path)
    doc = json.loads(str(_IMPORTS["doc"]))
    _IMPORTS["n"] = n = int(str(_IMPORTS.get("n", 0))) + 1
    doc["run_id"] = f"20260101-000000-{n:06d}"
    for _ in range(data.draw(st.integers(1, 3))):
        node = doc
        while True:
            key = data.draw(st.sampled_from(sorted(node)))
            if isinstance(node[key], dict) and node[key] and data.draw(st.booleans()):
                node = node[key]
                continue
            node[key] = data.draw(JSON_VALUES)
            break
    path = tmp / "r.json"
    path.write_text(json.dumps(doc))
    try:
        r = store.import_file(path)
    except StoreError as e:
        assert "\n" not in str(e)
        return
    got = store.get(r.run_id)
    render_result(got)
    report = gather(store, device=got.device, history=0)
    render_csv(report)
    render_markdown(report)
