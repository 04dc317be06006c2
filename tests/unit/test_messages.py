"""The protocol records host and agent share (edgeprof_agent/messages.py): every record round-trips, a missing
or unknown field or a wrong type is an error naming the field, and the module stays Python 3.6-safe (checked with
vermin and by importing it under a real Python 3.6 when one is installed)."""

import base64
import copy
import glob
import inspect
import json
import os
import pwd
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from edgeprof_agent import messages as m
from edgeprof_agent.vocab import RUN_DEFAULTS

AGENTS = Path(m.__file__).resolve().parents[1]

WARMUP = {"iterations": 40, "duration_s": 0.5, "steady": True, "reason": "latency steady", "last_ms": 0.2}
SYSTEM_MEMORY = {"before_bytes": 900, "peak_bytes": 950, "peak_delta_bytes": 50, "total_bytes": 4000,
                 "n_samples": 12, "method": "MemTotal - MemAvailable"}
MEMORY = {"rss_before_load": 30.5, "rss_after_load": 41.0, "peak_rss": 44.0, "peak_source": "VmHWM",
          "system": SYSTEM_MEMORY, "gpu_process_bytes": 1024,
          "baseline": "Python 3.6.9 and the agent's modules; runtimes imported before load: none"}
RUNTIME = {"runtime": "onnxruntime", "version": "1.10.0", "providers": ["CPUExecutionProvider"],
           "options": {"graph_optimization_level": "all"}, "providers_available": ["CPUExecutionProvider"],
           "device": "CPU", "module": "onnxruntime",
           "gpu": {"index": 1, "name": "Tesla T4", "uuid": "GPU-6a5f0e44-21c4-9b3e-1f0d-3c0a4b5e6f71",
                   "pci_bus_id": "00000000:AF:00.0", "source": "NVML", "kind": "discrete",
                   "cuda_env": {"CUDA_VISIBLE_DEVICES": "GPU-6a5f0e44-21c4-9b3e-1f0d-3c0a4b5e6f71"}}}
OPS = {"available": True, "source": "onnxruntime profiling", "reason": "none", "iterations": 5, "unit": "us",
       "nodes": [["conv1", "Conv", "CPUExecutionProvider", 120.0, 5]], "run_total_us": 150.0,
       "op_counts": {"Conv": 1}, "providers": ["CPUExecutionProvider"]}
TRACE = {"t_s": [0.0, 0.02], "w": [3.1, 3.3]}
POWER = {"source": "jetson-ina3221", "rail": "VDD_IN", "total_kind": "rail", "covers": "the whole board",
         "method": "trapezoid", "rate_hz": 49.5, "rate_hz_requested": 50.0, "window_s": 2.0, "t0_ns": 10,
         "t1_ns": 2000000010, "n_samples": 100, "n_dropped_nonpositive": 0, "n_read_errors": 0, "mean_w": 3.2,
         "p95_w": 3.5, "idle_w": 1.2, "dynamic_w": 2.0, "energy_j": 6.4, "energy_mj_per_inference": 64.0,
         "inferences_per_joule": 15.6, "perf_per_watt": 15.6, "rails": {"VDD_CPU": 1.0}, "trace": TRACE,
         "idle_trace": TRACE, "idle_note": "idle_w is measured before the model loads", "note": "n",
         "warnings": ["w"]}
SNAPSHOT = {"t_ns": 5, "unix_time": 1700000000.0, "zones": {"cpu-thermal": {"type": "cpu", "temp_c": 45.0}},
            "cpufreq": {"cpu0": {"cur_khz": 1500000, "governor": "ondemand"}}, "governors": ["ondemand"],
            "gpu_freq": {"name": "17000000.gpu", "cur_hz": 921600000}, "emc_hz": 1600000000, "fan": {"pwm1": 128},
            "nvpmodel": {"name": "MAXN", "id": 0}, "jetson_clocks": {"locked": False, "how": "inferred"},
            "rpi": {"throttled": {"bits": 0, "raw": "0x0", "now": [], "has_occurred": []}},
            "nvml": [{"index": 0, "temp_c": 40}], "max_temp_c": 45.0}
COOLDOWN = {"cooled": True, "start_c": 60.0, "end_c": 44.5, "waited_s": 12.0, "below_c": 45.0}
THERMAL = {"before": SNAPSHOT, "after": SNAPSHOT, "cooldown": COOLDOWN}
POWER_CONFIG = {"source": "command", "rail": "VDD_IN", "rate_hz": 100.0, "command": "meter --watts", "unit": "mW",
                "covers": "the wall socket", "device": 1, "interval_s": 1.0, "hwmon": "ina3221", "timeout_s": 5.0}
PHASES = {"cooldown_s": 12.0, "idle_s": 2.0, "load_s": 0.3, "streams_s": 0.1, "warmup_s": 0.5, "measure_s": 3.95,
          "outputs_s": 0.001, "profile_s": 0.2, "accuracy_s": 0.5, "total_s": 19.65, "setup_s": 0.05, "sessions_s": 2.5}
SESSION_RUN = {"index": 2, "load_s": 0.02, "warmup": WARMUP, "samples_ns": m.PACKED_INT64.encode([110, 90]),
               "t_first_ns": 500, "t_last_ns": 700, "stopped_by": "min_duration and min_queries met"}
GEN_REP = {"prefill_ns": 1000, "token_ns": m.PACKED_INT64.encode([10, 20]), "depth_fill_ns": 0,
           "t_prefill_start_ns": 5, "t_prefill_end_ns": 1005, "t_first_token_end_ns": 1015, "t_end_ns": 1035,
           "tokens": m.PACKED_INT64.encode([7, 8])}
GEN_GPU_MEMORY = {"after_load_bytes": 300, "end_bytes": 316, "gpu": 1, "source": "NVML"}
GEN_MEMORY = {"rss_before_load_bytes": 1000, "rss_after_load_bytes": 2000, "peak_rss_bytes": 2500,
              "peak_source": "VmHWM", "gpu": GEN_GPU_MEMORY, "gpu_reason": None}
KV_CACHE = {"bytes": 3072, "per_token_bytes": 512, "n_ctx": 6, "dtype": "float32", "bytes_per_element": 4,
            "layers": 2, "kv_heads": 2, "head_dim": 16, "how": "present.0.key"}
READINGS = {"t_ns": m.PACKED_INT64.encode([0, 1040]), "w": [3.2, 3.3], "source": "hwmon", "method": "trapezoid",
            "rate_hz": 100.0}
# one complete example per record (every field set, so to_dict gives back exactly this)
SAMPLES = {
    m.HelloRequest: {"protocol": 2, "host": "edgeprof"},
    m.HelloReply: {"agent_version": "0.1.0", "protocol": 2, "python": "3.6.9", "pid": 42, "workdir": "/w",
                   "sysfs_root": "/"},
    m.FactsRequest: {"runtimes": False},
    m.L4TRelease: {"release": "32.7.1", "raw": "# R32 (release), REVISION: 7.1"},
    m.RuntimeFact: {"version": "1.10.0", "providers": ["CPUExecutionProvider"]},
    m.PowerSourceFact: {"source": "jetson-ina3221", "available": True, "rail": "VDD_IN", "rails": ["VDD_IN", "VDD_CPU_GPU_CV"],
                        "total_kind": "board", "covers": "the whole module", "method": "sysfs", "max_rate_hz": 200.0,
                        "reason": None, "detail": {"bus": "i2c-1"}},
    m.Facts: {"hostname": "nano", "arch": "aarch64", "cpu": "ARMv8", "cores": 4, "memory_mb": 3964.1,
              "os": "Ubuntu 18.04.6 LTS", "kernel": "4.9.253-tegra", "python": "3.6.9",
              "python_executable": "/usr/bin/python3", "l4t": {"release": "32.7.1", "raw": "# R32"},
              "board_model": "NVIDIA Jetson Nano Developer Kit", "agent_version": "0.1.0", "protocol": 2,
              "env": {"OMP_NUM_THREADS": "4"}, "workdir": "/w", "disk_free_mb": 1000.5,
              "runtimes": {"onnxruntime": {"version": "1.10.0", "providers": ["CPUExecutionProvider"]}},
              "gpus": [{"name": "NVIDIA Tegra", "kind": "integrated"}], "gpus_error": "none",
              "power_sources": [{"name": "jetson-ina3221"}]},
    m.ArtifactRef: {"path": "/w/artifacts/a.onnx", "format": "onnx", "sha256": "ab" * 32},
    m.InputSpec: {"name": "x", "shape": [1, 3, 8, 8], "dtype": "float32", "low": -1.0, "high": 1.0,
                  "value": 0.5, "data": "x"},
    m.RunRequest: {"runtime": "onnxruntime", "artifact": {"path": "/w/a.onnx", "format": "onnx", "sha256": "ab"},
                   "inputs": [{"name": "x", "shape": [1, 4], "dtype": "int64", "low": 0, "high": 10,
                               "value": None, "data": None}],
                   "input_data": {"path": "/w/artifacts/d.npz", "format": "npz", "sha256": "cd" * 32},
                   "seed": 3, "batch": 2, "threads": 4, "runtime_options": {"graph_optimization_level": "all"},
                   "warmup_s": 1.0, "min_duration_s": 2.0, "min_queries": 10, "max_queries": 1000, "sessions": 3,
                   "power": POWER_CONFIG, "idle_s": 0.0, "cooldown_c": 45.0,
                   "cooldown_timeout_s": 60.0, "return_outputs": "base64", "profile_ops": True,
                   "profile_iterations": 5, "lease_token": "t0k",
                   "scenario": {"name": "server", "rate": 40.0, "samples_per_query": 8, "streams": 1,
                                "latency_bound_ms": 50.0, "seed": 7, "duration_s": None,
                                "sustained_window_s": 60.0},
                   "accuracy": {"data": {"path": "/w/artifacts/v.npz", "format": "npz", "sha256": "ef" * 32},
                                "samples": 10, "inputs": ["x"], "per_inference": 2, "stacked": True,
                                "topk_output": 0, "k": 5, "expected": [1]}, "gpu": 1},
    m.AccuracySpec: {"data": {"path": "v.npz", "format": "npz", "sha256": "ef"}, "samples": 3, "inputs": ["x", "y"],
                     "per_inference": 1, "stacked": False, "topk_output": None, "k": 5, "expected": [0]},
    m.OutputErrors: {"output": 0, "max_abs": [0.5, None], "mean_abs": [0.1, None], "mse": [0.02, None],
                     "cosine": [0.99, None]},
    m.AccuracyReply: {"samples": 2, "inferences": 1, "padded": 0, "duration_s": 0.01, "classes": 10,
                      "topk": [[3, 1, 2, 0, 9], []], "errors": [{"output": 1, "max_abs": [0.5, 0.1],
                                                                 "mean_abs": [0.1, 0.05], "mse": [0.02, 0.01],
                                                                 "cosine": [0.99, 1.0]}],
                      "nonfinite": 1, "error": None},
    m.ScenarioSpec: {"name": "fixed-rate", "rate": 30.0, "samples_per_query": 8, "streams": 1,
                     "latency_bound_ms": None, "seed": 0, "duration_s": None, "sustained_window_s": 60.0},
    m.ScenarioReply: {"name": "fixed-rate", "rate": 30.0, "samples_per_query": 1, "streams": 1, "queries": 2,
                      "samples": 2, "t0_ns": 5, "scheduled_ns": m.PACKED_INT64.encode([0, 33333333]),
                      "issued_ns": m.PACKED_INT64.encode([10, 33333400]),
                      "misses": 0, "mode": "one issuing thread", "seed": None, "sustained": None},
    m.SustainedWindow: {"index": 0, "start_ns": 0, "end_ns": 2000000000, "first": 0, "count": 100, "n_readings": 4,
                        "zones_c": {"thermal_zone0": 55.5}, "temp_c": 55.5, "cpu_mhz": 2400.0, "cpu_mhz_min": 2400.0,
                        "gpu_mhz": None, "throttled": None, "mean_w": 5.0, "energy_j": 10.0, "n_power": 200,
                        "n_nvml": 4, "nvml_w": 250.5, "nvml_temp_c": 71.0, "nvml_sm_mhz": 1755.0,
                        "nvml_graphics_mhz": 1755.0, "nvml_reasons": 0x20},
    m.SustainedReply: {"duration_s": 12.0, "window_s": 2.0, "read_period_s": 0.5, "telemetry_errors": 0,
                       "throttle_source": None, "power_source": None, "windows": [], "nvml_gpu": "Tesla T4"},
    m.RunWarning: {"code": "thermal_error", "message": "thermal snapshot failed"},
    m.Warmup: WARMUP,
    m.Memory: MEMORY,
    m.SystemMemory: SYSTEM_MEMORY,
    m.RuntimeInfo: RUNTIME,
    m.OpsProfileReply: OPS,
    m.PowerTrace: TRACE,
    m.PowerSummary: POWER,
    m.ThermalZone: {"type": "PMIC-Die", "temp_c": 100.0, "ignored": "fixed value on this board, not a real temperature"},
    m.CpuFreq: {"governor": "schedutil", "cur_khz": 1479000, "min_khz": 102000, "max_khz": 1479000,
                "hw_max_khz": 1479000},
    m.GpuFreq: {"name": "57000000.gpu", "cur_hz": 921600000, "min_hz": 76800000, "max_hz": 921600000},
    m.FanState: {"target_pwm": 255, "cur_pwm": 250},
    m.NvpModel: {"name": "MAXN", "id": None},
    m.JetsonClocks: {"locked": True, "how": "inferred"},
    m.RpiThrottled: {"bits": 0x50005, "raw": "0x50005", "now": ["under-voltage", "throttled"],
                     "has_occurred": ["under-voltage", "throttled"]},
    m.RpiState: {"throttled": {"bits": 0, "raw": "0x0", "now": [], "has_occurred": []}, "temp_c": 52.7,
                 "arm_hz": 2400000000},
    m.NvmlGpu: {"index": 0, "name": "NVIDIA A2", "temp_c": 41.0, "sm_mhz": 1770, "mem_mhz": 6251, "power_w": 21.5,
                "clock_reasons_bits": 1, "clock_reasons": ["GpuIdle"]},
    m.ThermalSnapshot: SNAPSHOT,
    m.CooldownWait: COOLDOWN,
    m.ThermalReply: THERMAL,
    m.PowerConfig: POWER_CONFIG,
    m.Output: {"shape": [1, 2], "dtype": "float32", "b64": "AAAAAAAAAAA=", "data": [0.0, 0.0]},
    m.RunReply: {"clock": "monotonic", "warnings": [{"code": "c", "message": "m"}],
                 "samples_ns": m.PACKED_INT64.encode([100, 120]),  # protocol 10
                 "t_first_ns": 10, "t_last_ns": 400, "window_s": 3.9e-07, "stopped_by": "min_duration and min_queries met",
                 "warmup": WARMUP, "load_s": 0.01, "first_run_ms": 0.5,
                 "output_shapes": [{"shape": [1], "dtype": "float32"}], "memory": MEMORY,
                 "runtime": RUNTIME,
                 "outputs": [{"shape": [1], "dtype": "float32", "data": [1.5]}],
                 "ops": OPS, "power": POWER, "power_reason": "ok",
                 "thermal": THERMAL, "finished_at_unix": 1700000000.5,
                 "scenario": {"name": "offline", "rate": None, "samples_per_query": 1, "streams": 2, "queries": 2,
                              "samples": 2, "t0_ns": 10, "scheduled_ns": m.PACKED_INT64.encode([]),
                              "issued_ns": m.PACKED_INT64.encode([0, 3]), "misses": None,
                              "mode": "2 threads", "seed": None, "sustained": None},
                 "accuracy": {"samples": 1, "inferences": 1, "padded": 1, "duration_s": 0.5, "classes": 3,
                              "topk": [[2, 0, 1]], "errors": [], "nonfinite": 0, "error": None},
                 "phases": PHASES, "sessions": [SESSION_RUN]},
    m.RunPhases: PHASES,
    m.SessionRun: SESSION_RUN,
    m.GenerateRequest: {"runtime": "llama.cpp", "artifact": {"path": "/w/m.gguf", "format": "gguf", "sha256": "ab"},
                        "precision": "q4_0", "prompt_tokens": 64, "gen_tokens": 16, "depth": 128, "repetitions": 3,
                        "warmup": False, "seed": 2, "threads": 4, "use_mmap": False, "extra_buffers": True,
                        "runtime_options": {"n_batch": 256}, "power": POWER_CONFIG, "idle_s": 1.0,
                        "cooldown_c": 45.0, "cooldown_timeout_s": 60.0, "lease_token": "t0k",
                        "scenario": {"name": "server", "rate": 2.5, "samples_per_query": 8, "streams": 1,
                                     "latency_bound_ms": None, "seed": 3, "duration_s": None,
                                     "sustained_window_s": 60.0},
                        "min_duration_s": 5.0, "min_queries": 20, "max_queries": None, "gpu": 1},
    m.GenRepetition: GEN_REP,
    m.GenWarmup: {"prefill_ns": 900, "token_ns": [10, 20]},
    m.GenTokenWindow: {"first": 0, "count": 12},
    m.GenMemory: GEN_MEMORY,
    m.GenGpuMemory: GEN_GPU_MEMORY,
    m.KvCache: KV_CACHE,
    m.PowerReadings: READINGS,
    m.GenerateReply: {"clock": "time.perf_counter_ns", "warnings": [{"code": "c", "message": "m"}],
                      "runtime": RUNTIME, "precision": "int4", "prompt_tokens": 4, "gen_tokens": 2, "depth": 0,
                      "n_ctx": 6, "seed": 0, "sampling": "greedy", "ids": "random", "repetitions": [GEN_REP],
                      "warmup": {"prefill_ns": 900, "token_ns": [10, 20]}, "load_ns": 5000, "memory": GEN_MEMORY,
                      "kv_cache": KV_CACHE, "power": POWER, "power_readings": READINGS, "power_reason": "ok",
                      "thermal": THERMAL, "phases": PHASES, "finished_at_unix": 1700000000.5,
                      "scenario": {"name": "sustained", "rate": None, "samples_per_query": 1, "streams": 1,
                                   "queries": 1, "samples": 1, "t0_ns": 10,
                                   "scheduled_ns": m.PACKED_INT64.encode([]),
                                   "issued_ns": m.PACKED_INT64.encode([0]), "misses": None,
                                   "mode": "requests back to back", "seed": None, "sustained": None},
                      "token_windows": [{"first": 0, "count": 2}]},
    m.Empty: {},
    m.PingRequest: {},
    m.PingReply: {"pong": True},
    m.LeaseRequest: {"holder": {"controller": "ci", "purpose": "sweep"}, "ttl_s": 30.0},
    m.LeaseReply: {"acquired": True, "token": "t", "holder": {"controller": "ci"}, "renewed": True,
                   "holder_text": "ci"},
    m.RenewRequest: {"token": "t"},
    m.RenewReply: {"held": True, "token": "t", "age_s": 3.5, "reason": "fine"},
    m.ReleaseRequest: {},
    m.ReleaseReply: {"released": True},
    m.LeaseInfoRequest: {},
    m.LeaseInfoReply: {"holder": {"controller": "ci"}, "text": "ci since 10:00"},
    m.Sha256Request: {"path": "artifacts/a.onnx"},
    m.Sha256Reply: {"sha256": "ab" * 32},
    m.ShutdownRequest: {},
    m.ShutdownReply: {"bye": True},
    m.ErrorReply: {"type": "load_failed", "message": "bad model", "hint": "check it", "detail": "tb",
                   "protocol": 2, "holder": "sw-1 from ci since 2026-12-05 00:00:00"},
    m.ProgressEvent: {"event": "progress", "phase": "measure", "elapsed_s": 1.5, "total_s": 10.0, "n": 100,
                      "min_queries": 100, "last_ms": 0.5, "runtime": "null", "below_c": 45.0, "waited_s": 1.0,
                      "end_c": 44.0, "total": 1000},
    m.LogEvent: {"event": "log", "message": "hello", "level": "info"},
}


def _records():
    return [c for _, c in inspect.getmembers(m, inspect.isclass) if issubclass(c, m.Record) and c is not m.Record]


def test_every_record_has_a_sample_and_every_op_has_its_records():
    assert set(_records()) == set(SAMPLES)
    assert set(m.OPS) == {"hello", "facts", "run", "generate", "ping", "lease", "renew", "release", "lease_info",
                          "sha256", "shutdown"}
    for req, reply in m.OPS.values():
        assert req in SAMPLES and reply in SAMPLES


@pytest.mark.parametrize("cls", list(SAMPLES), ids=lambda c: c.__name__)
def test_round_trip(cls):
    data = SAMPLES[cls]
    rec = cls.from_dict(copy.deepcopy(data))
    assert rec.to_dict() == data
    again = cls.from_dict(json.loads(json.dumps(rec.to_dict())))
    assert again == rec and again.to_dict() == data
    assert cls(**copy.deepcopy(data)) == rec  # the constructor and from_dict agree
    assert not hasattr(rec, "__dict__")  # __slots__: a typo'd attribute cannot be set silently
    with pytest.raises(AttributeError):
        rec.no_such_field = 1


@pytest.mark.parametrize("cls", list(SAMPLES), ids=lambda c: c.__name__)
def test_missing_and_unknown_fields_are_named(cls):
    data = SAMPLES[cls]
    with pytest.raises(m.MessageError) as e:
        cls.from_dict(dict(data, surprise=1))
    assert str(e.value) == f"{cls.NAME}: unknown field 'surprise'"
    with pytest.raises(m.MessageError, match="unknown field 'surprise'"):
        cls(**dict(data, surprise=1))
    for f in cls.FIELDS:
        if f.default is m.REQUIRED:
            partial = {k: v for k, v in data.items() if k != f.name}
            with pytest.raises(m.MessageError) as e:
                cls.from_dict(partial)
            assert str(e.value) == f"{cls.NAME}: missing field {f.name!r}"


def test_wrong_types_are_named_with_their_path():
    cases = [
        (m.RunRequest, {"runtime": "null", "seed": "0"}, "run.seed: expected an integer, got string"),
        (m.RunRequest, {"runtime": "null", "min_queries": True}, "run.min_queries: expected an integer, got boolean"),
        (m.RunRequest, {"runtime": "null", "inputs": [{"name": "x", "shape": "1x4"}]},
         "run.inputs[0].shape: expected a list, got string"),
        (m.RunRequest, {"runtime": None}, "run.runtime: must not be null"),
        (m.RunRequest, {"runtime": "null", "inputs": [{"name": "x", "shape": [1, "N"]}]},
         "run.inputs[0].shape[1]: expected an integer, got string"),
        (m.RunReply, dict(SAMPLES[m.RunReply], samples_ns=[100, 1.5]),
         "run reply.samples_ns[1]: expected an integer, got number"),
        (m.RunReply, dict(SAMPLES[m.RunReply], samples_ns=[100, True]),
         "run reply.samples_ns[1]: expected an integer, got boolean"),
        (m.RunReply, dict(SAMPLES[m.RunReply], samples_ns={"dtype": "<i4", "b64": "ZAAAAA=="}),
         "run reply.samples_ns.dtype: expected '<i8', got '<i4'"),
        (m.RunReply, dict(SAMPLES[m.RunReply], samples_ns={"dtype": "<i8", "b64": "ZAAAAA=="}),
         "run reply.samples_ns.b64: 4 bytes is not a whole number of int64 values"),
        (m.RunReply, dict(SAMPLES[m.RunReply], samples_ns={"dtype": "<i8", "b64": "not base64!"}),
         "run reply.samples_ns.b64: not valid base64"),
        (m.RunReply, dict(SAMPLES[m.RunReply], samples_ns={"dtype": "<i8", "b64": 5}),
         "run reply.samples_ns.b64: expected a string, got integer"),
        (m.RunReply, dict(SAMPLES[m.RunReply], samples_ns={"b64": ""}),
         "run reply.samples_ns: expected an object {dtype, b64} or {dtype, codec, n, b64}, got keys ['b64']"),
        (m.RunReply, dict(SAMPLES[m.RunReply], samples_ns={"dtype": "<i8", "codec": "gzip", "n": 0, "b64": ""}),
         "run reply.samples_ns.codec: expected 'shuffle8+zlib', got 'gzip'"),
        (m.RunReply, dict(SAMPLES[m.RunReply], samples_ns={"dtype": "<i8", "codec": "shuffle8+zlib", "n": -1,
                                                           "b64": ""}),
         "run reply.samples_ns.n: expected a count from 0 to 268435456, got -1"),
        (m.RunReply, dict(SAMPLES[m.RunReply], samples_ns={"dtype": "<i8", "codec": "shuffle8+zlib", "n": 1,
                                                           "b64": "bm90IHpsaWI="}),
         "run reply.samples_ns.b64: not valid zlib data"),
        # a zlib bomb (10 MB of zeros) that says it holds 2 values: inflated no further than 16 bytes
        (m.RunReply, dict(SAMPLES[m.RunReply], samples_ns={"dtype": "<i8", "codec": "shuffle8+zlib", "n": 2,
                                                           "b64": base64.b64encode(zlib.compress(bytes(10**7))
                                                                                   ).decode()}),
         "run reply.samples_ns.b64: does not hold exactly n int64 values"),
        (m.RunReply, dict(SAMPLES[m.RunReply], warmup=dict(WARMUP, steady="yes")),
         "run reply.warmup.steady: expected a boolean, got string"),
        (m.RunReply, dict(SAMPLES[m.RunReply], memory=[]), "run reply.memory: expected an object, got list"),
        (m.Facts, dict(SAMPLES[m.Facts], l4t="32.7"), "facts reply.l4t: expected an object, got string"),
        (m.HelloRequest, [], "hello: expected an object, got list"),
    ]
    for cls, data, message in cases:
        with pytest.raises(m.MessageError) as e:
            cls.from_dict(data)
        assert str(e.value) == message


def test_packed_samples_are_exact_and_a_plain_list_still_parses():
    """Protocol 10 packs the samples as little-endian int64, bytes regrouped by position, zlib, base64
    (record.PackedInt64): every value back as it was, extremes included; protocol 9's uncompressed object and
    a protocol 8 list parse to the same record."""
    values = [1, 2**63 - 1, -(2**63), 0, 123_456_789, 7]
    raw = dict(SAMPLES[m.RunReply], samples_ns=values)
    rec = m.RunReply.from_dict(raw)
    wire = json.loads(json.dumps(rec.to_dict()))
    assert wire["samples_ns"]["dtype"] == "<i8" and wire["samples_ns"]["n"] == 6
    assert len(zlib.decompress(base64.b64decode(wire["samples_ns"]["b64"]))) == 8 * 6
    assert m.RunReply.from_dict(wire).samples_ns == values == rec.samples_ns
    plain = base64.b64encode(struct.pack("<6q", *values)).decode()
    assert m.RunReply.from_dict(dict(wire, samples_ns={"dtype": "<i8", "b64": plain})).samples_ns == values
    assert m.RunReply.from_dict(dict(wire, samples_ns={"dtype": "<i8", "b64": ""})).samples_ns == []
    with pytest.raises(OverflowError):  # past int64: the agent's encoder refuses, nothing is wrapped around
        m.RunReply.from_dict(dict(raw, samples_ns=[2**63])).to_dict()


def test_run_defaults_have_one_home():
    req = m.RunRequest(runtime="null")
    for name, value in RUN_DEFAULTS.items():
        assert getattr(req, name) == value, name
    assert "max_duration_s" not in {f.name for f in m.RunRequest.FIELDS}
    # numbers: an int is a valid float field and is held as a float; a float is not an int
    assert m.RunRequest.from_dict({"runtime": "null", "warmup_s": 1}).warmup_s == 1.0
    with pytest.raises(m.MessageError, match="run.batch: expected an integer, got number"):
        m.RunRequest.from_dict({"runtime": "null", "batch": 1.5})
    # defaults are copies: one record's list is not another's
    a, b = m.RunRequest(runtime="null"), m.RunRequest(runtime="null")
    a.inputs.append(m.InputSpec(name="x", shape=[1]))
    assert b.inputs == []


def test_optional_keys_stay_off_the_wire_where_they_always_were():
    assert m.ErrorReply(type="leased", message="busy").to_dict() == {"type": "leased", "message": "busy"}
    assert m.ProgressEvent(phase="load", runtime="null").to_dict() == {"event": "progress", "phase": "load",
                                                                      "runtime": "null"}
    with pytest.raises(m.MessageError, match="progress event: unknown field 'eta'"):
        m.ProgressEvent(phase="measure", eta=3)
    with pytest.raises(m.MessageError, match="unknown event 'beep'"):
        m.parse_event({"event": "beep"})


def _vermin():
    exe = shutil.which("vermin") or os.path.join(os.path.dirname(sys.executable), "vermin")
    return exe if os.path.exists(exe) else None


def test_agent_is_python36_safe_by_vermin():
    vermin = _vermin()
    if vermin is None:
        pytest.skip("vermin is not installed")
    out = subprocess.run([vermin, "-t=3.6-", "--no-tips", "--violations", str(AGENTS)], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def _python36():
    home = pwd.getpwuid(os.getuid()).pw_dir  # HOME may be redirected for tests
    for exe in [*sorted(glob.glob(os.path.join(home, ".pyenv", "versions", "3.6*", "bin", "python3.6"))),
                "/root/.pyenv/versions/3.6.15/bin/python3.6", shutil.which("python3.6")]:
        if exe and os.path.exists(exe):
            out = subprocess.run([exe, "-c", "import sys; print(sys.version_info[:2] == (3, 6))"],
                                 capture_output=True, text=True, timeout=30)
            if out.stdout.strip() == "True":
                return exe
    return None


PY36_CHECK = """
import json, sys
sys.path.insert(0, sys.argv[1])
from edgeprof_agent import messages as m
samples = json.load(open(sys.argv[2]))
for name, data in samples.items():
    cls = getattr(m, name)
    rec = cls.from_dict(data)
    assert rec.to_dict() == data, name
    assert cls.from_dict(json.loads(json.dumps(rec.to_dict()))) == rec, name
    try:
        cls.from_dict(dict(data, surprise=1))
        raise SystemExit("unknown field accepted: " + name)
    except m.MessageError as e:
        assert "unknown field 'surprise'" in str(e), e
try:
    m.RunRequest.from_dict({})
    raise SystemExit("missing field accepted")
except m.MessageError as e:
    assert str(e) == "run: missing field 'runtime'", e
print("OK %d" % len(samples))
"""


def test_messages_round_trip_under_python36(tmp_path):
    py36 = _python36()
    if py36 is None:
        pytest.skip("no Python 3.6 interpreter here")
    samples = tmp_path / "samples.json"
    samples.write_text(json.dumps({cls.__name__: data for cls, data in SAMPLES.items()}))
    out = subprocess.run([py36, "-c", PY36_CHECK, str(AGENTS), str(samples)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == f"OK {len(SAMPLES)}", out.stdout + out.stderr


def test_every_error_kind_the_agent_raises_is_a_shared_constant():
    import re

    from edgeprof_agent.vocab import ErrorKind

    used = set()
    for path in AGENTS.rglob("*.py"):
        text = path.read_text()
        used |= set(re.findall(r'OpError\(\s*"(\w+)"', text))
        used |= {getattr(ErrorKind, name) for name in re.findall(r"OpError\(\s*ErrorKind\.(\w+)", text)}
    assert used and used <= set(ErrorKind.ALL), used - set(ErrorKind.ALL)


def test_facts_power_sources_read_as_records_in_each_shape():
    found = [{"source": "rpi5-pmic", "available": True, "rails": ["EXT5V"], "extra": 1},
             {"source": "rapl", "available": False, "reason": "no /sys/class/powercap"}]
    f = m.Facts.from_dict({**SAMPLES[m.Facts], "power_sources": found})
    got = f.power_source_facts()
    assert [(p.source, p.available, p.rails, p.reason) for p in got] == [
        ("rpi5-pmic", True, ["EXT5V"], None), ("rapl", False, None, "no /sys/class/powercap")]
    assert f.to_dict()["power_sources"] == found  # the wire keeps the probe's shape
    failed = m.Facts.from_dict({**SAMPLES[m.Facts], "power_sources": {"error": "boom"}}).power_source_facts()
    assert [(p.source, p.available) for p in failed] == [("error", None)]
    assert m.Facts.from_dict({**SAMPLES[m.Facts], "power_sources": None}).power_source_facts() == []


def test_facts_runtimes_are_typed_and_keep_their_three_wire_shapes():
    shapes = {"onnxruntime": {"version": "1.10.0", "providers": ["CPUExecutionProvider"]},
              "tflite_runtime": {"version": None}, "tensorrt": {"error": "ModuleNotFoundError: No module named 'x'"}}
    f = m.Facts.from_dict({**SAMPLES[m.Facts], "runtimes": shapes})
    ort = f.runtime("onnxruntime")
    assert isinstance(ort, m.RuntimeFact) and ort.providers == ["CPUExecutionProvider"] and ort.error is None
    assert f.runtime("tensorrt").error.startswith("ModuleNotFoundError") and f.runtime("numpy") is None
    assert f.to_dict()["runtimes"] == shapes  # the wire is as it was
    with pytest.raises(m.MessageError, match=r"facts reply.runtimes.onnxruntime.providers\[0\]: expected a string"):
        m.Facts.from_dict({**SAMPLES[m.Facts], "runtimes": {"onnxruntime": {"version": "1", "providers": [3]}}})
    assert m.Facts.from_dict({k: v for k, v in SAMPLES[m.Facts].items() if k != "runtimes"}).runtime("x") is None


# ------------------------------------------------------------------------------------------------ the typing stub
# messages.pyi gives mypy the records' fields (the host's RunRequest(...) and reply.samples_ns are checked
# statically). It is rendered from FIELDS, so it cannot drift: the test below compares, and
# `python tests/unit/test_messages.py` rewrites it.
STUB = AGENTS / "edgeprof_agent" / "messages.pyi"
_PY = {bool: "bool", int: "int", float: "float", str: "str", list: "list[Any]", dict: "dict[str, Any]"}


def _field_type(f):
    if f.record is not None:
        t = (f"dict[str, {f.record.__name__}]" if f.keyed else f"list[{f.record.__name__}]" if f.many
             else f.record.__name__)
    else:
        names = [_PY[t] for t in f.types]
        if "int" in names and "float" in names:
            names.remove("int")  # an int is a float to mypy
        t = " | ".join(names)
        if f.of is not None:
            t = t.replace("list[Any]", f"list[{' | '.join(_PY[o] for o in f.of)}]")
    return f"{t} | None" if f.nullable else t


# methods the host calls on a record, beyond its fields
METHODS = {"Facts": ["    def runtime(self, module: str) -> RuntimeFact | None: ...",
                     "    def power_source_facts(self) -> list[PowerSourceFact]: ..."]}


def render_stub():
    lines = [
        "# Rendered from the FIELDS of messages.py by tests/unit/test_messages.py (run it to rewrite); do not edit.",
        "from typing import Any, TypeVar",
        "",
        "_R = TypeVar(\"_R\", bound=Record)",
        "",
        "class MessageError(ValueError):",
        "    where: str",
        "    problem: str",
        "    def __init__(self, where: str, problem: str) -> None: ...",
        "",
        "REQUIRED: object",
        "PACKED_INT64: Any  # record.PackedInt64: encode(values) -> dict, decode(raw, where) -> int64 array",
        "",
        "class Field:",
        "    name: str",
        "    types: tuple[type, ...]",
        "    default: Any",
        "    record: type[Record] | None",
        "    many: bool",
        "    nullable: bool",
        "    def __init__(self, name: str, types: Any, default: Any = ..., record: type[Record] | None = ...,",
        "                 many: bool = ..., nullable: bool = ..., keyed: bool = ...) -> None: ...",
        "",
        "class Record:",
        "    NAME: str",
        "    FIELDS: tuple[Field, ...]",
        "    OMIT_NONE: bool",
        "    def __init__(self, **values: Any) -> None: ...",
        "    @classmethod",
        "    def from_dict(cls: type[_R], data: Any, where: str | None = None) -> _R: ...",
        "    def to_dict(self) -> dict[str, Any]: ...",
    ]
    # messages.py's records in its order, then those it re-exports (snapshots.py's), in theirs
    for cls in sorted(_records(), key=lambda c: (c.__module__ != m.__name__, c.__module__, inspect.getsourcelines(c)[1])):
        base = cls.__bases__[0].__name__
        lines += ["", f"class {cls.__name__}({base}):"]
        own = [f for f in cls.FIELDS if f.name in cls.__dict__.get("__slots__", ())]
        for f in own:
            lines.append(f"    {f.name}: {_field_type(f)}")
        params = []
        for f in cls.FIELDS:
            optional = f.default is not m.REQUIRED or (cls is m.ProgressEvent and f.name == "event")
            params.append(f"{f.name}: {_field_type(f)}" + (" = ..." if optional else ""))
        if own or cls.FIELDS:
            lines.append(f"    def __init__(self, *, {', '.join(params)}) -> None: ...")
            lines += METHODS.get(cls.__name__, [])
        elif not own:
            lines.append("    ...")
    lines += ["", "EVENTS: dict[str, type[Record]]", "OPS: dict[str, tuple[type[Record], type[Record]]]",
              "OP_OF: dict[type[Record], str]", "", "def parse_event(data: Any) -> ProgressEvent | LogEvent: ...", ""]
    return "\n".join(lines)


def test_the_typing_stub_matches_the_records():
    assert STUB.read_text() == render_stub(), "messages.pyi is stale: run python tests/unit/test_messages.py"


if __name__ == "__main__":
    STUB.write_text(render_stub())
    print(f"wrote {STUB}")
