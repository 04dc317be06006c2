"""What deploy makes of a generative model's settings before anything connects (session/generation.py,
cli/deploy.py): `--depth 0` stored as 0 (the settings section's rule for the generation settings), the llama.cpp load
flags `--mmap` / `--extra-buffers` (into the spec's runtime options, refused on a runtime without them), and the
deadline of the whole generate request (generation_deadline: its total from the token counts, and how far a request
got, read from the agent's last progress event). The real agent runs them in tests/gen/test_generate_deploy_flags.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edgeprof.cli.deploy import check_args
from edgeprof.cli.main import build_parser, main
from edgeprof.errors import ConfigError
from edgeprof.generative.limits import generation_deadline, repetition_silence_s
from edgeprof.generative.settings import settings_of
from edgeprof.records import Result, RunSpec, Settings
from edgeprof.session.generation import GEN_ONLY, check
from edgeprof_agent.messages import ProgressEvent
from edgeprof_agent.scenarios import poisson_offsets

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "results"


def _spec(*flags: str) -> RunSpec:
    return check_args(build_parser("deploy").parse_args(["deploy", "--device", "local", *flags]))


# -- 1. --depth 0 is a value ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("flags, stored", [
    (["--depth", "0"], 0), (["--depth", "512"], 512), ([], None),
])
def test_the_depth_given_is_stored_as_given_and_zero_is_a_value(flags, stored):
    spec = _spec("--model", "llama_tiny", *flags)
    s = Settings.of_run(spec)
    assert s.depth == stored
    assert Settings.from_dict(json.loads(json.dumps(s.to_dict()))).depth == stored  # kept through JSON


def test_a_forward_pass_run_stores_none_of_the_generation_settings():
    s = Settings.of_run(_spec("--model", "mobilenet_v2", "--threads", "2", "--min-duration", "3"))
    assert s.min_duration_s == 3.0
    assert all(getattr(s, name) is None for name in GEN_ONLY)


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("v*/*.json")), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_golden_keeps_the_generation_settings_it_was_written_with(path):
    raw = json.loads(path.read_text())
    loaded = Result.from_dict(raw).to_dict()["settings"]
    for name in GEN_ONLY:
        assert loaded.get(name) == (raw.get("settings") or {}).get(name)  # a null stays null, nothing invented


# -- 3. llama.cpp's mmap and extra buffers ----------------------------------------------------------------------------


def test_mmap_and_extra_buffers_go_into_the_runtime_options():
    spec = _spec("--model", "llama_tiny", "--mmap", "off", "--extra-buffers", "on")
    assert (spec.runtime, spec.runtime_options) == ("llama.cpp", {"use_mmap": False, "extra_buffers": True})
    assert _spec("--model", "llama_tiny", "--mmap", "on").runtime_options == {"use_mmap": True}
    assert _spec("--model", "llama_tiny").runtime_options == {}  # not given: the runtime's default, recorded


@pytest.mark.parametrize("flags, words", [
    (["--model", "llama_tiny", "--runtime", "onnxruntime-genai", "--mmap", "off"],
     "--mmap (use_mmap): onnxruntime-genai has no such setting; it is llama.cpp's"),
    (["--model", "llama_tiny", "--runtime", "onnxruntime-genai", "--extra-buffers", "on"],
     "--extra-buffers (extra_buffers): onnxruntime-genai has no such setting"),
    (["--model", "mobilenet_v2", "--mmap", "on"], "--mmap applies to --runtime llama.cpp, not onnxruntime"),
    (["--model", "mobilenet_v2", "--runtime", "tflite", "--extra-buffers", "off"],
     "--extra-buffers applies to --runtime llama.cpp, not tflite"),
])
def test_the_flags_on_a_runtime_without_the_setting_are_one_line(flags, words, capsys):
    assert main(["deploy", "--device", "no-such-board", *flags, "--no-store"]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "Traceback" not in err and "no-such-board" not in err, err
    assert len(err.splitlines()) == 1 and err.startswith("edgeprof: error: "), err


def test_a_sweep_s_runtime_options_are_judged_the_same_way():
    base = RunSpec(device="local", model="llama_tiny", runtime="llama.cpp", precision="q4_0")
    check(base.__class__(**{**base.__dict__, "runtime_options": {"use_mmap": False}}))  # fine on llama.cpp
    with pytest.raises(ConfigError, match=r"--mmap \(use_mmap\): must be true or false \(on / off\), not 'no'"):
        check(base.__class__(**{**base.__dict__, "runtime_options": {"use_mmap": "no"}}))
    ort = base.__class__(**{**base.__dict__, "runtime": "onnxruntime-genai", "precision": "int4",
                            "runtime_options": {"extra_buffers": False}})
    with pytest.raises(ConfigError, match="onnxruntime-genai has no such setting"):
        check(ort)


# -- 2. the deadline of the whole generation --------------------------------------------------------------------------


def test_the_single_stream_deadline_is_the_requests_at_a_generous_time_per_token():
    spec = _spec("--model", "llama_tiny", "--prompt-tokens", "64", "--gen-tokens", "16", "--depth", "100",
                 "--repetitions", "4", "--idle", "2")
    s = settings_of(spec)
    each = repetition_silence_s(s)
    assert each == 60.0 + 3.0 * (100 + 64 + 16)
    d = generation_deadline(spec, s)
    # idle (+60 s), the load (600 s), the warm-up (a request), 4 requests, a 60 s margin
    assert d.total_s == pytest.approx((2 + 60) + 600 + each + 4 * each + 60)
    assert d.label == "the generation's deadline" and "4 repetitions" in d.why and "180 tokens" in d.why
    assert "--gen-tokens" in (d.hint or "")
    cooled = generation_deadline(_spec("--model", "llama_tiny", "--cooldown", "50", "--cooldown-timeout", "5m",
                                       "--idle", "2", "--prompt-tokens", "64", "--gen-tokens", "16", "--depth",
                                       "100", "--repetitions", "4"), s)
    assert cooled.total_s == pytest.approx(d.total_s + 300 + 60)


def test_the_server_deadline_covers_its_schedule_and_every_request():
    spec = _spec("--model", "llama_tiny", "--scenario", "server", "--rate", "2", "--min-queries", "20",
                 "--min-duration", "0", "--prompt-tokens", "16", "--gen-tokens", "8", "--seed", "4", "--idle", "0")
    s = settings_of(spec)
    offsets = poisson_offsets(2.0, 0.0, 20, None, 4)
    each = repetition_silence_s(s)
    d = generation_deadline(spec, s)
    assert d.total_s == pytest.approx(60 + 600 + each + offsets[-1] / 1e9 + 20 * each + 60)
    assert "20 requests over a" in d.why


def test_the_sustained_deadline_is_its_duration_and_the_request_running_at_its_end():
    spec = _spec("--model", "llama_tiny", "--scenario", "sustained", "--duration", "10m", "--window", "1m",
                 "--prompt-tokens", "16", "--gen-tokens", "8", "--idle", "0")
    s = settings_of(spec)
    each = repetition_silence_s(s)
    assert generation_deadline(spec, s).total_s == pytest.approx(60 + 600 + each + 600 * 1.1 + each + 60)


def test_the_deadline_says_how_far_the_request_got():
    spec = _spec("--model", "llama_tiny")
    d = generation_deadline(spec, settings_of(spec))
    d.start(0.0)
    assert d.reached() == ""
    d.see(ProgressEvent(event="progress", phase="measure", n=3, total=5), 1.0)
    assert d.reached() == "its last progress: 'measure' 3 of 5 done"
    d.see(ProgressEvent(event="progress", phase="load"), 2.0)
    assert d.reached() == "its last progress: 'load'"


def test_a_long_repetition_after_the_first_is_not_cut_short():
    """The deadline's settle (the reply's time once the agent's progress says the loop is done) starts after the
    last repetition, never after the first: a slow board's repetitions each take minutes."""
    spec = _spec("--model", "llama_tiny", "--repetitions", "5", "--idle", "0")
    d = generation_deadline(spec, settings_of(spec))
    d.start(0.0)
    total = d.due()[0]
    d.see(ProgressEvent(event="progress", phase="measure", n=1, total=5), 100.0)
    d.see(ProgressEvent(event="progress", phase="measure", n=4, total=5), 400.0)
    assert d.due()[0] == total  # still the whole request's bound
    d.see(ProgressEvent(event="progress", phase="measure", n=5, total=5), 500.0)
    each = repetition_silence_s(settings_of(spec))
    assert d.due()[0] == min(total, 500.0 + each) and "the end its own progress reported" in d.due()[1]
    server = _spec("--model", "llama_tiny", "--scenario", "server", "--rate", "2", "--min-queries", "20",
                   "--min-duration", "0", "--idle", "0")
    d = generation_deadline(server, settings_of(server))
    d.start(0.0)
    total = d.due()[0]
    d.see(ProgressEvent(event="progress", phase="measure", elapsed_s=50.0, n=19, min_queries=20), 60.0)
    assert d.due()[0] == total


# -- 4. onnxruntime-genai's execution provider (--providers) ----------------------------------------------------------


@pytest.mark.parametrize("given, provider", [
    ("cuda", "cuda"), ("CUDAExecutionProvider", "cuda"), ("CUDAExecutionProvider,CPUExecutionProvider", "cuda"),
    ("cuda, cpu", "cuda"), ("cpu", "cpu"), ("CPUExecutionProvider", "cpu"),
])
def test_providers_become_onnxruntime_genai_s_one_provider(given, provider):
    spec = _spec("--model", "llama_tiny", "--runtime", "onnxruntime-genai", "--providers", given)
    assert (spec.runtime, spec.precision, spec.runtime_options) == ("onnxruntime-genai", "int4",
                                                                    {"provider": provider})
    check(spec)
    assert _spec("--model", "llama_tiny", "--runtime", "onnxruntime-genai").runtime_options == {}  # genai_config's


@pytest.mark.parametrize("flags, words", [
    (["--runtime", "llama.cpp", "--providers", "cuda"],
     "--providers cuda: llama.cpp takes no execution providers (only onnxruntime-genai does"),
    (["--providers", "CUDAExecutionProvider"], "--providers CUDAExecutionProvider: llama.cpp takes no execution"),
    (["--runtime", "litert-lm", "--providers", "cuda"], "--providers cuda: litert-lm takes no execution providers"),
    (["--runtime", "onnxruntime-genai", "--providers", "TensorrtExecutionProvider"],
     "--providers TensorrtExecutionProvider: TensorrtExecutionProvider has no onnxruntime-genai mapping here"),
    (["--runtime", "onnxruntime-genai", "--providers", "cpu,cuda"], "--providers cpu,cuda: is not one provider"),
    (["--runtime", "onnxruntime-genai", "--providers", "cuda,cuda"], "--providers cuda,cuda: is not one provider"),
])
def test_providers_a_generation_runtime_cannot_take_are_one_line(flags, words, capsys):
    assert main(["deploy", "--device", "no-such-board", "--model", "llama_tiny", *flags, "--no-store"]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "Traceback" not in err and "no-such-board" not in err, err
    assert len(err.splitlines()) == 1 and err.startswith("edgeprof: error: "), err


def test_a_sweep_s_provider_is_judged_the_same_way():
    ort = RunSpec(device="local", model="llama_tiny", runtime="onnxruntime-genai", precision="int4")
    for opts in ({"provider": "cuda"}, {"provider": "cpu"}, {"providers": ["CUDAExecutionProvider"]}):
        check(ort.__class__(**{**ort.__dict__, "runtime_options": opts}))
    with pytest.raises(ConfigError, match="provider 'rocm': onnxruntime-genai runs on cpu or cuda here"):
        check(ort.__class__(**{**ort.__dict__, "runtime_options": {"provider": "rocm"}}))
    llama = ort.__class__(**{**ort.__dict__, "runtime": "llama.cpp", "precision": "q4_0",
                             "runtime_options": {"provider": "cuda"}})
    with pytest.raises(ConfigError, match="provider 'cuda': llama.cpp has no execution provider setting here"):
        check(llama)
