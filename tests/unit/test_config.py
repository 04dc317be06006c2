"""Hostile configuration files: each is a one-line ConfigError naming file:line, fast — never a traceback or a hang.

Both readers (devices.yaml and sweep files) go through config.compose and config.Doc, so each case is tried on
both; numbers are checked by one rule (config.check_number / vocab.SETTINGS) in files and on the command line."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from edgeprof.errors import ConfigError
from edgeprof.files.config import MAX_DEPTH, MAX_FILE_BYTES, check_cli_settings
from edgeprof.inventory.devices import load_inventory
from edgeprof.lab.spec import load_sweep

BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n" for i in range(8))  # 10^9 nodes
FLOW_BOMB = "{" + ", ".join(BOMB.splitlines()) + "}"  # the same, inline

_PARSE_BOUND_S = 10.0


def sweep_error(tmp_path: Path, text: str | bytes) -> str:
    path = tmp_path / "s.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    t0 = time.monotonic()
    with pytest.raises(ConfigError) as e:
        load_sweep(str(path))
    # a bound on a pathological parse (an alias bomb runs for minutes), not a speed goal: loose enough for a loaded
    # 2-core CI machine, where 1 s was once missed by a 66-level nesting test under two test workers
    assert time.monotonic() - t0 < _PARSE_BOUND_S, "took too long"
    msg = str(e.value)
    assert "\n" not in msg and "Traceback" not in msg
    return msg.replace(str(tmp_path) + "/", "")


def inventory_error(tmp_path: Path, text: str | bytes) -> str:
    path = tmp_path / "devices.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    t0 = time.monotonic()
    with pytest.raises(ConfigError) as e:
        load_inventory(str(path), ssh_config_path=str(tmp_path / "none"), environ={})
    # a bound on a pathological parse (an alias bomb runs for minutes), not a speed goal: loose enough for a loaded
    # 2-core CI machine, where 1 s was once missed by a 66-level nesting test under two test workers
    assert time.monotonic() - t0 < _PARSE_BOUND_S, "took too long"
    msg = str(e.value)
    assert "\n" not in msg and "Traceback" not in msg
    return msg.replace(str(tmp_path) + "/", "")


SWEEP_HEAD = "models: [ds_cnn]\ndevices: [nano]\n"
DEVICES_HEAD = "version: 1\ndevices:\n  nano:\n    host: a\n"

# (sweep file text, expected start of the message, a phrase in it)
HOSTILE_SWEEPS = [
    (SWEEP_HEAD + "settings: {runtime_options: " + FLOW_BOMB + "}\n", "s.yaml:3", "expands to more than"),
    (SWEEP_HEAD + "exclude: [" + FLOW_BOMB + "]\n", "s.yaml:3", "expands to more than"),
    (BOMB + SWEEP_HEAD, None, "expands to more than"),
    (SWEEP_HEAD + "exclude: &r [{model: ds_cnn, batch: *r}]\n", "s.yaml:3", "recursive anchor"),
    (SWEEP_HEAD + "name: !!python/object/apply:os.system ['true']\n", "s.yaml:3", "tag !!python/object/apply"),
    (SWEEP_HEAD + "name: !foo x\n", "s.yaml:3", "tag !foo is not allowed"),
    (SWEEP_HEAD + "settings: {runtime_options: {x: " + "[" * 5000 + "]" * 5000 + "}}\n", "s.yaml:3",
     f"nested more than {MAX_DEPTH} levels"),
    (SWEEP_HEAD + "name: a\x00b\n", "s.yaml:3", "control character U+0000"),
    (SWEEP_HEAD + "name: a\x1bb\n", "s.yaml:3", "control character U+001B"),
    (SWEEP_HEAD + "settings: {min_duration_s: .nan}\n", "s.yaml:3 settings.min_duration_s", "not float nan"),
    (SWEEP_HEAD + "settings: {retry_backoff_s: .inf}\n", "s.yaml:3 settings.retry_backoff_s", "inf"),
    (SWEEP_HEAD + "settings: {timeout_s: 1.0e+400}\n", "s.yaml:3 settings.timeout_s", "inf"),
    (SWEEP_HEAD + "settings: {timeout_s: 0}\n", "s.yaml:3 settings.timeout_s", "must be > 0"),
    (SWEEP_HEAD + "settings: {seed: -1}\n", "s.yaml:3 settings.seed", "must be >= 0"),
    (SWEEP_HEAD + "settings: {min_queries: 1e3}\n", "s.yaml:3 settings.min_queries", "must be an integer"),
    (SWEEP_HEAD + "settings: {retries: 100000}\n", "s.yaml:3 settings.retries", "<= 100"),
    (SWEEP_HEAD + "settings: {runtime_options: {providers: [{a: 1}]}}\n", "s.yaml:3 settings.runtime_options.providers[0]",
     "must be a single value"),
    (SWEEP_HEAD + "settings: {runtime_options: {threads: .nan}}\n", "s.yaml:3 settings.runtime_options.threads",
     "finite number"),
    (SWEEP_HEAD + "batch: [1000000000000000000000000]\n", "s.yaml:3 batch[0]", "at most 65536"),
    (SWEEP_HEAD + "batch: [1, " + "9" * 5000 + "]\n", "s.yaml:3 batch[1]", "cannot read this value"),
    (SWEEP_HEAD + "threads: [2000]\n", "s.yaml:3 threads[0]", "at most 1024"),
    (SWEEP_HEAD + "batch: [.inf]\n", "s.yaml:3 batch[0]", "must be an integer"),
    (SWEEP_HEAD + "exclude: [{model: ds_cnn, batch: 1e30}]\n", "s.yaml:3 exclude[0].batch", "must be an integer"),
    (SWEEP_HEAD + "include: [{model: ds_cnn, threads: 5000}]\n", "s.yaml:3 include[0].threads", "at most 1024"),
    (SWEEP_HEAD + "when: 2026-13-45\n", "s.yaml:3 when", "unknown key"),
    (SWEEP_HEAD + "name: 2026-13-45\n", "s.yaml:3 name", "cannot read this value"),
]


@pytest.mark.timeout(10)
@pytest.mark.parametrize("text, where, needle", HOSTILE_SWEEPS)
def test_hostile_sweep_files(tmp_path: Path, text: str, where: str | None, needle: str) -> None:
    msg = sweep_error(tmp_path, text)
    assert re.match(r"^s\.yaml:\d+[ :]", msg), msg
    if where is not None:
        assert msg.startswith(where + ":") or msg.startswith(where + " "), msg
    assert needle in msg, msg


HOSTILE_DEVICES = [
    (DEVICES_HEAD + "    power: " + FLOW_BOMB + "\n", "devices.yaml:5", "expands to more than"),
    (BOMB + DEVICES_HEAD, None, "expands to more than"),
    (DEVICES_HEAD + "    tags: &t {a: *t}\n", "devices.yaml:5", "recursive anchor"),
    (DEVICES_HEAD + "    python: !!python/name:os.system\n", "devices.yaml:5", "is not allowed"),
    (DEVICES_HEAD + "    env: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n", "devices.yaml:5", "nested more than"),
    (DEVICES_HEAD + "    user: x\x00\n", "devices.yaml:5", "control character"),
    (DEVICES_HEAD + "    env:\n" + "".join(" " * (6 + 2 * i) + f"k{i}:\n" for i in range(100)), "devices.yaml:66",
     "nested more than"),
    (DEVICES_HEAD + "    connect_timeout: .nan\n", "devices.yaml:5 devices.nano.connect_timeout", "must be a positive"),
    (DEVICES_HEAD + "    connect_timeout: .inf\n", "devices.yaml:5 devices.nano.connect_timeout", "must be a positive"),
    (DEVICES_HEAD + "    connect_timeout: 1e400\n", "devices.yaml:5 devices.nano.connect_timeout", "up to 3600"),
    (DEVICES_HEAD + "    port: 1e400\n", "devices.yaml:5 devices.nano.port", "must be an integer 1–65535"),
    (DEVICES_HEAD + "    port: 99999999999999999999999999\n", "devices.yaml:5 devices.nano.port", "1–65535"),
    (DEVICES_HEAD + "    power: {rate_hz: .nan}\n", "devices.yaml:5 devices.nano.power.rate_hz", "must be a positive"),
    (DEVICES_HEAD + "    power: {rate_hz: 1e9}\n", "devices.yaml:5 devices.nano.power.rate_hz", "a positive number up to 1000"),
    (DEVICES_HEAD + "    power: {source: nvml, device: -1}\n", "devices.yaml:5 devices.nano.power.device", "0–255"),
    # a key the agent would receive unchecked is refused, not passed through
    (DEVICES_HEAD + "    power: {source: nvml, anything: {deep: [1, 2]}}\n", "devices.yaml:5 devices.nano.power.anything",
     "unknown key"),
    (DEVICES_HEAD + "    tags: {a: [1, 2]}\n", "devices.yaml:5 devices.nano.tags.a", "must be a single value"),
]


@pytest.mark.timeout(10)
@pytest.mark.parametrize("text, where, needle", HOSTILE_DEVICES)
def test_hostile_devices_files(tmp_path: Path, text: str, where: str | None, needle: str) -> None:
    msg = inventory_error(tmp_path, text)
    assert re.match(r"^devices\.yaml:\d+[ :]", msg), msg
    if where is not None:
        assert msg.startswith(where + ":") or msg.startswith(where + " "), msg
    assert needle in msg, msg


@pytest.mark.timeout(10)
def test_huge_and_binary_files(tmp_path: Path) -> None:
    huge = SWEEP_HEAD + "# " + "x" * MAX_FILE_BYTES + "\n"
    assert "larger than 4 MiB" in sweep_error(tmp_path, huge)
    assert "larger than 4 MiB" in inventory_error(tmp_path, DEVICES_HEAD + "#" + "y" * MAX_FILE_BYTES)
    msg = sweep_error(tmp_path, SWEEP_HEAD.encode() + b"name: \xff\xfe\n")
    assert msg.startswith("s.yaml:3: not UTF-8")


def test_friendly_yaml_still_reads(tmp_path: Path) -> None:
    # anchors, aliases and merge keys for a few shared blocks are fine; power keys of docs/power.md pass
    path = tmp_path / "devices.yaml"
    path.write_text(DEVICES_HEAD + "    tags: &t {soc: orin}\n    power: {source: command, command: meter, unit: mW,"
                    " covers: wall, timeout_s: 2, rate_hz: 10}\n  b:\n    host: b\n    tags: {<<: *t, site: lab}\n")
    inv = load_inventory(str(path), ssh_config_path=str(tmp_path / "none"), environ={})
    assert inv.get("b").tags == {"soc": "orin", "site": "lab"}
    assert inv.get("nano").power == {"source": "command", "command": "meter", "unit": "mW", "covers": "wall",
                                     "timeout_s": 2.0, "rate_hz": 10.0}
    sweep = tmp_path / "s.yaml"
    sweep.write_text(SWEEP_HEAD + "name: '" + "[" * 100 + "' # [[[[\n"  # brackets in quotes and comments are text
                     "runtimes: [litert, onnxruntime]\nbatch: [1, 65536]\nthreads: [null, 1024]\n"
                     "settings:\n  min_duration_s: 0\n  max_queries: null\n"
                     "  runtime_options: {providers: [CPUExecutionProvider], delegate_options: {a: 1}, xnnpack: true}\n")
    spec = load_sweep(str(sweep))
    assert spec.name == "[" * 100
    assert spec.runtimes == ["tflite", "onnxruntime"]  # litert is tflite's other name
    assert spec.batch == [1, 65536] and spec.threads == [None, 1024]
    assert spec.settings["runtime_options"] == {"providers": ["CPUExecutionProvider"], "delegate_options": {"a": 1},
                                                "xnnpack": True}
    assert spec.settings["max_queries"] is None and spec.settings["min_duration_s"] == 0.0


@pytest.mark.parametrize("values, needle", [
    ({"min_duration_s": float("nan")}, "--min-duration nan: must be"),
    ({"warmup_s": float("inf")}, "--warmup inf: must be"),
    ({"seed": -1}, "--seed -1: must be >= 0"),
    ({"min_queries": 10**30}, "--min-queries"),
    ({"cooldown_timeout_s": 0.0}, "--cooldown-timeout 0: must be > 0"),
    ({"idle_s": 1e400}, "--idle inf"),
    ({"max_queries": True}, "--max-queries True: must be an integer"),
    ({"batch": 10**24}, "--batch 1000000000000000000000000: must be an integer 1–65536"),
    ({"threads": 0}, "--threads 0: must be an integer 1–1024"),
    ({"power_rate_hz": float("nan")}, "--power-rate nan: must be > 0 and <= 1000"),
])
def test_cli_numbers_follow_the_same_rules(values: dict[str, object], needle: str) -> None:
    with pytest.raises(ConfigError) as e:
        check_cli_settings(values)
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_cli_numbers_accepted() -> None:
    check_cli_settings({"min_duration_s": 0.5, "seed": 2**32 - 1, "max_queries": None, "warmup_s": 0, "batch": 8,
                        "threads": None, "power_rate_hz": 50.0})
    with pytest.raises(ConfigError, match="unknown run setting 'min_duraton_s'; did you mean 'min_duration_s'"):
        check_cli_settings({"min_duraton_s": 1.0})


FRAGMENTS = ["models: [ds_cnn]\n", "devices: [nano]\n", "batch: ", "threads: ", "settings: ", "runtime_options: ",
             "exclude: ", "include: ", "overrides: ", "budgets: ", "&a ", "*a", "*b", "<<: ", "!!python/none ",
             "!x ", "[", "]", "{", "}", ", ", ": ", "- ", "\n", "  ", ".nan", ".inf", "-.inf", "1e400", "1.0e+400",
             "99999999999999999999999999", "-1", "0", "null", "true", "'x'", '"\\x00"', "\x00", "\x1b", "#", "?",
             "min_duration_s", "timeout_s", "model", "limits", "match", "p99_ms < 5", "2026-13-45", "0x1F", "~"]


@pytest.mark.timeout(60)
def test_mutated_sweep_files_never_traceback() -> None:
    """Random sweep-file-shaped text (fixed seed, 400 cases): a one-line ConfigError or a spec, never another
    exception and never a hang."""
    import random

    from edgeprof.lab.spec import parse_sweep

    rng = random.Random(14)
    outcomes = {"ok": 0, "refused": 0}
    for _ in range(400):
        text = SWEEP_HEAD + "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(0, 40)))
        t0 = time.monotonic()
        try:
            parse_sweep(text, "fuzz.yaml")
            outcomes["ok"] += 1
        except ConfigError as e:
            assert "\n" not in str(e) and str(e).startswith("fuzz.yaml"), (text, str(e))
            outcomes["refused"] += 1
        assert time.monotonic() - t0 < 1.0, text
    assert outcomes["refused"] > 100 and outcomes["ok"] > 0, outcomes
