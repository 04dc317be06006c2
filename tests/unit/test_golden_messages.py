"""Golden protocol messages (tests/data/golden/messages/): a RunRequest with a power configuration, a Facts reply
and a RunReply with power, thermal, op profile, runtime info, the memory baseline and the phase times, as this protocol version
writes them. Each file parses with its record's from_dict and round-trips exactly; the records below write the
same files (`python tests/unit/test_golden_messages.py` rewrites them after a protocol change)."""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path
from typing import Any

import pytest

from edgeprof_agent import PROTOCOL_VERSION
from edgeprof_agent import messages as m

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "messages"

_TRACE = m.PowerTrace(t_s=[0.0, 0.5, 1.0], w=[4.8, 5.2, 5.0])
_SNAP = dict(t_ns=1_000, unix_time=1_700_000_000.0, zones={"cpu-thermal": {"type": "cpu-thermal", "temp_c": 48.5}},
             cpufreq={"cpu0": {"cur_khz": 2_400_000, "governor": "ondemand"}}, governors=["ondemand"],
             rpi={"throttled": {"bits": 0, "raw": "0x0", "now": [], "has_occurred": []}, "temp_c": 48.5},
             max_temp_c=48.5)


def records() -> dict[str, m.Record]:
    """file stem -> the record written to it."""
    run_request = m.RunRequest(
        runtime="onnxruntime", artifact=m.ArtifactRef(path="artifacts/m.onnx", format="onnx", sha256="ab" * 32),
        inputs=[m.InputSpec(name="x", shape=[1, 3, 32, 32])], seed=0, threads=4,
        power=m.PowerConfig(source="rpi5-pmic", rate_hz=100.0), idle_s=2.0, cooldown_c=50.0, profile_ops=True,
        scenario=m.ScenarioSpec(name="sustained", duration_s=300.0, sustained_window_s=30.0), gpu=1)  # protocol 10
    facts = m.Facts(
        hostname="rpi5", arch="aarch64", cpu="Cortex-A76", cores=4, memory_mb=8063.0, os="Debian GNU/Linux 12",
        kernel="6.6.31+rpt-rpi-2712", python="3.11.2", python_executable="/usr/bin/python3",
        board_model="Raspberry Pi 5 Model B Rev 1.0", agent_version="0.1.0", protocol=PROTOCOL_VERSION,
        env={"OMP_NUM_THREADS": "4"}, workdir="/home/pi/edgeprof", disk_free_mb=20480.0,
        runtimes={"onnxruntime": {"version": "1.18.0", "providers": ["CPUExecutionProvider"]}}, gpus=[],
        power_sources=[{"source": "rpi5-pmic", "available": True}])
    power = m.PowerSummary(
        source="rpi5-pmic", rail="EXT5V", total_kind="sum-of-rails", covers="the SoC and board rails",
        method="trapezoid", rate_hz=98.0, rate_hz_requested=100.0, window_s=1.0, t0_ns=10_000, t1_ns=1_000_010_000,
        n_samples=99, n_dropped_nonpositive=0, n_read_errors=0, mean_w=5.0, p95_w=5.2, idle_w=3.0, dynamic_w=2.0,
        energy_j=5.0, energy_mj_per_inference=50.0, inferences_per_joule=20.0, perf_per_watt=20.0,
        rails={"VDD_CORE": 2.1}, trace=_TRACE, idle_trace=_TRACE,
        idle_note="idle_w is measured before the model loads; energy_j is NOT idle-subtracted (MLPerf convention)",
        warnings=[])
    reply = m.RunReply(
        clock="time.perf_counter_ns", samples_ns=[10_000_000, 9_999_999, 2**62 + 1, 1, 10_000_001], t_first_ns=10_000, t_last_ns=1_000_010_000,
        window_s=1.0, stopped_by="min_duration and min_queries met",
        warmup=m.Warmup(iterations=10, duration_s=0.1, steady=True, reason="latency steady"), load_s=0.2,
        first_run_ms=12.0, output_shapes=[m.Output(shape=[1, 10], dtype="float32")],
        memory=m.Memory(rss_before_load=30.0, rss_after_load=60.0, peak_rss=64.0,
                        peak_source="VmHWM after reset at load end",
                        system=m.SystemMemory(before_bytes=1_000_000, peak_bytes=1_500_000,
                                              peak_delta_bytes=500_000, total_bytes=8_000_000, n_samples=10,
                                              method="MemTotal - MemAvailable"),
                        baseline="Python 3.11.2 and the agent's modules; runtimes imported before load: none"),
        runtime=m.RuntimeInfo(runtime="onnxruntime", version="1.18.0", providers=["CPUExecutionProvider"],
                              options={"threads": 4}, providers_available=["CPUExecutionProvider"], device="CPU",
                              gpu={"index": 1, "name": "Tesla T4", "uuid": "GPU-6a5f0e44-21c4-9b3e-1f0d-3c0a4b5e6f71",
                                   "pci_bus_id": "00000000:AF:00.0", "source": "NVML", "kind": "discrete",
                                   "cuda_env": {"CUDA_VISIBLE_DEVICES": "GPU-6a5f0e44-21c4-9b3e-1f0d-3c0a4b5e6f71"}}),
        ops=m.OpsProfileReply(available=True, source="onnxruntime profiling (enable_profiling, separate session)",
                              iterations=5, unit="us", nodes=[["conv", "Conv", "CPUExecutionProvider", 500.0, 5]],
                              run_total_us=600.0, providers=["CPUExecutionProvider"]),
        power=power,
        thermal=m.ThermalReply(before=m.ThermalSnapshot(**_SNAP), after=m.ThermalSnapshot(**_SNAP),
                               cooldown=m.CooldownWait(cooled=True, start_c=55.0, end_c=49.0, waited_s=20.0,
                                                       below_c=50.0)),
        finished_at_unix=1_700_000_001.0,
        scenario=m.ScenarioReply(
            name="sustained", queries=5, samples=5, t0_ns=10_000, issued_ns=[0, 10_000_000, 20_000_000,
                                                                             30_000_000, 40_000_000],
            mode="single stream, back to back; 2 windows of 0.5 s",
            sustained=m.SustainedReply(
                duration_s=1.0, window_s=0.5, read_period_s=0.125, throttle_source="vcgencmd get_throttled",
                power_source="rpi5-pmic", nvml_gpu="NVIDIA H200",
                windows=[m.SustainedWindow(index=0, start_ns=0, end_ns=500_000_000, first=0, count=3, n_readings=4,
                                           zones_c={"thermal_zone0": 48.5}, temp_c=48.5, cpu_mhz=2400.0,
                                           cpu_mhz_min=2400.0, throttled=0, mean_w=5.0, energy_j=2.5, n_power=49,
                                           n_nvml=4, nvml_w=412.5, nvml_temp_c=61.0, nvml_sm_mhz=1980.0,
                                           nvml_graphics_mhz=1980.0, nvml_reasons=0),
                         m.SustainedWindow(index=1, start_ns=500_000_000, end_ns=1_000_000_000, first=3, count=2,
                                           n_readings=4, zones_c={"thermal_zone0": 52.0}, temp_c=52.0,
                                           cpu_mhz=1800.0, cpu_mhz_min=1500.0, throttled=8, mean_w=5.2,
                                           energy_j=2.6, n_power=50, n_nvml=4, nvml_w=700.0, nvml_temp_c=83.5,
                                           nvml_sm_mhz=1410.0, nvml_graphics_mhz=1410.0, nvml_reasons=0x24)])),
        phases=m.RunPhases(cooldown_s=20.1, idle_s=2.0, load_s=0.25, warmup_s=0.1, measure_s=1.02, outputs_s=0.001,
                           profile_s=0.4, total_s=23.95, setup_s=0.05, sessions_s=2.3),
        sessions=[m.SessionRun(index=2, load_s=0.21, warmup=m.Warmup(iterations=10, duration_s=0.1, steady=True,
                                                                    reason="latency steady"),
                               samples_ns=[10_000_001, 2**62 + 3, 1], t_first_ns=2_000_000_000,
                               t_last_ns=3_000_000_000, stopped_by="min_duration and min_queries met")])  # within 11
    generate_request = m.GenerateRequest(  # protocol 11
        runtime="llama.cpp", artifact=m.ArtifactRef(path="artifacts/llama_tiny-q4_0.gguf", format="gguf",
                                                     sha256="cd" * 32),
        precision="q4_0", prompt_tokens=512, gen_tokens=128, depth=0, repetitions=5, warmup=True, seed=0, threads=4,
        use_mmap=True, extra_buffers=False, runtime_options={"n_batch": 512},
        power=m.PowerConfig(source="rpi5-pmic", rate_hz=100.0), idle_s=2.0, cooldown_c=50.0,
        scenario=m.ScenarioSpec(name="server", rate=0.5, seed=0), min_duration_s=60.0, min_queries=100)
    generate_reply = m.GenerateReply(
        clock="time.perf_counter_ns", warnings=[],
        runtime=m.RuntimeInfo(runtime="llama.cpp", version="0.3.36", options={
            "threads": 4, "threads_batch": 4, "threads_source": "option", "n_ctx": 12, "n_ctx_allocated": 256,
            "n_batch": 512, "n_ubatch": 512, "n_batch_used": 12, "use_mmap": True, "extra_buffers": False}),
        precision="q4_0", prompt_tokens=4, gen_tokens=3, depth=5, n_ctx=12, seed=0,
        sampling="greedy argmax, inside each token's time", ids="random, uniform over 3..vocab-1 (random.Random(seed))",
        repetitions=[m.GenRepetition(prefill_ns=2_000_000, token_ns=[50_000, 1_000_000, 1_100_000], depth_fill_ns=900_000,
                                     t_prefill_start_ns=10_000_000, t_prefill_end_ns=12_000_000,
                                     t_first_token_end_ns=12_050_010, t_end_ns=14_150_030, tokens=[17, 2047, 3]),
                     m.GenRepetition(prefill_ns=2_100_000, token_ns=[40_000, 1_050_000, 2**40], depth_fill_ns=910_000,
                                     t_prefill_start_ns=20_000_000, t_prefill_end_ns=22_100_000,
                                     t_first_token_end_ns=22_140_010, t_end_ns=22_140_030 + 1_050_000 + 2**40,
                                     tokens=[17, 2047, 3])],
        warmup=m.GenWarmup(prefill_ns=2_500_000, token_ns=[60_000, 1_200_000]), load_ns=6_000_000,
        memory=m.GenMemory(rss_before_load_bytes=44_000_000, rss_after_load_bytes=50_000_000,
                           peak_rss_bytes=52_000_000, peak_source="VmHWM (/proc/self/status), reset just before the load",
                           gpu_reason="not read: llama.cpp ran on the CPU"),
        kv_cache=m.KvCache(bytes=524_288, per_token_bytes=2048, n_ctx=256, dtype="f16", bytes_per_element=2, layers=4,
                           kv_heads=4, head_dim=32, how="2 x layers x KV heads x key length x llama_n_ctx (256) x 2 "
                           "bytes: llama.cpp's default f16 K and V"),
        power=power, power_readings=m.PowerReadings(t_ns=[9_000_000, 19_000_000, 29_000_000], w=[5.0, 5.25, 5.5],
                                                    source="rpi5-pmic", method="trapezoid", rate_hz=100.0),
        thermal=m.ThermalReply(before=m.ThermalSnapshot(**_SNAP), after=m.ThermalSnapshot(**_SNAP)),
        phases=m.RunPhases(cooldown_s=20.1, idle_s=2.0, load_s=0.006, measure_s=0.03, total_s=22.2, setup_s=0.05),
        finished_at_unix=1_700_000_002.0)
    return {"run_request": run_request, "facts": facts, "run_reply": reply, "generate_request": generate_request,
            "generate_reply": generate_reply}


def _text(rec: m.Record) -> str:
    return json.dumps(rec.to_dict(), indent=2, sort_keys=True) + "\n"


CLASSES: dict[str, type[m.Record]] = {"run_request": m.RunRequest, "facts": m.Facts, "run_reply": m.RunReply,
                                      "generate_request": m.GenerateRequest, "generate_reply": m.GenerateReply}


@pytest.mark.parametrize("stem", sorted(CLASSES))
def test_golden_message_parses_and_round_trips(stem: str) -> None:
    raw: Any = json.loads((GOLDEN / f"v{PROTOCOL_VERSION}" / f"{stem}.json").read_text())
    rec = CLASSES[stem].from_dict(raw)
    assert rec.to_dict() == raw
    assert CLASSES[stem].from_dict(json.loads(json.dumps(rec.to_dict()))) == rec


@pytest.mark.parametrize("stem", sorted(CLASSES))
def test_the_records_write_the_golden_files(stem: str) -> None:
    path = GOLDEN / f"v{PROTOCOL_VERSION}" / f"{stem}.json"
    assert path.read_text() == _text(records()[stem]), f"{path} is stale: run python {__file__}"


def test_the_golden_reply_carries_typed_payloads() -> None:
    reply = m.RunReply.from_dict(json.loads((GOLDEN / f"v{PROTOCOL_VERSION}" / "run_reply.json").read_text()))
    assert isinstance(reply.power, m.PowerSummary) and isinstance(reply.power.trace, m.PowerTrace)
    assert reply.thermal is not None and isinstance(reply.thermal.before, m.ThermalSnapshot)
    assert isinstance(reply.thermal.cooldown, m.CooldownWait) and reply.thermal.cooldown.cooled is True
    assert isinstance(reply.ops, m.OpsProfileReply) and isinstance(reply.runtime, m.RuntimeInfo)
    assert reply.memory.baseline and isinstance(reply.memory.system, m.SystemMemory)
    assert isinstance(reply.phases, m.RunPhases) and reply.phases.accuracy_s is None  # protocol 6
    sus = reply.scenario.sustained if reply.scenario is not None else None  # protocol 7
    assert isinstance(sus, m.SustainedReply) and all(isinstance(w, m.SustainedWindow) for w in sus.windows)
    assert [w.count for w in sus.windows] == [3, 2] and sus.windows[1].throttled == 8
    assert sus.nvml_gpu == "NVIDIA H200" and sus.windows[1].nvml_reasons == 0x24  # protocol 8
    assert [w.nvml_sm_mhz for w in sus.windows] == [1980.0, 1410.0]


def test_the_golden_reply_s_samples_are_packed_and_exact() -> None:
    """Protocol 10 sends the samples as little-endian int64, their bytes regrouped by position (every value's
    byte 0, then byte 1, ...), zlib-compressed, in base64: every value back as it was, in order."""
    raw = json.loads((GOLDEN / f"v{PROTOCOL_VERSION}" / "run_reply.json").read_text())
    packed = raw["samples_ns"]
    assert packed == {"dtype": "<i8", "codec": "shuffle8+zlib", "n": 5, "b64": packed["b64"]}
    planes = zlib.decompress(base64.b64decode(packed["b64"]))
    assert bytes(planes[j * 5 + 2] for j in range(8)) == (2**62 + 1).to_bytes(8, "little")  # value 2, by hand
    reply = m.RunReply.from_dict(raw)
    assert reply.samples_ns == [10_000_000, 9_999_999, 2**62 + 1, 1, 10_000_001]
    assert reply.phases is not None and reply.phases.setup_s == 0.05


def test_the_golden_generate_reply_keeps_every_token_time_packed_and_exact() -> None:
    """Protocol 11: a generate reply's per-token times and generated ids are packed as a run's samples are (every
    value back as it was, 2**40 included), and the power readings' times too; the phase edges stay plain."""
    raw = json.loads((GOLDEN / f"v{PROTOCOL_VERSION}" / "generate_reply.json").read_text())
    rep = raw["repetitions"][1]
    assert set(rep["token_ns"]) == {"dtype", "codec", "n", "b64"} and rep["token_ns"]["n"] == 3
    assert set(raw["power_readings"]["t_ns"]) == {"dtype", "codec", "n", "b64"}
    reply = m.GenerateReply.from_dict(raw)
    assert reply.repetitions[1].token_ns == [40_000, 1_050_000, 2**40] and reply.repetitions[0].tokens == [17, 2047, 3]
    assert reply.power_readings is not None and reply.power_readings.t_ns == [9_000_000, 19_000_000, 29_000_000]
    assert isinstance(reply.runtime, m.RuntimeInfo) and reply.runtime.options["extra_buffers"] is False
    assert isinstance(reply.kv_cache, m.KvCache) and reply.kv_cache.bytes == 2 * 4 * 4 * 32 * 256 * 2
    req = m.GenerateRequest.from_dict(json.loads((GOLDEN / f"v{PROTOCOL_VERSION}" / "generate_request.json").read_text()))
    assert (req.prompt_tokens, req.gen_tokens, req.extra_buffers, req.use_mmap) == (512, 128, False, True)


def test_protocol_10_messages_still_parse_and_know_no_generate() -> None:
    """A version 10 run request and reply parse as they are (protocol 11 added an op and, within 11, the additive
    run.sessions, run reply.sessions and phases.sessions_s: absent, they read as one session)."""
    for stem in ("run_request", "run_reply", "facts"):
        raw = json.loads((GOLDEN / "v10" / f"{stem}.json").read_text())
        out = CLASSES[stem].from_dict(raw).to_dict()
        if stem == "run_request":
            assert out.pop("sessions") == 1
        if stem == "run_reply":
            assert out.pop("sessions") is None and out["phases"].pop("sessions_s") is None
        assert out == raw
    assert not (GOLDEN / "v10" / "generate_reply.json").exists()


def test_protocol_9_messages_still_parse_with_the_samples_packed_uncompressed() -> None:
    """A version 9 reply packs the samples as plain little-endian int64 in base64: they parse exactly."""
    raw = json.loads((GOLDEN / "v9" / "run_reply.json").read_text())
    assert set(raw["samples_ns"]) == {"dtype", "b64"}
    reply = m.RunReply.from_dict(raw)
    assert reply.samples_ns == [10_000_000, 9_999_999, 2**62 + 1, 1, 10_000_001]


def test_protocol_8_messages_still_parse_with_the_samples_as_a_list() -> None:
    """A version 8 reply sends the samples as a JSON list and no setup time: it parses, and writes them packed."""
    raw = json.loads((GOLDEN / "v8" / "run_reply.json").read_text())
    assert isinstance(raw["samples_ns"], list)
    reply = m.RunReply.from_dict(raw)
    assert reply.samples_ns == raw["samples_ns"] and reply.phases is not None and reply.phases.setup_s is None
    assert m.RunReply.from_dict(json.loads(json.dumps(reply.to_dict()))).samples_ns == raw["samples_ns"]


def test_protocol_7_messages_still_parse_without_the_nvml_fields() -> None:
    """A version 7 sustained reply has no NVML per window: it parses with none."""
    reply = m.RunReply.from_dict(json.loads((GOLDEN / "v7" / "run_reply.json").read_text()))
    sus = reply.scenario.sustained if reply.scenario is not None else None
    assert sus is not None and sus.nvml_gpu is None
    assert [(w.n_nvml, w.nvml_w, w.nvml_reasons) for w in sus.windows] == [(0, None, None)] * 2


def test_protocol_6_messages_still_parse_without_the_sustained_fields() -> None:
    """A version 6 reply and request have no sustained scenario: they parse with none."""
    reply = m.RunReply.from_dict(json.loads((GOLDEN / "v6" / "run_reply.json").read_text()))
    assert reply.scenario is None and reply.phases is not None
    req = m.RunRequest.from_dict(json.loads((GOLDEN / "v6" / "run_request.json").read_text()))
    assert req.scenario is None


def test_older_golden_messages_still_parse_as_far_as_they_go() -> None:
    """A version 5 reply (no phases) parses with phases None: the host stores its own phases and no device's."""
    reply = m.RunReply.from_dict(json.loads((GOLDEN / "v5" / "run_reply.json").read_text()))
    assert reply.phases is None and reply.load_s == 0.2


def test_the_power_configuration_is_checked_by_its_record() -> None:
    req = json.loads((GOLDEN / f"v{PROTOCOL_VERSION}" / "run_request.json").read_text())
    assert isinstance(m.RunRequest.from_dict(req).power, m.PowerConfig)
    for bad, named in (({"source": "solar"}, "run.power.source"), ({"rate_hz": 0}, "run.power.rate_hz"),
                       ({"unit": "kW"}, "run.power.unit"), ({"volts": 5}, "run.power"),
                       ({"rate_hz": "fast"}, "run.power.rate_hz")):
        with pytest.raises(m.MessageError) as e:
            m.RunRequest.from_dict({**req, "power": bad})
        assert e.value.where == named, bad


def test_the_result_sections_are_composed_from_the_wire_records_by_fields() -> None:
    """The stored power, thermal and memory sections of a reply are what the JSON route gave (same keys), with
    the memory baseline stored."""
    from edgeprof.records import Memory, Power, Thermal
    from edgeprof.run.assemble import _memory, _power, _thermal

    reply = m.RunReply.from_dict(json.loads((GOLDEN / f"v{PROTOCOL_VERSION}" / "run_reply.json").read_text()))
    assert reply.power is not None and reply.thermal is not None
    assert _power(reply, None, None) == Power.from_dict(reply.power.to_dict())
    assert _thermal(reply.thermal) == Thermal.from_dict(reply.thermal.to_dict())
    mem = _memory(reply, None)
    assert mem == Memory.from_dict(reply.memory.to_dict())
    assert mem.baseline == reply.memory.baseline and mem.to_dict()["baseline"].startswith("Python 3.11.2")
    assert mem.system is not None and mem.system.peak_delta_bytes == 500_000


def test_results_show_says_what_the_baseline_holds(capsys: pytest.CaptureFixture[str]) -> None:
    from edgeprof.cli.ui import render_memory_extra
    from edgeprof.records import Memory

    render_memory_extra(Memory(baseline="Python 3.6.9 and the agent's modules; runtimes imported before load: none"))
    assert "RSS before load holds Python 3.6.9 and the agent's modules" in capsys.readouterr().out
    render_memory_extra(Memory())  # a result from before protocol 5: nothing said
    assert "RSS before load" not in capsys.readouterr().out


if __name__ == "__main__":
    out = GOLDEN / f"v{PROTOCOL_VERSION}"
    out.mkdir(parents=True, exist_ok=True)
    for stem, rec in records().items():
        (out / f"{stem}.json").write_text(_text(rec))
        print(f"wrote {out / stem}.json")
