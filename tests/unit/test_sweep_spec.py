"""Sweep files: validation errors with file:line and YAML path, matrix expansion, rules, budgets, skip rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgeprof.errors import ConfigError
from edgeprof.inventory.devices import Inventory
from edgeprof.lab.spec import Cell, expand, load_sweep, parse_sweep, resolve_devices
from edgeprof.records import Device


def inventory() -> Inventory:
    devs = {
        "nano": Device(name="nano", host="10.0.0.1", tags={"soc": "nano", "site": "lab1"}),
        "orin1": Device(name="orin1", host="10.0.0.2", tags={"soc": "orin", "site": "lab1"}),
        "orin2": Device(name="orin2", host="10.0.0.3", tags={"soc": "orin", "site": "lab2"}),
        "pi5": Device(name="pi5", host="10.0.0.4", tags={"soc": "bcm2712"}),
    }
    return Inventory(path="devices.yaml", by_name=devs)


def cells_of(text: str, tmp_path: Path) -> list[Cell]:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    spec = load_sweep(str(path))
    return expand(spec, resolve_devices(spec, inventory()))


def test_matrix_expansion_with_selectors_rules_and_budgets(tmp_path):
    (tmp_path / "tiny.onnx").write_bytes(b"x")
    cells = cells_of("""
version: 1
name: nightly
models:
  - ds_cnn
  - model: tiny.onnx
    inputs: {tokens: 1x4x32}
devices:
  - nano
  - {soc: orin}
runtimes: [onnxruntime]
precisions: [fp32, bf16]
batch: [1, 4]
threads: [null, 2]
settings: {min_duration_s: 0.5, timeout_s: 60}
exclude:
  - {model: tiny.onnx, batch: 4}
  - {device: {site: lab2}, threads: 2}
include:
  - {model: ds_cnn, device: nano, runtime: "null", precision: fp32, batch: 1, threads: 1}
overrides:
  - match: {model: ds_cnn, device: {soc: orin}}
    min_duration_s: 2
budgets:
  - match: {model: ds_cnn, device: {soc: orin}, batch: 1}
    limits: ["p99_ms < 50", "mj_per_inference<=3"]
""", tmp_path)
    ids = [c.cell_id for c in cells]
    assert len(ids) == len(set(ids))
    assert ids[0] == "nano/ds_cnn/onnxruntime/fp32/b1/tauto"
    assert {c.device for c in cells} == {"nano", "orin1", "orin2"}
    # exclusions
    assert not [c for c in cells if c.model_label == "tiny.onnx" and c.batch == 4]
    assert not [c for c in cells if c.device == "orin2" and c.threads == 2]
    # 3 devices × (ds_cnn 2×2×2 + tiny 2×1×2) minus orin2 threads=2 (6) plus 1 include
    assert len(cells) == 3 * (8 + 4) - 6 + 1
    inc = [c for c in cells if c.runtime == "null"]
    assert [c.cell_id for c in inc] == ["nano/ds_cnn/null/fp32/b1/t1"]
    # bf16 is not supported: a skip row with the reason, not an error
    bf16 = [c for c in cells if c.precision == "bf16"]
    assert bf16 and all(c.skip and "bf16" in c.skip for c in bf16)
    assert all(c.skip is None for c in cells if c.precision == "fp32")
    # overrides and budgets by tag selector
    orin = next(c for c in cells if c.cell_id == "orin1/ds_cnn/onnxruntime/fp32/b1/tauto")
    assert orin.settings["min_duration_s"] == 2 and orin.settings["timeout_s"] == 60
    assert orin.budgets == ["p99_ms < 50", "mj_per_inference <= 3"]
    assert next(c for c in cells if c.cell_id == "nano/ds_cnn/onnxruntime/fp32/b1/tauto").budgets == []
    tiny = next(c for c in cells if c.model_label == "tiny.onnx")
    assert tiny.model == str(tmp_path / "tiny.onnx") and tiny.inputs == {"tokens": (1, 4, 32)}
    spec = tiny.run_spec()
    assert spec.min_duration_s == 0.5 and spec.input_shapes == {"tokens": (1, 4, 32)}
    assert Cell.from_dict(tiny.to_dict()) == tiny


@pytest.mark.parametrize("text,where,needle", [
    ("models: [ds_cnn]\ndevices: [nano]\nbatches: [1]\n", "s.yaml:3 batches", "did you mean 'batch'"),
    ("models: [ds_cn]\ndevices: [nano]\n", "s.yaml:1 models[0]", "unknown model 'ds_cn'"),
    ("models:\n  - model: missing.onnx\ndevices: [nano]\n", "s.yaml:2 models[0]", "missing.onnx not found"),
    ("models: [ds_cnn]\ndevices: [nano]\nbatch: [1, 0]\n", "s.yaml:3 batch[1]", "integer >= 1"),
    ("models: [ds_cnn]\ndevices: [nano]\nruntimes: [onnxruntim]\n", "s.yaml:3 runtimes[0]", "did you mean"),
    ("models: [ds_cnn]\ndevices: [nano]\nsettings:\n  min_duraton_s: 3\n", "s.yaml:4 settings.min_duraton_s",
     "did you mean 'min_duration_s'"),
    ("models: [ds_cnn]\ndevices: [nano]\nbudgets:\n  - match: {model: ds_cnn}\n    limits: ['p99 < 3']\n",
     "s.yaml:5 budgets[0].limits[0]", "unknown metric"),
    ("models: [ds_cnn]\ndevices: [nano]\nexclude:\n  - {modle: ds_cnn}\n", "s.yaml:4 exclude[0].modle",
     "did you mean 'model'"),
    ("models: [ds_cnn]\ndevices: [nano]\nexclude:\n  - {model: resnet18}\n", "s.yaml:4 exclude[0].model",
     "not one of the sweep's models"),
    ("models: [ds_cnn]\ndevices: [nano]\nversion: 9\n", "s.yaml:3 version", "upgrade edgeprof"),
    ("models: [ds_cnn]\n", "s.yaml:1", "missing `devices:`"),
    ("models: [ds_cnn]\ndevices: [nano]\nmodels: [x]\n", "s.yaml:3 models", "duplicate key"),
    ("models: [ds_cnn\n", "s.yaml:2", "not valid YAML"),
])
def test_validation_errors_name_file_line_and_path(tmp_path, text, where, needle):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_sweep(str(path))
    msg = str(e.value).replace(str(tmp_path) + "/", "")
    assert msg.startswith(where + ":") or msg.startswith(where + " "), msg
    assert needle in msg


def test_device_errors_name_the_line(tmp_path):
    for text, needle in [("models: [ds_cnn]\ndevices: [nano, orni1]\n", "s.yaml:2 devices[1]: unknown device"),
                         ("models: [ds_cnn]\ndevices:\n  - {soc: xavier}\n", "s.yaml:3 devices[0]: the tag selector")]:
        path = tmp_path / "s.yaml"
        path.write_text(text)
        spec = load_sweep(str(path))
        with pytest.raises(ConfigError) as e:
            resolve_devices(spec, inventory())
        assert needle in str(e.value).replace(str(tmp_path) + "/", "")


def test_defaults_and_null_runtime(tmp_path):
    cells = cells_of("models: [ds_cnn]\ndevices: [pi5]\nruntimes: [null, onnxruntime]\n", tmp_path)
    assert [c.cell_id for c in cells] == ["pi5/ds_cnn/null/fp32/b1/tauto", "pi5/ds_cnn/onnxruntime/fp32/b1/tauto"]
    assert cells[0].settings["min_duration_s"] == 10.0 and cells[0].settings["retries"] == 2


def test_parse_sweep_without_file_and_shipped_examples():
    spec = parse_sweep("name: x\nmodels: [ds_cnn]\ndevices: [{tags: {soc: orin}}]\n", "inline.yaml")
    assert spec.name == "x" and spec.devices == [("tags", {"soc": "orin"})]
    repo = Path(__file__).resolve().parents[2]
    for name in ("example.yaml", "nightly.yaml"):
        spec = load_sweep(str(repo / "sweeps" / name))
        assert spec.models and spec.devices


def test_settings_are_the_vocabulary_and_reach_the_run_spec(tmp_path):
    from edgeprof import vocab
    from edgeprof.lab import spec as spec_mod

    # one table for sweep settings and deploy flags: the run settings' own entries, and the sweep policy's
    assert spec_mod.SETTINGS is vocab.SWEEP_SETTINGS
    assert all(spec_mod.SETTINGS[name] is s for name, s in vocab.SETTINGS.items())
    cells = cells_of("models: [ds_cnn]\ndevices: [pi5]\nsettings: {idle_s: 0, cooldown_timeout_s: 30, max_queries: null}\n"
                     "overrides: [{match: {model: ds_cnn}, idle_s: 1.5}]\n", tmp_path)
    run = cells[0].run_spec()
    assert run.idle_s == 1.5 and run.cooldown_timeout_s == 30.0 and run.max_queries is None


def test_the_sweep_policy_is_apart_from_what_a_run_measures(tmp_path):
    """timeout_s, retries, retry_backoff_s and lease_wait_s are how a sweep runs a cell (vocab.SweepPolicy): a sweep
    file takes them beside the run settings, the cell gives them typed, a failed row keeps them, and the RunSpec
    (what the measurement needs) has none of them; sweep files only: no flag, not on the wire, never stored by a
    deploy."""
    from edgeprof import vocab
    from edgeprof.lab.rows import cell_result
    from edgeprof.records import Settings

    cells = cells_of("models: [ds_cnn]\ndevices: [pi5, nano]\nsettings: {timeout_s: 10m, retries: 0, min_queries: 7}\n"
                     "overrides: [{match: {device: nano}, lease_wait_s: 1h30m, retry_backoff_s: 0.5}]\n", tmp_path)
    by_device = {c.device: c for c in cells}
    assert by_device["pi5"].policy() == vocab.SweepPolicy(timeout_s=600.0, retries=0)
    assert by_device["nano"].policy() == vocab.SweepPolicy(600.0, 0, 0.5, 5400.0)
    assert by_device["pi5"].wall_limit_s() == 600.0
    run = by_device["nano"].run_spec()
    assert run.min_queries == 7 and not any(hasattr(run, name) for name in vocab.POLICY)
    row = cell_result(by_device["nano"], "failed", "x", sweep_id="s", attempts=1)
    assert row.settings is not None and (row.settings.timeout_s, row.settings.lease_wait_s) == (600.0, 5400.0)
    assert all(s.flag is None and s.wire is None and s.stored == "never" for s in vocab.POLICY.values())
    deployed = Settings.of_run(run)
    assert all(getattr(deployed, name) is None for name in vocab.POLICY)
    assert vocab.SweepPolicy.from_values({}) == vocab.SweepPolicy()
    assert vocab.SweepPolicy() == vocab.SweepPolicy(**{n: s.default for n, s in vocab.POLICY.items()})


def test_input_feeds_reaching_a_null_runtime_cell_are_refused_with_file_line(tmp_path):
    """The null runtime feeds no model inputs (deploy refuses --input-* with --runtime null): a sweep setting that
    reaches a null cell is refused at expansion, naming where it was set; one kept to other runtimes is fine."""
    (tmp_path / "vad.onnx").write_bytes(b"x")
    with pytest.raises(ConfigError) as e:
        cells_of("models: [vad.onnx]\ndevices: [pi5]\nruntimes: [onnxruntime, null]\n"
                 "settings:\n  input_values: {sr: 16000}\n", tmp_path)
    msg = str(e.value).replace(str(tmp_path) + "/", "")
    assert msg.startswith("s.yaml:5 settings.input_values: input_values reaches the null runtime's cell "
                          "pi5/vad.onnx/null/fp32/b1/tauto; the null runtime feeds no model inputs"), msg
    with pytest.raises(ConfigError) as e:
        cells_of("models: [vad.onnx]\ndevices: [pi5]\ninclude: [{runtime: null}]\n"
                 "overrides:\n  - match: {model: vad.onnx}\n    input_ranges: {x: '0:4'}\n", tmp_path)
    assert str(e.value).replace(str(tmp_path) + "/", "").startswith("s.yaml:6 overrides[0].input_ranges: "), e.value
    cells = cells_of("models: [vad.onnx]\ndevices: [pi5]\nruntimes: [onnxruntime, null]\n"
                     "overrides: [{match: {runtime: onnxruntime}, input_values: {sr: 16000}}]\n", tmp_path)
    assert {c.runtime: c.settings["input_values"] for c in cells} == {"onnxruntime": {"sr": 16000}, "null": None}


def test_without_runtimes_each_model_runs_on_its_formats_runtime(tmp_path):
    """No `runtimes:`: a .tflite file runs on tflite (as deploy defaults it), .onnx files and bundled models on
    onnxruntime, also in include rules; it was onnxruntime for all, so the .tflite cell was a skip row.
    An explicit `runtimes:` is the matrix as written."""
    (tmp_path / "kws.tflite").write_bytes(b"x")
    (tmp_path / "vad.onnx").write_bytes(b"x")
    cells = cells_of("models: [ds_cnn, kws.tflite, vad.onnx]\ndevices: [pi5]\n"
                     "include: [{model: kws.tflite, batch: 2}]\n", tmp_path)
    assert [(c.model_label, c.runtime, c.batch, c.skip) for c in cells] == [
        ("ds_cnn", "onnxruntime", 1, None), ("kws.tflite", "tflite", 1, None), ("vad.onnx", "onnxruntime", 1, None),
        ("kws.tflite", "tflite", 2, None)]
    cells = cells_of("models: [kws.tflite, vad.onnx]\ndevices: [pi5]\nruntimes: [onnxruntime]\n", tmp_path)
    assert [(c.model_label, c.runtime) for c in cells] == [("kws.tflite", "onnxruntime"), ("vad.onnx", "onnxruntime")]
    assert cells[0].skip and not cells[1].skip


def test_cooldown_and_power_rate_reach_the_run_and_the_stored_settings(tmp_path):
    """`edgeprof deploy --cooldown C --power-rate HZ` has its sweep settings (settings: and overrides), checked by
    the same table (vocab.SETTINGS) and reaching the RunSpec and a row's stored settings."""
    from edgeprof.lab.rows import cell_result

    cells = cells_of("models: [ds_cnn]\ndevices: [pi5, nano]\nsettings: {cooldown_c: 45, cooldown_timeout_s: 120}\n"
                     "overrides: [{match: {device: nano}, cooldown_c: 50.5, power_rate_hz: 100}]\n", tmp_path)
    by_device = {c.device: c for c in cells}
    pi5, nano = by_device["pi5"].run_spec(), by_device["nano"].run_spec()
    assert (pi5.cooldown_c, pi5.cooldown_timeout_s, pi5.power_rate_hz) == (45.0, 120.0, None)
    assert (nano.cooldown_c, nano.power_rate_hz) == (50.5, 100.0)
    row = cell_result(by_device["nano"], "failed", "x", sweep_id="s", attempts=0)
    assert row.settings is not None and (row.settings.cooldown_c, row.settings.power_rate_hz) == (50.5, 100.0)
    plain = cells_of("models: [ds_cnn]\ndevices: [pi5]\n", tmp_path)[0].run_spec()
    assert plain.cooldown_c is None and plain.power_rate_hz is None  # as deploy without the flags


@pytest.mark.parametrize("text,where,needle", [
    ("models: [ds_cnn]\ndevices: [pi5]\nsettings:\n  cooldown_c: 500\n", "s.yaml:4 settings.cooldown_c",
     "must be <= 150"),
    ("models: [ds_cnn]\ndevices: [pi5]\nsettings:\n  cooldown_c: 0\n", "s.yaml:4 settings.cooldown_c", "must be > 0"),
    ("models: [ds_cnn]\ndevices: [pi5]\noverrides:\n  - match: {model: ds_cnn}\n    power_rate_hz: 5000\n",
     "s.yaml:5 overrides[0].power_rate_hz", "must be <= 1000"),
    ("models: [ds_cnn]\ndevices: [pi5]\nsettings: {cooldown_c: hot}\n", "s.yaml:3 settings.cooldown_c",
     "must be a number"),
])
def test_an_out_of_range_cooldown_or_power_rate_is_a_file_line_error(tmp_path, text, where, needle):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_sweep(str(path))
    msg = str(e.value).replace(str(tmp_path) + "/", "")
    assert msg.startswith(where + ":"), msg
    assert needle in msg


def test_the_bounds_of_cooldown_and_power_rate_are_the_deploy_ones():
    from edgeprof import vocab
    from edgeprof.files import config
    from edgeprof.run.validate import MAX_COOLDOWN_C, MAX_POWER_RATE_HZ

    assert vocab.SETTINGS["cooldown_c"].hi == MAX_COOLDOWN_C
    assert vocab.SETTINGS["power_rate_hz"].hi == config.POWER_RATE_MAX_HZ == MAX_POWER_RATE_HZ


# deploy options that are not run settings of a sweep cell, and why
_DEPLOY_NOT_SETTINGS = {
    "device", "model", "runtime", "precision", "batch", "threads", "scenario", "rate",  # the sweep's axes
    "input",  # models: [{model: ..., inputs: {NAME: 1x3x224x224}}]
    "graph_opt", "providers", "xnnpack", "delegate", "delegate_option",  # settings: {runtime_options: {...}}
    "mmap", "extra_buffers",  # llama.cpp: settings: {runtime_options: {use_mmap: false, extra_buffers: false}}
    "json", "inventory", "db", "no_store", "quiet", "func",  # where results go, not how a run is made
    "find_max_rate",  # a search over runs, not one run
    "lease_wait",  # settings: {lease_wait_s: 1h}; deploy's own default differs (refused at once, not an hour's wait)
}


def test_every_run_setting_deploy_takes_a_sweep_takes():
    """Every deploy option is a sweep axis, a runtime option, or a run setting of vocab.SETTINGS (by its flag),
    which sweep files accept under settings: and overrides."""
    import argparse

    from edgeprof import vocab
    from edgeprof.cli import deploy

    parser = argparse.ArgumentParser()
    deploy.register(parser.add_subparsers())
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["deploy"]
    by_flag = {s.flag: s.name for s in vocab.SETTINGS.values() if s.flag}
    missing = []
    for action in sub._actions:
        if action.dest in ("help",) or action.dest in _DEPLOY_NOT_SETTINGS:
            continue
        if not any(o in by_flag for o in action.option_strings):
            missing.append(action.option_strings[0])
    assert missing == [], f"deploy options a sweep file cannot set: {missing}"
