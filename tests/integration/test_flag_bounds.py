"""Issue 21 items 2 and 3 through the CLI: every number of a deploy is bounded by the settings table (the bounds
sweep files use), a schedule is bounded in duration, and every flag either applies to the chosen runtime and
scenario or is refused in one line naming what it applies to. Each refusal comes before anything connects (the
device named does not exist: a refusal that came later would name the device instead)."""

from __future__ import annotations

import argparse
import os
import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgeprof.cli.main import build_parser, main

NOWHERE = "no-such-device-here"
PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def deploy_refusal(capsys: pytest.CaptureFixture[str], *flags: str, model: str = "mobilenet_v2") -> str:
    code = main(["deploy", "--device", NOWHERE, "--model", model, "--no-store", "--quiet", *flags])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "Traceback" not in err and len(err.splitlines()) == 1, err
    assert NOWHERE not in err, f"refused only after the flags were accepted: {err}"
    return err


@pytest.mark.parametrize("flags,message", [
    (["--scenario", "fixed-rate", "--rate", "1e-300"], "--rate 1e-300: 100 queries at 1e-300/s take"),
    (["--scenario", "server", "--rate", "1e-300", "--latency-bound", "50"], "beyond the 7-day limit"),
    (["--scenario", "fixed-rate", "--rate", "1e-6"], "beyond the 7-day limit of a run"),
    (["--scenario", "fixed-rate", "--rate", "1e6"], "must be > 0 and <= 100000"),
    (["--scenario", "multi-stream", "--samples-per-query", str(10**9)], "--samples-per-query 1000000000: must be <= 4096"),
    (["--scenario", "server", "--rate", "10", "--latency-bound", "1e300"], "--latency-bound 1e+300: must be <="),
    (["--battery-wh", "1e300"], "--battery-wh 1e+300: must be <= 1e+06"),
    (["--scenario", "offline", "--battery-wh", "inf"], "--battery-wh inf"),
    (["--input", "x=99999999999x4"], "elements, beyond 1 GiB per input"),
    (["--calibration", "no/such/dir"], "--calibration no/such/dir: no such directory"),
    (["--min-duration=--"], "--min-duration []: must be a number"),  # argparse hands `--` over as []
    (["--min-queries=--"], "--min-queries []: must be an integer"),
    (["--cooldown=--"], "--cooldown []: must be a number"),  # a setting check.py words itself
    (["--scenario", "fixed-rate", "--rate=--"], "--rate []: must be a number"),
])
def test_numbers_are_bounded_like_sweep_files(capsys: pytest.CaptureFixture[str], flags: list[str],
                                              message: str) -> None:
    assert message in deploy_refusal(capsys, *flags)


def test_a_schedule_within_the_limit_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    """100 queries at 0.001/s is about a day: long, but a run a user may mean (only the device is unknown)."""
    code = main(["deploy", "--device", NOWHERE, "--model", "mobilenet_v2", "--scenario", "fixed-rate", "--rate",
                 "0.001", "--no-store", "--quiet"])
    assert code == 2 and NOWHERE in capsys.readouterr().err


def test_bounds_are_the_settings_table() -> None:
    from edgeprof.vocab import SETTINGS

    assert SETTINGS["samples_per_query"].hi == 4096 and SETTINGS["latency_bound_ms"].hi == 3600 * 1000
    assert SETTINGS["battery_wh"].hi == 1e6


@pytest.mark.parametrize("flags,message", [
    (["--xnnpack", "off"], "--xnnpack applies to --runtime tflite, not onnxruntime"),
    (["--delegate", "gpu.so"], "--delegate applies to --runtime tflite, not onnxruntime"),
    (["--delegate-option", "a=b"], "--delegate-option applies to --runtime tflite"),
    (["--runtime", "tflite", "--graph-opt", "basic"], "--graph-opt applies to --runtime onnxruntime, not tflite"),
    (["--runtime", "null", "--graph-opt", "all"], "--graph-opt applies to --runtime onnxruntime, not null"),
    (["--runtime", "null", "--profile-ops"], "--profile-ops applies to --runtime onnxruntime or tflite or tensorrt"),
    (["--runtime", "tflite", "--providers", "CPUExecutionProvider"], "--providers applies to --runtime onnxruntime"),
    (["--latency-bound", "50"], "--latency-bound applies to --scenario server or fixed-rate, not single-stream"),
    (["--scenario", "offline", "--latency-bound", "50"], "not offline"),
    (["--samples-per-query", "8"], "--samples-per-query applies to --scenario multi-stream, not single-stream"),
    (["--scenario", "server", "--rate", "10", "--latency-bound", "50", "--find-max-rate", "--profile-ops"],
     "--profile-ops with --find-max-rate"),
])
def test_a_flag_that_does_not_apply_is_refused(capsys: pytest.CaptureFixture[str], flags: list[str],
                                               message: str) -> None:
    assert message in deploy_refusal(capsys, *flags)


def test_a_fifo_as_accuracy_says_not_a_regular_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "val.npz"
    os.mkfifo(fifo)
    assert "not a regular file (a FIFO" in deploy_refusal(capsys, "--accuracy", str(fifo))


def test_find_max_rate_keeps_the_opset(monkeypatch: pytest.MonkeyPatch) -> None:
    """--find-max-rate passed neither --opset nor --profile-ops to its probes: --opset now reaches every probe (in
    the probe's spec, where every run setting is)."""
    from edgeprof import session as pipeline
    from edgeprof.cli import deploy

    seen: list[object] = []

    def fake_deploy(spec, device, **kw):  # type: ignore[no-untyped-def]
        seen.append(spec.opset)
        raise SystemExit(0)

    monkeypatch.setattr(pipeline, "deploy", fake_deploy)
    from edgeprof.records import local_device

    # the probes share one connection and agent (opened before the first probe): a real local device
    monkeypatch.setattr(deploy, "resolve_device", lambda name, inventory: local_device())
    args = build_parser().parse_args(["deploy", "--device", "local", "--model", "mobilenet_v2", "--scenario",
                                      "server", "--rate", "10", "--latency-bound", "50", "--find-max-rate",
                                      "--opset", "15", "--no-store", "--quiet"])
    with pytest.raises(SystemExit):
        deploy.run(args)
    assert seen == [15]


# -- every --help example passes its argument check ------------------------------------------------------------


def _subparsers(parser: argparse.ArgumentParser):  # type: ignore[no-untyped-def]
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for sp in a.choices.values():
                yield sp
                yield from _subparsers(sp)


def help_examples() -> list[str]:
    p = build_parser()
    out: list[str] = []
    for text in [p.epilog or ""] + [sp.epilog or "" for sp in _subparsers(p)]:
        for line in text.splitlines():
            line = line.strip()
            if line.startswith("edgeprof "):
                for part in line.split("&&"):  # `a && b`: two commands
                    out.append(re.split(r"\s{2,}|\s+#", part.strip())[0])
    return sorted(set(out))


def test_the_help_has_examples() -> None:
    examples = help_examples()
    assert len(examples) > 30 and any("--opset 15" in e for e in examples)


@pytest.mark.parametrize("example", help_examples())
def test_every_help_example_passes_its_argument_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      example: str) -> None:
    from edgeprof.cli import deploy

    monkeypatch.chdir(tmp_path)  # the files the examples name exist (their contents are read after connecting)
    np.savez(tmp_path / "audio.npz", x=np.zeros((1, 4), np.float32))
    np.savez(tmp_path / "val.npz", x=np.zeros((1, 4), np.float32), labels=np.zeros(1, np.int64))
    (tmp_path / "samples").mkdir()
    argv = shlex.split(example)[1:]
    args = build_parser().parse_args(argv)  # argparse exits 2 on a refused argument
    if argv[0] == "deploy":
        spec = deploy.check_args(args)
        assert spec.model == args.model


# -- any flag combination of a small grammar: accepted or one line ---------------------------------------------

FLAG_GRAMMAR = st.lists(st.one_of(
    st.tuples(st.just("--runtime"), st.sampled_from(["onnxruntime", "tflite", "null", "tensorrt", "bogus"])),
    st.tuples(st.just("--precision"), st.sampled_from(["fp32", "fp16", "int8"])),
    st.tuples(st.just("--scenario"), st.sampled_from(["single-stream", "multi-stream", "offline", "server",
                                                      "fixed-rate"])),
    st.tuples(st.sampled_from(["--rate", "--latency-bound", "--battery-wh", "--min-duration", "--warmup",
                               "--idle", "--cooldown", "--power-rate"]),
              st.sampled_from(["0", "-1", "1e-300", "1e-6", "0.5", "30", "1e300", "nan", "inf"])),
    st.tuples(st.sampled_from(["--samples-per-query", "--streams", "--batch", "--threads", "--min-queries",
                               "--max-queries", "--opset", "--seed"]),
              st.sampled_from(["0", "1", "8", "15", "4096", "4097", str(10**9), str(10**30)])),
    st.tuples(st.sampled_from(["--xnnpack"]), st.sampled_from(["on", "off"])),
    st.tuples(st.sampled_from(["--graph-opt"]), st.sampled_from(["basic", "all"])),
    st.tuples(st.sampled_from(["--profile-ops", "--find-max-rate"])),
    st.tuples(st.just("--input"), st.sampled_from(["x=1x3", "x=0x3", "x=99999999999x4", "x=1x"])),
    st.tuples(st.just("--input-range"), st.sampled_from(["x=0:1", "x=-1e308:1e308", "x=1:0", "x=nan:1"])),
    st.tuples(st.just("--input-value"), st.sampled_from(["x=1e308", "x=1", "x=nan", "x=true"])),
), max_size=6)


@PROPS
@given(flags=FLAG_GRAMMAR)
def test_any_flag_combination_is_accepted_or_refused_in_one_line(capsys: pytest.CaptureFixture[str],
                                                                 flags: list[tuple[str, ...]]) -> None:
    argv = [x for f in flags for x in f]
    try:
        code = main(["deploy", "--device", NOWHERE, "--model", "mobilenet_v2", "--no-store", "--quiet", *argv])
    except SystemExit as e:  # argparse: a value of the wrong type or choice
        code = int(e.code or 0)
    err = capsys.readouterr().err.strip()
    assert code == 2 and "Traceback" not in err, err
    assert len(err.splitlines()) == 1 or err.startswith("usage:"), err
