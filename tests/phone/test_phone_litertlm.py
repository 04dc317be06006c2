"""LiteRT-LM on the stand-in phone: a .litertlm measured by litert_lm_main (the replay tests/phone/litert_lm_main),
end to end through `edgeprof deploy` with both adb clients, the stored generation section (the tool's own figures,
what it does not give and why), the energy per phase from the battery trace cut with the tool's durations laid on
the phone clock (a constant power exactly, a power that steps with the phases, durations that do not fit, the
rails), the phone's thermal status and battery power, `results show`; an adbd without shell v2; the one-line
refusals; the tool's own failures; and its output parsed as the real tool prints it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import phone_tree as tree
import pytest
from phone_adbd import serial

from edgeprof.cli.main import main
from edgeprof.errors import MeasurementFailed
from edgeprof.phone import litertlm
from edgeprof.phone.runner import PhoneRunner
from edgeprof.records import Device, RunSpec
from edgeprof.records.device import BenchmarkModel, PhoneConfig
from edgeprof.transport.adb import open_adb, sha256_file

# one BenchmarkInfo block as io_types.cc operator<< prints it (runtime/engine/io_types.cc), with the figures of a
# user's published run of litert-lm v0.10.2 (CPU, gemma-4-E2B, Windows x64): the tool's own printed speeds and TTFT
# are rounded, so recomputing them from the turns checks the parser against the tool's arithmetic
REAL_BLOCK = """\
BenchmarkInfo:
  Init Phases (7):
    - Init Conversation: 0.09 ms
    - Init Executor: 577.30 ms
    - Init LLM metadata: 0.15 ms
    - Init Model assets: 0.49 ms
    - Init Tokenizer: 101.68 ms
    - Init Total: 580.10 ms
--------------------------------------------------
  Time to first token: 0.92 s
--------------------------------------------------
  Prefill Turns (Total 1 turns):
    Prefill Turn 1: Processed 16 tokens in 819.9514ms duration.
      Prefill Speed: 19.51 tokens/sec.
--------------------------------------------------
  Decode Turns (Total 1 turns):
    Decode Turn 1: Processed 88 tokens in 8.7038005s duration.
      Decode Speed: 10.11 tokens/sec.
--------------------------------------------------
  TextToTokenIds Turns (Total 2 turns):
    Turn 1: 11.2us, 1 tokens
    Turn 2: 46.1us, 15 tokens
--------------------------------------------------
--------------------------------------------------
"""


@pytest.mark.parametrize("text,ns", [("819.9514ms", 819_951_400), ("8.7038005s", 8_703_800_500), ("11.2us", 11_200),
                                     ("1m2.5s", 62_500_000_000), ("1h0m1s", 3_601_000_000_000), ("250ns", 250),
                                     ("0", 0)])
def test_absl_durations(text, ns):
    assert litertlm.parse_duration(text) == ns


@pytest.mark.parametrize("text", ["", "12", "1.5 ms", "ms", "12parsecs"])
def test_what_is_not_an_absl_duration(text):
    with pytest.raises(litertlm.LitertLmOutputError):
        litertlm.parse_duration(text)


def test_a_real_benchmarkinfo_block_and_the_tools_own_arithmetic():
    out = litertlm.parse_output(REAL_BLOCK)
    [info] = out.infos
    assert info.init_ms["Init Total"] == pytest.approx(580.10) and "Init Session" not in info.init_ms
    [pre], [dec] = info.prefill, info.decode
    assert (pre.tokens, pre.ns, dec.tokens, dec.ns) == (16, 819_951_400, 88, 8_703_800_500)
    assert round(pre.tokens / (pre.ns / 1e9), 2) == 19.51  # the tool's "Prefill Speed"
    assert round(dec.tokens / (dec.ns / 1e9), 2) == 10.11  # its "Decode Speed"
    assert round(pre.ns / 1e9 + dec.ns / 1e9 / dec.tokens, 2) == 0.92  # its GetTimeToFirstToken
    with pytest.raises(litertlm.LitertLmOutputError, match="no BenchmarkInfo"):
        litertlm.parse_output(REAL_BLOCK.replace("Turn 1: Processed", "Turn 1: did"))
    with pytest.raises(litertlm.LitertLmOutputError, match="1 prefill and 2 decode turns"):
        litertlm.parse_output(REAL_BLOCK + "    Decode Turn 2: Processed 1 tokens in 1ms duration.\n")


def test_the_tools_error_lines():
    # the engine's E line and its source trace as litert-lm-api 0.18.1 prints them here, then main's CHECK failure
    out = ("I0000 00:00:1.0 42 litert_lm_lib.cc:1] Choose backend: cpu\n"
           "E0000 00:00:1796441026.243053   21670 engine.cc:854] Failed to create engine: INVALID_ARGUMENT: Invalid "
           "magic number or failed to read: PK\x03\x04\x00\x00\x00\x00\n=== Source Location Trace: ===\n"
           "third_party/odml/litert_lm/schema/core/litertlm_read.cc:78\n"
           "F0000 00:00:1.1 42 litert_lm_main.cc:287] Check failed: MainHelper(argc, argv) is OK (INVALID_ARGUMENT: "
           "Invalid magic number or failed to read: PK\x03\x04\x00\x00\x00\x00)\n*** Check failure stack trace: ***\n")
    assert litertlm.error_line(out) == ("Check failed: MainHelper(argc, argv) is OK (INVALID_ARGUMENT: Invalid magic "
                                        "number or failed to read: PK\\x03\\x04\\x00\\x00\\x00\\x00)")
    assert litertlm.error_line(out.split("F0000")[0]) == ("Failed to create engine: INVALID_ARGUMENT: Invalid magic "
                                                          "number or failed to read: PK\\x03\\x04\\x00\\x00\\x00\\x00")
    assert litertlm.error_line("ERROR: Unknown command line flag 'num_iterations'\n") == (
        "Unknown command line flag 'num_iterations'")
    assert litertlm.error_line("nothing wrong\n") is None


def test_the_command_line():
    argv = litertlm.command("/p/bin/litert_lm_main-ab", "/p/artifacts/x.litertlm", prompt_tokens=256, gen_tokens=128,
                            iterations=6, threads=4)
    assert argv == ["/p/bin/litert_lm_main-ab", "--model_path=/p/artifacts/x.litertlm", "--backend=cpu", "--benchmark",
                    "--benchmark_prefill_tokens=256", "--benchmark_decode_tokens=128", "--async=false",
                    "--num_iterations=6", "--report_peak_memory_footprint", "--num_cpu_threads=4"]
    assert "--num_cpu_threads" not in " ".join(litertlm.command("b", "m", prompt_tokens=1, gen_tokens=1, iterations=2,
                                                               threads=None))


def inventory(tmp_path: Path, d, adb_client: str, server_port: int, extra: str = "") -> str:  # type: ignore[no-untyped-def]
    p = tmp_path / "devices.yaml"
    p.write_text(f"version: 1\ndevices:\n  phone:\n    transport: adb\n    serial: '{serial(d)}'\n"
                 f"    adb: {adb_client}\n    adb_server_port: {server_port}\n{extra}")
    return str(p)


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    pytest.importorskip("litert_lm_builder")
    return tree.tiny_litertlm(tmp_path / "model" / "tiny.litertlm")


LM = f"    litert_lm_main: '{tree.litert_lm_main_script()}'\n"


@pytest.mark.alone  # the tool's untimed time must stay under 10 % of a ~1.8 s run: a parallel suite's workers can stretch it
def test_deploy_a_litertlm_on_the_phone(adb_client, server_port, phone, tiny, tmp_path, capsys):
    """`edgeprof deploy --device phone --model tiny.litertlm --runtime litert-lm`: litert_lm_main pushed by content,
    one warm-up + 2 timed iterations, the tool's figures in the generation section (said to be its own, with no
    per-token times), battery power over the whole run, the phone's thermal status before and after stored."""
    inv = inventory(tmp_path, phone, adb_client, server_port, LM)
    db = tmp_path / "db.sqlite"
    argv = ["deploy", "--device", "phone", "--inventory", inv, "--model", str(tiny), "--runtime", "litert-lm",
            "--prompt-tokens", "32", "--gen-tokens", "16", "--repetitions", "2", "--quiet", "--db", str(db),
            "--json", str(tmp_path / "r.json")]
    assert main(argv) == 0
    shown = " ".join(capsys.readouterr().out.split())
    r = json.loads((tmp_path / "r.json").read_text())
    g, ph = r["generation"], r["phone"]
    assert (r["runtime"], r["precision"], r["status"]) == ("litert-lm", "as-built", "ok")
    assert (g["runtime"], g["prompt_tokens"], g["tokens"], g["depth"], g["repetitions"]) == ("litert-lm", 32, 16, 0, 2)
    assert g["measured_by"] == "litert_lm_main" and g["token_ns"] == [] and g["itl_ms"] is None
    assert set(g["absent"]) >= {"token_ns", "itl_ms"} and "no per-token times" in g["absent"]["token_ns"]
    assert len(g["prefill_ns"]) == 2 and g["warmup_prefill_ns"] > 0
    # the figures follow from the tool's own turn durations by its own formulas
    pre_s = [ns / 1e9 for ns in g["prefill_ns"]]
    assert g["prefill_tps"]["mean"] == pytest.approx(sum(32 / s for s in pre_s) / 2)
    assert g["prefill_ms"]["mean"] == pytest.approx(sum(pre_s) / 2 * 1e3)
    tpot = g["tpot_ms"]["mean"]
    assert g["ttft_ms"]["mean"] == pytest.approx(g["prefill_ms"]["mean"] + tpot)
    assert g["decode_tps"]["mean"] == pytest.approx(1e3 / tpot, rel=0.05)  # per repetition 1000 / TPOT
    assert 30 < g["decode_tps"]["mean"] < 45  # the replay's made-up 38-42 tokens/s at four threads
    assert 200 < g["load_ms"] < 260  # the replay's "Init Total" of the warm-up iteration
    assert "GetTimeToFirstToken" in g["definitions"]["ttft_ms"]
    check_constant_power_energy(g, 0.412 * 3.912)  # the tree's battery: -412000 µA at 3912000 µV
    # the replay's 32-token prefill (about 0.1 s) and 16-token decode (0.4 s) are shorter than 3 sample intervals
    coarse = [w["message"] for w in r["warnings"] if w["code"] == "phase_energy_coarse"]
    assert len(coarse) == 2 and "J per prompt token is coarse" in coarse[0] and "J per token is coarse" in coarse[1]
    assert ph["tool"] == "litert_lm_main" and ph["binary"].startswith("/data/local/tmp/edgeprof/bin/litert_lm_main-")
    assert ph["binary"].endswith(sha256_file(str(tree.litert_lm_main_script()))[:16])
    for flag in ("--benchmark", "--benchmark_prefill_tokens=32", "--benchmark_decode_tokens=16", "--num_iterations=3",
                 "--async=false", "--backend=cpu"):
        assert flag in ph["command"]
    assert ph["command"][1] == f"--model_path=/data/local/tmp/edgeprof/artifacts/{sha256_file(str(tiny))}.litertlm"
    assert (ph["thermal_status_before"], ph["thermal_status_after"]) == (0, 0)
    assert r["power"]["source"] == "battery" and r["power"]["n_samples"] >= 2
    assert r["power"]["mean_w"] == pytest.approx(0.412 * 3.912, rel=1e-6)
    assert "whole litert_lm_main process" in r["power"]["note"]
    assert r["memory_mb"]["peak_rss"] > 400 and r["artifact"]["sha256"] == sha256_file(str(tiny))
    assert "litert_lm_main's own figures, not timed by edgeprof" in shown and "TTFT" in shown
    assert "energy (battery, phases from litert_lm_main's durations anchored at the process start" in shown
    assert "thermal status none (0) → none (0)" in shown
    assert main(["results", "show", r["run_id"], "--db", str(db)]) == 0
    again = " ".join(capsys.readouterr().out.split())
    assert "litert_lm_main's own figures" in again and "decode" in again and "pp32" in again

    # a warm phone: its thermal status is stored and warned about; the binary is not pushed again
    tree.set_thermal(phone.root, 3)
    assert main([*argv[:-2], "--json", str(tmp_path / "warm.json")]) == 0
    w = json.loads((tmp_path / "warm.json").read_text())
    assert (w["phone"]["thermal_status_before"], w["phone"]["thermal_status_after"]) == (3, 3)
    assert any(x["code"] == "phone_thermal_status" for x in w["warnings"])
    assert w["phone"]["binary"] == ph["binary"]


def check_constant_power_energy(g: dict, watts: float) -> None:  # type: ignore[type-arg]
    """A battery of constant W: J per prompt token = W x TTFT window / prompt tokens and J per token = W x decode
    window / decoded tokens exactly (rel 1e-9: the trapezoids of a constant are W x the window wherever the samples
    fall, as tests/gen/test_generate_ssh.py's check_energy), the windows the stored ones (generation.windows_ns),
    and those follow from the tool's own turns: TTFT window = prefill turn + decode turn / tokens (its TTFT)."""
    e, reps, prompt, gen = g["energy"], g["repetitions"], g["prompt_tokens"], g["tokens"]
    assert e is not None and g["energy_reason"] is None, g["energy_reason"]
    windows = g["windows_ns"]
    assert len(windows) == reps and windows[0][0] == 0
    for w, pre_ns in zip(windows, g["prefill_ns"], strict=True):
        assert w[0] < w[1] < w[2] < w[3] and w[1] - w[0] == pre_ns
    ttft_s = sum(w[2] - w[0] for w in windows) / 1e9
    decode_s = sum(w[3] - w[2] for w in windows) / 1e9
    assert ttft_s * 1e3 / reps == pytest.approx(g["ttft_ms"]["mean"], rel=1e-6)  # the tool's TTFT, from its turns
    assert decode_s * 1e3 / reps / (gen - 1) == pytest.approx(g["tpot_ms"]["mean"], rel=1e-6)  # and its TPOT
    assert e["prefill_s"] == pytest.approx(ttft_s, rel=1e-12) and e["decode_s"] == pytest.approx(decode_s, rel=1e-12)
    assert (e["prompt_tokens"], e["decode_tokens"]) == (reps * prompt, reps * (gen - 1))
    assert e["j_per_prompt_token"] == pytest.approx(watts * ttft_s / (reps * prompt), rel=1e-9)
    assert e["j_per_token"] == pytest.approx(watts * decode_s / (reps * (gen - 1)), rel=1e-9)
    assert e["prefill_mean_w"] == pytest.approx(watts, rel=1e-9) and e["decode_mean_w"] == pytest.approx(watts, rel=1e-9)
    assert e["tokens_per_j"] == pytest.approx(reps * (gen - 1) / (watts * decode_s), rel=1e-9)
    assert re.fullmatch(r"battery, phases from litert_lm_main's durations anchored at the process start on the "
                        r"phone clock; samples every [\d.]+ s; ([\d.]+) s of the ([\d.]+) s process outside the "
                        r"durations", e["source"]), e["source"]
    assert "laid from its printed durations" in g["definitions"]["windows_ns"]


@pytest.mark.alone  # each phase's W within a quarter of the step needs steady ~60 ms samples: a parallel suite's workers can stretch it
def test_battery_power_that_steps_between_phases(adb_client, server_port, phone, tiny, tmp_path):
    """The replay draws its own current per phase (its current_ua control: init, prefill, decode): each phase's
    mean W is its own level, not the run's mean. Sampled every 50 ms, prefill about 0.8 s, decode about 0.8 s.
    Tolerance: a quarter of the step between the levels, since the windows are laid from the process's start (the
    replay's Python start-up, outside its durations, puts them up to that much early) and the samples interpolate
    across each edge (up to an interval)."""
    ua = {"init": -300_000, "prefill": -1_500_000, "decode": -700_000, "exit": -412_000}
    tree.write(phone.root / "vendor/replay/litert_lm_main/current_ua", "".join(f"{k} {v}\n" for k, v in ua.items()))
    inv = inventory(tmp_path, phone, adb_client, server_port, LM + "    power: {rate_hz: 20}\n")
    assert main(["deploy", "--device", "phone", "--inventory", inv, "--model", str(tiny), "--prompt-tokens", "256",
                 "--gen-tokens", "32", "--repetitions", "1", "--quiet", "--no-store",
                 "--json", str(tmp_path / "r.json")]) == 0
    r = json.loads((tmp_path / "r.json").read_text())
    g = r["generation"]
    e = g["energy"]
    assert e is not None, g["energy_reason"]
    volts = 3.912
    w_pre, w_dec = 1.5 * volts, 0.7 * volts
    [(a, b, c, d)] = g["windows_ns"]
    # the TTFT window: the prefill turn at the prefill level, then the first token (decode turn / 32) at decode's
    want_pre = ((b - a) * w_pre + (c - b) * w_dec) / (c - a)
    step = w_pre - w_dec
    assert abs(e["prefill_mean_w"] - want_pre) < step / 4, (e["prefill_mean_w"], want_pre)
    assert abs(e["decode_mean_w"] - w_dec) < step / 4, (e["decode_mean_w"], w_dec)
    assert e["j_per_token"] == pytest.approx(e["decode_mean_w"] * (d - c) / 1e9 / 31, rel=1e-9)
    # the whole process's mean is none of them: init at 0.3 A, the warm-up, the gaps
    assert not (w_dec < r["power"]["mean_w"] < w_pre and abs(r["power"]["mean_w"] - e["prefill_mean_w"]) < 0.1)
    assert not [w for w in r["warnings"] if w["code"] == "phase_energy_coarse"]


def test_the_tools_durations_that_do_not_fit_its_process(adb_client, server_port, phone, tiny, tmp_path):
    """The replay stalls 1.5 s before its init (its stall_s control), a start-up none of its printed durations
    covers: more than 10 % of the process is outside them, so no energy per phase, the reason says so, and the
    power section keeps the whole run's mean W."""
    tree.write(phone.root / "vendor/replay/litert_lm_main/stall_s", "1.5\n")
    inv = inventory(tmp_path, phone, adb_client, server_port, LM)
    assert main(["deploy", "--device", "phone", "--inventory", inv, "--model", str(tiny), "--prompt-tokens", "16",
                 "--gen-tokens", "8", "--repetitions", "1", "--quiet", "--no-store",
                 "--json", str(tmp_path / "r.json")]) == 0
    r = json.loads((tmp_path / "r.json").read_text())
    g = r["generation"]
    assert g["energy"] is None and g["windows_ns"] == []
    assert "litert_lm_main's durations (init, then each iteration's prefill and decode turns) do not fit its " \
           "process on the phone clock" in g["energy_reason"] and "10% tolerance" in g["energy_reason"]
    assert "the power section has the whole litert_lm_main process's mean W and J" in g["energy_reason"]
    assert r["power"]["mean_w"] == pytest.approx(0.412 * 3.912, rel=1e-6)
    assert not [w for w in r["warnings"] if w["code"] == "phase_energy_coarse"]


def test_a_pixel_with_power_rails_has_no_energy_per_phase(adb_client, server_port, phone, tiny, tmp_path):
    """The ODPM rails are read before and after the tool (two counter reads, no trace to cut): the power section
    is the rails' sum over the whole run and the generation section says why there is no energy per phase."""
    inv = inventory(tmp_path, phone, adb_client, server_port, LM)
    with tree.RailMeter(phone.root):
        assert main(["deploy", "--device", "phone", "--inventory", inv, "--model", str(tiny), "--prompt-tokens", "16",
                     "--gen-tokens", "8", "--repetitions", "1", "--quiet", "--no-store",
                     "--json", str(tmp_path / "r.json")]) == 0
    r = json.loads((tmp_path / "r.json").read_text())
    g = r["generation"]
    assert r["power"]["source"] == "rails" and g["energy"] is None and g["windows_ns"] == []
    assert g["energy_reason"].startswith("the rails reading is two counter reads around the whole litert_lm_main "
                                         "process, no trace to cut into prefill and decode windows")


def test_what_a_phone_refuses_is_one_line(adb_client, server_port, phone, tiny, tmp_path, capsys):
    with_lm = inventory(tmp_path, phone, adb_client, server_port, LM)
    (tmp_path / "bare").mkdir()
    bare = inventory(tmp_path / "bare", phone, adb_client, server_port)
    bad = tmp_path / "bad.litertlm"
    bad.write_bytes(b"PK\x03\x04" + bytes(60))
    cases = [
        (bare, [str(tiny)], "device phone: no litert_lm_main"),
        (with_lm, [str(tiny), "--depth", "64"], "--depth 64: litert_lm_main's benchmark mode cannot fill the KV"),
        (with_lm, [str(tiny), "--precision", "q4_0"], "--precision q4_0: a .litertlm is measured as it was built"),
        (with_lm, [str(bad)], "is not a LiteRT-LM file"),
        (with_lm, ["llama_tiny"], "runtime llama.cpp: a phone runs generative models on LiteRT-LM"),
        # (litert-lm builds a .litertlm from a bundled model on a board; a phone takes a .litertlm file only)
        (with_lm, ["llama_tiny", "--runtime", "litert-lm"],
         "device phone: llama_tiny: a phone runs generative models from a .litertlm file"),
    ]
    for inv, model, words in cases:
        rc = main(["deploy", "--device", "phone", "--inventory", inv, "--model", *model, "--no-store", "--quiet"])
        err = capsys.readouterr().err
        lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith(("hint", "  "))]
        assert rc != 0 and words in err, (model, err)
        assert len(lines) == 1, err


def runner(d, adb_client: str, server_port: int) -> PhoneRunner:  # type: ignore[no-untyped-def]
    dev = Device(name="pixel", kind="adb", host=serial(d), python="", workdir="/data/local/tmp/edgeprof",
                 phone=PhoneConfig(serial=serial(d), adb=adb_client, adb_server_port=server_port,
                                   litert_lm_main=BenchmarkModel(host_path=str(tree.litert_lm_main_script()))))
    return PhoneRunner(open_adb(dev), dev)


def test_an_adbd_without_shell_v2(adb_client, server_port, phone_root, tiny):
    """A phone whose adbd has no shell v2 (before Android 7: the exit status comes from a marker echoed after the
    line): the run ends with its status, its battery trace and the phone clock's reads around the tool; a failing
    run's status too."""
    import phone_adbd as adbd

    d = adbd.StandInAdbd(phone_root, mode="legacy")
    try:
        s = runner(d, adb_client, server_port)
        assert "shell_v2" not in s.transport.features
        remote, _ = s.push_artifact(str(tiny), sha256_file(str(tiny)), "litertlm")
        spec = RunSpec(device="pixel", model=str(tiny), runtime="litert-lm", precision="as-built", prompt_tokens=8,
                       gen_tokens=4, repetitions=1)
        lm = litertlm.run(s, remote, spec)
        assert lm.tool.power is not None and lm.tool.span_ns is not None
        t0, t1 = lm.tool.span_ns
        assert lm.tool.power.trace_ns[0] <= t0 < t1 <= lm.tool.power.trace_ns[-1]  # the trace covers the process
        with pytest.raises(MeasurementFailed, match="litert_lm_main died"):
            litertlm.run(s, "/data/local/tmp/nothing.litertlm", spec)
    finally:
        d.close()


def test_the_tool_fails_as_the_real_one_does(adb_client, server_port, phone, tmp_path):
    """A file that is not a .litertlm (by its magic, as litertlm_read.cc ReadHeaderFromLiteRTLM checks) and a model
    that is not there: litert_lm_main's CHECK failure (SIGABRT), its reason in one line (the engine's messages as
    litert-lm-api 0.18.1 gives them)."""
    s = runner(phone, adb_client, server_port)
    spec = RunSpec(device="pixel", model="x.litertlm", runtime="litert-lm", precision="as-built", prompt_tokens=8,
                   gen_tokens=4, repetitions=1)
    junk = tmp_path / "junk.litertlm"
    junk.write_bytes(b"PK\x03\x04" + bytes(60))
    remote, _ = s.push_artifact(str(junk), sha256_file(str(junk)), "litertlm")
    with pytest.raises(MeasurementFailed) as e:
        litertlm.run(s, remote, spec)
    assert e.value.message == ("device pixel: litert_lm_main died (exit 134, signal 6): Check failed: "
                               "MainHelper(argc, argv) is OK (INVALID_ARGUMENT: Invalid magic number or failed to "
                               "read: PK\\x03\\x04\\x00\\x00\\x00\\x00)")
    with pytest.raises(MeasurementFailed, match=r"NOT_FOUND: open\(\) failed: /data/local/tmp/nothing.litertlm: No "):
        litertlm.run(s, "/data/local/tmp/nothing.litertlm", spec)
