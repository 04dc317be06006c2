"""Durations with units: one parser (vocab.parse_duration) behind the settings table's "duration" kind, so deploy's
--duration / --window / --cooldown-timeout and a sweep file's duration_s / sustained_window_s / timeout_s /
cooldown_timeout_s / lease_wait_s read `30m`, `1h30m`, `60s` alike; plain numbers stay seconds; a bad one is one
line naming the flag or the file:line."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgeprof import vocab
from edgeprof.cli.main import build_parser, main
from edgeprof.errors import ConfigError
from edgeprof.lab.spec import load_sweep
from edgeprof.vocab import DURATION_FORM, SETTINGS, fmt_duration, parse_duration


@pytest.mark.parametrize("text,seconds", [
    ("90", 90.0), ("2.5", 2.5), (" 12 ", 12.0), ("60s", 60.0), ("30m", 1800.0), ("1h30m", 5400.0),
    ("1h30m15s", 5415.0), ("1.5h", 5400.0), ("2m30s", 150.0), ("1h", 3600.0), ("45S", 45.0), (".5s", 0.5),
    ("1e3", 1000.0), ("-5m", -300.0), ("+90s", 90.0),
])
def test_seconds_and_units_read_as_seconds(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["30x", "", "m", "s", "h30", "1m1h", "5 m", "1h 30m", "30mins", "1d", "0x10",
                                  "1_000", "--", "五", "30m30m"])
def test_what_is_not_a_duration_says_the_form(text: str) -> None:
    with pytest.raises(ValueError) as e:
        parse_duration(text)
    assert str(e.value) == DURATION_FORM


@pytest.mark.parametrize("seconds", [1.0, 12.0, 59.0, 60.0, 90.0, 1800.0, 3600.0, 5400.0, 5415.0, 86400.0, 2.5])
def test_fmt_duration_reads_back(seconds: float) -> None:
    assert parse_duration(fmt_duration(seconds)) == seconds
    assert fmt_duration(1800.0) == "30m" and fmt_duration(5400.0) == "1h30m" and fmt_duration(90.0) == "1m30s"


def test_the_table_checks_and_types_durations() -> None:
    d, w = SETTINGS["duration_s"], SETTINGS["sustained_window_s"]
    assert d.kind == w.kind == vocab.POLICY["timeout_s"].kind == SETTINGS["cooldown_timeout_s"].kind == "duration"
    assert d.check("30m") is None and d.typed("30m") == 1800.0 and d.typed(90) == 90.0
    assert d.check("0s") == "must be >= 1 s" and d.check("-5m") == "must be >= 1 s"
    assert d.check("30x") == DURATION_FORM and d.check(True) == DURATION_FORM
    assert d.check("8d") == DURATION_FORM and d.check("170h") == "must be <= 604800 s (168h)"
    assert d.check("nan") == "must be a finite number" and w.check("0.5") == "must be >= 1 s"
    # the other seconds settings stay plain numbers (their flags keep argparse's float)
    assert SETTINGS["min_duration_s"].kind == SETTINGS["warmup_s"].kind == "number"


@pytest.mark.parametrize("value,said", [
    ("30x", f"--duration 30x: {DURATION_FORM}"), ("0s", "--duration 0s: must be >= 1 s"),
    ("-5m", "--duration -5m: must be >= 1 s"), ("1h30x", f"--duration 1h30x: {DURATION_FORM}"),
])
def test_bad_durations_on_the_command_line_are_one_line(value: str, said: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["deploy", "--device", "no-such-board", "--model", "none", "--runtime", "null", "--scenario",
                 "sustained", f"--duration={value}", "--db", str(tmp_path / "r.sqlite")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and said in err, err
    assert "no-such-board" not in err  # refused before the device is looked up


def test_the_issues_command_reads_as_minutes_and_seconds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from edgeprof.cli.deploy import check_args

    args = build_parser("deploy").parse_args(["deploy", "--device", "local", "--model", "mobilenet_v2",
                                              "--scenario", "sustained", "--duration", "5m", "--window", "30s"])
    spec = check_args(args)
    assert (spec.duration_s, spec.sustained_window_s) == (300.0, 30.0)
    args = build_parser("deploy").parse_args(["deploy", "--device", "local", "--model", "none", "--runtime", "null",
                                              "--scenario", "sustained", "--duration", "1h30m", "--window", "90",
                                              "--cooldown", "50", "--cooldown-timeout", "2m"])
    spec = check_args(args)
    assert (spec.duration_s, spec.sustained_window_s, spec.cooldown_timeout_s) == (5400.0, 90.0, 120.0)
    # the label a 5-minute curve is known by
    assert vocab.scenario_label("sustained", duration_s=spec.duration_s, window_s=30.0) == \
        "sustained 1h30m in 30s windows"


def test_help_shows_the_form(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["deploy", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--duration TIME sustained: the run's length: seconds, or with units h, m, s (30m, 1h30m, 90s; " \
           "default 30m)" in text
    assert "--window TIME sustained: cut the run into windows of TIME (seconds, or 60s, 2m; default 1m)" in text


def _sweep(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text("models: [ds_cnn]\ndevices: [local]\nscenarios: [sustained]\n" + body)
    return path


def test_a_sweep_file_takes_the_same_words(tmp_path: Path) -> None:
    spec = load_sweep(str(_sweep(tmp_path, "settings: {duration_s: 30m, sustained_window_s: 60s, timeout_s: 15m, "
                                           "cooldown_timeout_s: 90, lease_wait_s: 1h}\n"
                                           "overrides:\n  - match: {model: ds_cnn}\n    duration_s: 1h30m\n")))
    s = spec.settings
    assert (s["duration_s"], s["sustained_window_s"], s["timeout_s"], s["cooldown_timeout_s"],
            s["lease_wait_s"]) == (1800.0, 60.0, 900.0, 90.0, 3600.0)
    assert spec.overrides[0].settings["duration_s"] == 5400.0


@pytest.mark.parametrize("body,where,said", [
    ("settings: {duration_s: 30x}\n", "s.yaml:4 settings.duration_s", DURATION_FORM),
    ("settings:\n  sustained_window_s: 0s\n", "s.yaml:5 settings.sustained_window_s", "must be >= 1 s"),
    ("overrides:\n  - match: {model: ds_cnn}\n    duration_s: -5m\n", "s.yaml:6 overrides[0].duration_s",
     "must be >= 1 s"),
])
def test_a_bad_duration_in_a_sweep_file_is_a_file_line_error(tmp_path: Path, body: str, where: str,
                                                             said: str) -> None:
    with pytest.raises(ConfigError) as e:
        load_sweep(str(_sweep(tmp_path, body)))
    line = e.value.one_line().replace(str(tmp_path) + "/", "")
    assert line.startswith(where) and said in line and "\n" not in line, line


def test_a_duration_with_a_control_character_is_one_quoted_line(capsys) -> None:  # type: ignore[no-untyped-def]
    from edgeprof.cli.main import main

    assert main(["deploy", "--device", "local", "--model", "ds_cnn", "--cooldown-timeout", "\r"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--cooldown-timeout '\\r': must be seconds" in err[0], err
