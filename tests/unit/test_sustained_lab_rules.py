"""The sustained scenario in sweeps, without a board: the configuration identity (duration and window in it, every
other scenario's key as it was), sweep files with sustained cells (window check, budgets refused for other
scenarios at their line), the cell's wall-clock limit, the board's window k/N state, the curve's figures as
metrics for budgets and for `check` night to night."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from edgeprof import vocab
from edgeprof.analysis.compare import identity_differences, metric_values
from edgeprof.analysis.regress import baseline_findings, budget_findings, history_findings, parse_budget
from edgeprof.errors import ConfigError
from edgeprof.inventory.devices import Inventory
from edgeprof.lab.board import _CellProgress
from edgeprof.lab.cell import Cell
from edgeprof.lab.history import checked_metrics
from edgeprof.lab.rows import cell_result
from edgeprof.lab.spec import expand, load_sweep, resolve_devices
from edgeprof.records import Device, Result
from edgeprof_agent.messages import ProgressEvent

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "results"
# every stored golden result's configuration key, computed by the code before the identity named a sustained run's
# duration: all but the sustained one must stay byte-identical (their nights' histories continue)
NEW_SINCE = {"ok_phone_ds_cnn.json", "ok_local_generation.json"}  # schema 8's phone run (issue 24), schema 10's generation (36)
KEYS_BEFORE = {
    "failed_sweep_row.json": "e34ff52351037726", "ok_local_ds_cnn.json": "153500cc92f492f6",
    "ok_local_int8_fidelity.json": "8a4c0a08e0b7db85", "ok_rpi5_power_thermal_ops.json": "08214436941c854b",
    "skipped_sweep_row.json": "b573c4fbe76d918a", "ok_local_fixed_rate.json": "4c62ca5968b55bde",
    "ok_local_accuracy.json": "5d2a3adaf175f5f1", "ok_local_sustained.json": "eb1f9276da2a2916",
}


def golden(name: str, version: int = 7) -> Result:
    return Result.from_dict(json.loads((GOLDEN / f"v{version}" / name).read_text()))


def sustained(**section: Any) -> Result:
    r = golden("ok_local_sustained.json")
    assert r.sustained is not None
    return dataclasses.replace(r, sustained=dataclasses.replace(r.sustained, **section))


def with_settings(r: Result, **kept: Any) -> Result:
    return dataclasses.replace(r, settings=dataclasses.replace(r.settings, **kept))


# -- identity -------------------------------------------------------------------------------------------------


def test_every_other_scenarios_key_is_byte_identical() -> None:
    seen = 0
    for path in sorted(GOLDEN.glob("v*/*.json")):
        r = Result.from_dict(json.loads(path.read_text()))
        if path.name not in KEYS_BEFORE:  # a kind of result new since the keys were pinned had no key before
            assert path.name in NEW_SINCE, path
            continue
        if r.scenario.name == "sustained":
            assert r.identity.key() != KEYS_BEFORE[path.name]  # the old key named no duration
        else:
            assert r.identity.key() == KEYS_BEFORE[path.name], path
            seen += 1
    assert seen >= 40
    # a duration or window stored on another scenario's row changes nothing
    fixed = golden("ok_local_fixed_rate.json")
    assert with_settings(fixed, duration_s=600.0, sustained_window_s=5.0).identity.key() == KEYS_BEFORE[
        "ok_local_fixed_rate.json"]
    assert vocab.scenario_label("fixed-rate", 30.0, duration_s=600.0) == "fixed-rate 30/s"


def test_a_sustained_configuration_is_its_duration_and_window() -> None:
    r = golden("ok_local_sustained.json")  # a stored v7 row: 6 s in 2 s windows at 50/s
    assert r.identity.scenario == "sustained 50/s 6s in 2s windows"
    longer = with_settings(r, duration_s=1800.0)
    wider = with_settings(r, sustained_window_s=3.0)
    keys = {r.identity.key(), longer.identity.key(), wider.identity.key()}
    assert len(keys) == 3
    assert "sustained 50/s 30m in 2s windows" in longer.identity.label()
    # not given (deploy keeps None): the default 30 minutes, the same configuration as `--duration 30m`
    assert with_settings(r, duration_s=None).identity.key() == longer.identity.key()
    # a failed sweep cell is the configuration it asked for
    cell = Cell(model="ds_cnn", model_label="ds_cnn", device="local", runtime="onnxruntime", precision="fp32",
                batch=1, threads=None, settings={**{k: s.default for k, s in vocab.SETTINGS.items()},
                                                 "duration_s": 6.0, "sustained_window_s": 2.0},
                scenario="sustained")
    row = cell_result(cell, "failed", "x", sweep_id="s", attempts=1)
    assert row.identity.scenario == "sustained 6s in 2s windows"
    # `compare A B` says why two sustained runs are not one configuration
    assert identity_differences(r, longer) == ["scenario sustained 50/s 6s in 2s windows vs sustained 50/s 30m in "
                                               "2s windows"]
    assert identity_differences(golden("ok_local_ds_cnn.json"), r)[0] == \
        "scenario single-stream vs sustained 50/s 6s in 2s windows"


# -- sweep files ----------------------------------------------------------------------------------------------


def inventory() -> Inventory:
    return Inventory(path="devices.yaml", by_name={"pi5": Device(name="pi5", host="10.0.0.4", tags={"soc": "b"}),
                                                   "nano": Device(name="nano", host="10.0.0.1", tags={"soc": "n"})})


def cells(tmp_path: Path, body: str) -> list[Cell]:
    path = tmp_path / "s.yaml"
    path.write_text("models: [ds_cnn]\ndevices: [pi5, nano]\n" + body)
    spec = load_sweep(str(path))
    return expand(spec, resolve_devices(spec, inventory()))


def refusal(tmp_path: Path, body: str) -> str:
    with pytest.raises(ConfigError) as e:
        cells(tmp_path, body)
    line = e.value.one_line().replace(str(tmp_path) + "/", "")
    assert "\n" not in line
    return line


def test_a_sustained_sweep_expands_with_its_settings_and_budgets(tmp_path: Path) -> None:
    got = cells(tmp_path, "scenarios: [single-stream, sustained]\n"
                          "settings: {duration_s: 30m, sustained_window_s: 60s}\n"
                          "overrides:\n  - match: {device: nano, scenario: sustained}\n    duration_s: 10m\n"
                          "budgets:\n  - match: {scenario: sustained}\n"
                          "    limits: ['sustained_ratio >= 0.9', 'steady_p99_ms < 50']\n"
                          "  - match: {model: ds_cnn}\n    limits: ['p99_ms < 80']\n")
    by = {c.cell_id: c for c in got}
    assert sorted(by) == ["nano/ds_cnn/onnxruntime/fp32/b1/tauto", "nano/ds_cnn/onnxruntime/fp32/b1/tauto/sustained",
                          "pi5/ds_cnn/onnxruntime/fp32/b1/tauto", "pi5/ds_cnn/onnxruntime/fp32/b1/tauto/sustained"]
    pi5 = by["pi5/ds_cnn/onnxruntime/fp32/b1/tauto/sustained"]
    nano = by["nano/ds_cnn/onnxruntime/fp32/b1/tauto/sustained"]
    assert pi5.budgets == ["sustained_ratio >= 0.9", "steady_p99_ms < 50", "p99_ms < 80"]
    assert by["pi5/ds_cnn/onnxruntime/fp32/b1/tauto"].budgets == ["p99_ms < 80"]
    spec = pi5.run_spec()
    assert (spec.scenario, spec.duration_s, spec.sustained_window_s) == ("sustained", 1800.0, 60.0)
    assert nano.run_spec().duration_s == 600.0
    # the cell's wall clock counts timeout_s beyond the duration; a single-stream cell keeps its 900 s
    assert pi5.wall_limit_s() == 900.0 + 1800.0 and nano.wall_limit_s() == 900.0 + 600.0
    assert by["pi5/ds_cnn/onnxruntime/fp32/b1/tauto"].wall_limit_s() == 900.0
    assert pi5.wall_limit_why() == "duration 1800 s + timeout_s 900 s"
    assert by["pi5/ds_cnn/onnxruntime/fp32/b1/tauto"].wall_limit_why() == "the cell's timeout_s"


def test_a_cool_down_counts_in_the_cells_wall_clock(tmp_path: Path) -> None:
    (c,) = [c for c in cells(tmp_path, "scenarios: [sustained]\n"
                                       "settings: {cooldown_c: 55, cooldown_timeout_s: 5m, timeout_s: 2m}\n")
            if c.device == "pi5"]
    assert c.run_spec().cooldown_c == 55.0 and c.run_spec().cooldown_timeout_s == 300.0  # each cell waits
    assert c.wall_limit_s() == 120.0 + 1800.0 + 300.0
    assert c.wall_limit_why() == "duration 1800 s + timeout_s 120 s + cooldown_timeout_s 300 s"


def test_a_window_that_leaves_too_few_windows_is_refused_at_its_line(tmp_path: Path) -> None:
    line = refusal(tmp_path, "scenarios: [sustained]\noverrides:\n  - match: {device: nano}\n"
                             "    sustained_window_s: 5m\n    duration_s: 10m\n")
    assert line.startswith("s.yaml:6 overrides[0].sustained_window_s: sustained cell "
                           "nano/ds_cnn/onnxruntime/fp32/b1/tauto/sustained: a window of 5m leaves fewer than 3 "
                           "windows in its duration of 10m"), line
    assert "at most 3m20s" in line


def test_sustained_cells_take_the_rates_and_an_include_adds_one_back_to_back(tmp_path: Path) -> None:
    got = cells(tmp_path, "scenarios: [fixed-rate, sustained]\nrates: [10, 30]\n"
                          "settings: {duration_s: 10m, sustained_window_s: 1m}\n"
                          "include: [{device: pi5, scenario: sustained, rate: null}]\n"
                          "budgets:\n  - match: {scenario: sustained, rate: 30}\n    limits: ['p50_ratio < 1.2']\n")
    by = {c.cell_id.split("/", 1)[0] + "/" + c.cell_id.rsplit("/", 1)[-1]: c for c in got}
    assert sorted(by) == ["nano/fixed-rate@10", "nano/fixed-rate@30", "nano/sustained@10", "nano/sustained@30",
                          "pi5/fixed-rate@10", "pi5/fixed-rate@30", "pi5/sustained", "pi5/sustained@10",
                          "pi5/sustained@30"]
    spec = by["pi5/sustained@30"].run_spec()
    assert (spec.scenario, spec.rate, spec.duration_s, spec.sustained_window_s) == ("sustained", 30.0, 600.0, 60.0)
    assert by["pi5/sustained"].run_spec().rate is None
    assert by["nano/sustained@30"].budgets == ["p50_ratio < 1.2"] and by["nano/sustained@10"].budgets == []
    line = refusal(tmp_path, "scenarios: [single-stream]\nrates: [30]\n")
    assert line.startswith("s.yaml:4 rates: rates apply to the server and fixed-rate scenarios (and sustained)"), line


def test_a_budget_on_a_sustained_figure_for_another_scenario_is_refused_at_its_line(tmp_path: Path) -> None:
    line = refusal(tmp_path, "scenarios: [single-stream, sustained]\nbudgets:\n  - match: {device: pi5}\n"
                             "    limits: ['p99_ms < 50', 'steady_p99_ms < 50']\n")
    assert line.startswith("s.yaml:5 budgets[0]: budget 'steady_p99_ms < 50' is on a sustained figure, and it "
                           "matches the single-stream cell pi5/ds_cnn/onnxruntime/fp32/b1/tauto"), line
    assert "scenario: sustained" in line
    for name in vocab.SUSTAINED_METRICS:  # every figure the Sustained record stores is a budget's metric
        assert parse_budget(f"{name} > 0").metric == name


def test_cells_show_their_windows_as_the_board_state() -> None:
    said: list[str] = []

    class Board:
        def say(self, text: str) -> None:
            said.append(text)

    progress = _CellProgress(Board())  # type: ignore[arg-type]
    progress.event(ProgressEvent(phase="measure", elapsed_s=3.0, total_s=12.0, n=250))
    progress.event(ProgressEvent(phase="measure", window=3, windows=6, p50_ms=20.51, temp_c=68.0, cpu_mhz=1200.0))
    progress.event(ProgressEvent(phase="cooldown", below_c=60.0))
    progress.event(ProgressEvent(phase="cooled", below_c=60.0, waited_s=3.0, end_c=49.5))
    assert said == ["measure 3.0/12 s, 250 queries", "window 3/6: p50 20.5 ms · 68.0 °C · 1200 MHz",
                    "cooling down: waiting for < 60 °C", "cooled below 60 °C after 3 s"]


# -- the figures as metrics: budgets, baselines, history ------------------------------------------------------


def test_the_curves_figures_are_metrics_onset_none_is_the_runs_duration() -> None:
    v = metric_values(golden("ok_local_sustained.json"))
    assert (v["sustained_ratio"], v["steady_p99_ms"], v["steady_qps"], v["time_to_steady_s"]) == \
        (1.0, 13.0775, 50.0, 0.0)
    assert v["onset_s"] == 6.0 and v["onset_temp_c"] is None  # it never throttled within its 6 s
    v = metric_values(sustained(onset_window=1, onset_s=2.0, onset_temp_c=64.3))
    assert (v["onset_s"], v["onset_temp_c"]) == (2.0, 64.3)
    plain = metric_values(golden("ok_local_ds_cnn.json"))
    assert all(plain[m] is None for m in vocab.SUSTAINED_METRICS)


def test_budgets_on_sustained_figures_pass_and_fail_per_cell() -> None:
    budgets = [parse_budget("sustained_ratio >= 0.9"), parse_budget("steady_p99_ms < 50"),
               parse_budget("onset_s >= 5")]
    flat_found = budget_findings(sustained(), budgets)
    flat = {f.name.rsplit("budget ", 1)[1]: f.outcome for f in flat_found}
    assert flat == {"sustained_ratio >= 0.9": "passed", "steady_p99_ms < 50": "passed", "onset_s >= 5": "passed"}
    assert flat_found[2].message == "budget onset_s >= 5 holds (6.00 s: no onset within the run)"
    (late,) = budget_findings(sustained(), [parse_budget("onset_s >= 600")])  # not shown to last 10 minutes
    assert late.outcome == "failed" and "onset_s = 6.00 s: no onset within the run" in late.message
    hot = sustained(sustained_ratio=0.51, steady_p99_ms=61.0, onset_window=1, onset_s=2.0)
    found = {f.name.rsplit("budget ", 1)[1]: f for f in budget_findings(hot, budgets)}
    assert {k: f.outcome for k, f in found.items()} == {"sustained_ratio >= 0.9": "failed",
                                                        "steady_p99_ms < 50": "failed", "onset_s >= 5": "failed"}
    assert "sustained_ratio = 0.51" in found["sustained_ratio >= 0.9"].message
    # no steady state: the steady figures were not measured (skipped, not passed)
    unsteady = sustained(steady_window=None, steady_p99_ms=None, steady_qps=None, steady_p50_ms=None)
    (f,) = budget_findings(unsteady, [parse_budget("steady_p99_ms < 50")])
    assert f.outcome == "skipped" and "was not measured" in f.message


def test_check_follows_a_sustained_cells_curve_night_to_night() -> None:
    night1 = sustained()
    assert checked_metrics(night1, None)[-3:] == list(vocab.CHECKED_SUSTAINED)
    assert checked_metrics(golden("ok_local_ds_cnn.json"), None) == list(vocab.CHECKED_METRICS)
    assert checked_metrics(night1, ["p50_ms"]) == ["p50_ms"]
    night2 = dataclasses.replace(sustained(sustained_ratio=0.52, steady_p99_ms=26.0), run_id="night2")
    found = {f.metric: f for f in baseline_findings(night2, night1, metrics=checked_metrics(night2, None))}
    assert found["sustained_ratio"].outcome == "failed" and "sustained_ratio" in found["sustained_ratio"].message
    assert found["steady_p99_ms"].outcome == "failed"  # 13 → 26 ms, beyond p99's 4 × 5 %
    assert found["steady_p50_ms"].outcome == "passed"
    same = dataclasses.replace(sustained(sustained_ratio=0.99), run_id="again")
    assert {f.metric: f.outcome for f in baseline_findings(same, night1, metrics=list(vocab.CHECKED_SUSTAINED))} \
        == dict.fromkeys(vocab.CHECKED_SUSTAINED, "passed")
    # --history: a drop that persists two nights is a regression
    hist = [dataclasses.replace(sustained(sustained_ratio=x), run_id=f"r{i}", created_at=f"2026-12-0{i + 1}T03:00:00Z")
            for i, x in enumerate([1.0, 0.99, 1.0, 0.98, 0.5, 0.51])]
    (f,) = history_findings(hist, metrics=["sustained_ratio"])
    assert f.outcome == "failed" and "sustained_ratio regressed" in f.message


def test_dry_run_lists_a_sustained_cells_wall_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from edgeprof.cli.main import main

    path = tmp_path / "s.yaml"
    path.write_text("models: [ds_cnn]\ndevices: [local]\nscenarios: [single-stream, sustained]\n"
                    "settings: {duration_s: 30m, sustained_window_s: 1m, timeout_s: 10m}\n")
    assert main(["sweep", str(path), "--dry-run", "--db", str(tmp_path / "r.sqlite")]) == 0
    rows = [" ".join(ln.replace("│", " ").split()) for ln in capsys.readouterr().out.splitlines() if "/ds_cnn/" in ln]
    assert rows == ["local/ds_cnn/onnxruntime/fp32/b1/tauto 10 600",
                    "local/ds_cnn/onnxruntime/fp32/b1/tauto/sustained 10 2400"], rows
