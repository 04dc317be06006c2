"""Property tests (hypothesis): hostile devices.yaml, sweep files and deploy flags end in a one-line error or in
success — never a traceback, never a hang (issue 14 item 9). Each example has its own deadline.

What "never a traceback" means here: loading raises nothing but ConfigError (a UserError printed as one line),
and the CLI exits 2 with exactly one line that starts with "edgeprof: error:".
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from edgeprof.cli.main import main
from edgeprof.errors import ConfigError
from edgeprof.inventory.devices import load_inventory
from edgeprof.lab.spec import parse_sweep

DEVICES = """version: 1
defaults: {user: lab, connect_timeout: 5}
devices:
  nano:
    host: nano.lab.example
    port: 22
    python: python3.6
    workdir: /tmp/edgeprof
    tags: {family: jetson, jetpack: 4}
    power: {source: jetson-ina3221, rail: POM_5V_IN, rate_hz: 50}
    env: {OMP_NUM_THREADS: 4}
"""

SWEEP = """version: 1
name: nightly
models: [gemm, ds_cnn]
devices: [local, {family: jetson}]
runtimes: [onnxruntime, "null"]
precisions: [fp32, int8]
batch: [1, 4]
threads: [null, 2]
settings: {min_duration_s: 5, timeout_s: 600, retries: 2, runtime_options: {graph_optimization_level: all}}
exclude: [{runtime: "null", precision: int8}]
overrides: [{match: {batch: 4}, min_queries: 50}]
budgets: [{match: {model: gemm}, limits: ["p99_ms < 50"]}]
"""

# what a hostile file may contain: YAML's own punctuation, anchors/aliases/tags, huge and odd numbers, controls
NASTY = st.sampled_from(["&a", "*a", "!!python/object:os.system", "!foo", "<<: *a", "[", "]", "{", "}", ":",
                         "- ", "\x00", "\x07", "\t", "'", '"', "\n  ", "1e400", ".nan", "-.inf", "10" * 30,
                         "-1", "0", "~", "null", "yes", "0x1F", "${EDGEPROF_X}", "${HOME}", "\u202e", "ü"])
HYP = settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow,
                                                                      HealthCheck.function_scoped_fixture])


def mutate(text: str, cuts: list[tuple[int, int, str]]) -> str:
    for pos, drop, insert in cuts:
        pos %= len(text) + 1
        text = text[:pos] + insert + text[pos + drop:]
    return text


CUTS = st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 8), st.one_of(NASTY, st.text(max_size=6))),
                min_size=1, max_size=4)


@HYP
@given(cuts=CUTS)
@example(cuts=[(0, 0, "a: &a [*a, *a, *a]\nb: &b [*a, *a, *a]\n")])
def test_mutated_devices_yaml_loads_or_is_one_line(tmp_path_factory: pytest.TempPathFactory,
                                                   cuts: list[tuple[int, int, str]]) -> None:
    path = tmp_path_factory.mktemp("inv") / "devices.yaml"
    path.write_text(mutate(DEVICES, cuts), encoding="utf-8")
    try:
        inv = load_inventory(str(path), ssh_config_path="/nonexistent", environ={})
    except ConfigError as e:
        assert "\n" not in e.one_line() and "devices.yaml" in e.one_line()
        return
    for d in inv.devices:
        assert d.port is None or 1 <= d.port <= 65535
        assert math.isfinite(d.connect_timeout) and d.connect_timeout > 0


@HYP
@given(cuts=CUTS)
def test_mutated_sweep_file_parses_or_is_one_line(cuts: list[tuple[int, int, str]]) -> None:
    try:
        spec = parse_sweep(mutate(SWEEP, cuts), "s.yaml")
    except ConfigError as e:
        assert "\n" not in e.one_line() and e.one_line().startswith("s.yaml")
        return
    assert all(1 <= b <= 65536 for b in spec.batch)
    for v in spec.settings.values():
        assert not isinstance(v, float) or math.isfinite(v)


NUMBER_FLAGS = ("--batch", "--threads", "--min-duration", "--min-queries", "--max-queries", "--warmup", "--seed",
                "--idle", "--cooldown", "--cooldown-timeout", "--power-rate", "--opset", "--rate", "--streams",
                "--samples-per-query", "--latency-bound", "--battery-wh", "--duration", "--window")
VALUES = st.one_of(st.sampled_from(["nan", "inf", "-inf", "-1", "0", "1e400", "1e-400", "9" * 40, "0x10", "",
                                    "1_000", " 5", "五", "--", "-0"]),
                   st.floats(allow_nan=True, allow_infinity=True).map(repr),
                   st.integers(-(10**30), 10**30).map(str), st.text(max_size=8))


@HYP
@given(flags=st.lists(st.tuples(st.sampled_from(NUMBER_FLAGS), VALUES), min_size=1, max_size=4))
def test_deploy_flags_are_a_clean_one_line_error(tmp_path_factory: pytest.TempPathFactory,
                                                 flags: list[tuple[str, str]],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Whatever the numbers, the command ends before measuring: every flag value is checked (finite, in range)
    before the device is looked up, and the device here does not exist — so the answer is always one line."""
    argv = ["deploy", "--device", "no-such-board", "--model", "gemm", "--runtime", "null",
            "--inventory", str(_empty_inventory(tmp_path_factory))]
    for flag, value in flags:
        argv += [f"{flag}={value}"]
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's own refusal of a non-number (usage + one error line, exit 2)
        code = e.code
    err = capsys.readouterr().err
    assert code == 2, err
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("usage:") and not ln.startswith(" ")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(("edgeprof: error:", "edgeprof deploy: error:")), err


def _empty_inventory(factory: pytest.TempPathFactory) -> Path:
    path = factory.getbasetemp() / "empty-devices.yaml"
    if not path.exists():
        path.write_text("version: 1\ndevices: {}\n")
    return path
