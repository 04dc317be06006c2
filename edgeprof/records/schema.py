"""The Result's JSON schema version and the migrations from every older version.

Result JSON format history (keep this list next to the constant; Result.from_dict migrates step by step and
tests/data/golden/results/v<N>/ holds results each version wrote):
  1 — first format: latency_ms, throughput_ips, memory_mb, power, thermal, fidelity, environment, warnings,
      samples_ms, plus artifact, settings, transfer, reason and a free-form `extra` (null_reasons, compute, ops,
      sweep, stderr_tail).
  2 — every section typed (the dataclasses of sections.py); `extra` is gone: null_reasons, compute, ops, sweep and
      stderr_tail are top-level keys after reason; a sweep row's transfer is null instead of {}; every section
      has all its fields (null where not measured or not set). Migration: _migrate_1_to_2.
  3 — `io` after stderr_tail: what fed each input (generated with seed and range, a constant, a data file and
      its sha256), the shapes fed, the output shapes, load time and first-inference latency (IOSummary).
      Additive: an older row gets io = null. Migration: _migrate_2_to_3.
  4 — load scenarios (issue 12): a `scenario` section after stderr_tail (name and parameters, misses, validity,
      energy per frame at the duty cycle, scheduled and issued times); part of the configuration identity
      unless single-stream. Migration: _migrate_3_to_4 (every older result was single-stream).
  5 — accuracy mode (issue 11): an `accuracy` section after scenario (the data file and its sha256, samples,
      top-1 / top-5 against labels with the raw per-sample predictions, or per-output errors against expected
      outputs), and null_reasons.accuracy (why a pass that was asked for gave none). Additive: an older row has
      accuracy = null. Migration: _migrate_4_to_5.
      Later within 5, additive: memory_mb.baseline (what the agent's process held when rss_before_load was read;
      null in rows written before agent protocol 5).
  6 — phase times (issue 22): a `phases` section after accuracy (records/phases.Phases: seconds spent
      connecting, starting the agent, reading facts, exporting (and whether the cache had it), pushing, and on
      the device cooling down, the idle baseline, loading, warming up, the timed window and around it, outputs,
      op profile, accuracy, then fidelity, the request's overhead, closing and the total). Additive: an older
      row, and a failed or skipped row, has phases = null. Migration: _migrate_5_to_6.
  7 — the sustained scenario (issue 25): a `sustained` section after phases (records/sustained.Sustained: the
      duration and window, one row per window with its latency percentiles, throughput, misses, temperatures,
      clocks, throttle bits and power, and the curve's figures: onset, sustained ratios, steady state).
      Additive: an older row, and any run of another scenario, has sustained = null. Migration: _migrate_6_to_7.
  8 — phone results (issue 24): a `phone` section after sustained (records/phone.PhoneBenchmark: LiteRT's
      benchmark_model on an Android phone: its command and binary, the delegate and what it took of the graph
      (ops on the delegate vs LiteRT's CPU kernels), init and first-inference times, warm-up runs, memory
      footprint deltas, thermal status before/after, the battery at the start with its deviations from the
      kernel ABI); power gains `rails_energy_j` (each rail's energy from its own counter: a phone's ODPM rails,
      power source "rails"; null elsewhere); latency_ms gains `source` (null: edgeprof's own statistics from the
      raw samples; "benchmark_model": the phone tool's summary), `p5` and `absent` (statistic → why it was not
      measured), and p90 / p97 / p99 / p999 may be null (a phone run: benchmark_model prints no per-run times,
      and edgeprof computes no percentile from a summary). Additive: an older row has phone = null, power's
      rails_energy_j null, and its latency section reads as before (source, p5, absent null). Also in 8: a
      sustained window gains the NVML figures of its readings (`n_nvml`, `nvml_w`, `nvml_temp_c`, `nvml_sm_mhz`,
      `nvml_graphics_mhz`, `nvml_reasons`; issue 25) and the section `nvml_gpu`: an older row reads 0 / null.
      Later within 8 (issue 35): a phone run's latency_ms p50 / p95 (and p5) may be null too, with the reason in
      `absent` (an older benchmark_model build prints count/min/max/avg/std and no percentiles); every other
      row has them as before. No migration: an older row is unchanged.
      Migration: _migrate_7_to_8.
  9 — compact raw samples (issue 35): `samples_ms`, `scenario.scheduled_ms` and `scenario.issued_ms` may be
      stored packed, {"encoding": "int64-shuffle8-zlib", "per_ms": P, "n": N, "b64": ...} (records/samples.py:
      each value an integer count of 1/P ms, P = 1 000 000 for the samples, 10 000 for the times; int64 bytes
      regrouped by position, zlib, base64; about 2 bytes a sample instead of about 19 as JSON text), so a
      30-minute sustained run of a fast model keeps every sample. The store and recovery files write them packed;
      `--json` exports write numbers (either form loads). Nothing else changes. Migration: _migrate_8_to_9 (the
      version only: a JSON list is a valid schema 9 value).
  10 — generative models (issue 36): a `generation` section after the phone section
      (edgeprof/generative/records.Generation: prompt tokens, generated tokens, depth and repetitions; prefill ms,
      prompt tokens/s, TTFT, TPOT, decode tokens/s and e2e as mean ± sample stdev over repetitions, the
      inter-token latencies pooled, the raw per-token ns and prefill ns of every repetition, the phase edges, the
      warm-up, load time, peak RSS, the KV cache, and the energy of the prefill and decode phases with J/token,
      J/prompt token and tokens/J; the definitions stored with it). Additive: an older row, and every forward-pass
      run, has generation = null. Migration: _migrate_9_to_10.
  11 — typed device facts (issue 34): environment.device is null (no facts were read: a failed or skipped sweep
      row) or an object whose `kind` names its record (records/device_facts.py): "board", the agent's facts
      reply (wire_sections.BoardFacts: its l4t an L4TRelease, its runtimes RuntimeFact records), or "phone"
      (PhoneDeviceFacts: what `devices check` reads over adb, under the board fact names compare and the report
      read, and the phone's own). Every fact may be null (unknown). Migration: _migrate_10_to_11 ({} becomes
      null; a phone's object, {"kind": "phone", ...}, is kept; any other object is a board's and gains
      kind "board", an L4T release given as text becoming {release, raw} both that text).
  12 — typed export and runtime options (issue 34; records/options.py): artifact.export_options and
      environment.export_options are null or an object whose `kind` names its record (the artifact's format:
      "onnx" OnnxExportOptions, "tflite" TfliteExportOptions, "hf" / "gguf" / "ortgenai" GenerativeBuild), every
      key a named field, a key not recorded absent (not null); a library's version is under its field name
      (litert_torch, ai_edge_quantizer, onnxconverter_common). environment.runtime is null (no runtime loaded) or
      RuntimeFacts: runtime, version, providers, providers_available, device, module, `options` (RuntimeOptions:
      what the backend ran with, each named; the user's options a backend echoed unread, such as the null
      runtime's, under `passthrough`), `gpu` (RunGpu) and on a phone `phone` (PhoneTool: tool, binary, delegate); a
      key not reported absent. Migration: _migrate_11_to_12 (kind from the artifact's format, the versions' keys
      renamed; runtime {} → null, a phone's name/tool/binary/delegate → runtime and phone, an option no field names
      → options.passthrough). Nothing is dropped but nulls: a key no field names is refused by the loader, naming
      it. Also new in 12, optional (absent in older results, nothing to migrate): a generation's `transfer` section
      (bytes moved for the agent and the model) and, for a phone's LiteRT-LM run, generation.measured_by (the tool
      whose own figures these are) and generation.absent (what it does not measure); a .litertlm's export options
      are GenerativeBuild kind "litertlm".
      Later within 12, additive (issue 36, onnxruntime-genai on CUDA; absent or null in older results: unknown):
      environment.device.runtimes.<module>.cuda (the facts' og.is_cuda_available() for onnxruntime_genai, null for
      every other module); generation.gpu_memory (a CUDA generation's GPU memory from NVML after the load and after
      the last token, on GPU `gpu`, with its source: records/generation.GenGpuMemory) or
      generation.gpu_memory_reason (why there is none), written only when set.
      Later within 12, additive (issue 37, round 21; absent in older results and in a run of one session): a
      top-level `sessions` section after `generation` (records/sessions.py: deploy --sessions N, each session's
      figures and raw samples, packed in the store as samples_ms), and phases.sessions_s, both written only when
      set; settings.sessions (the setting, kept when not the default 1).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import StoreError
from ..vocab import SINGLE_STREAM

RESULT_SCHEMA_VERSION = 12


def _migrate_1_to_2(d: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 → 2: extra.null_reasons/compute/ops/sweep/stderr_tail become top-level sections; `extra` goes.
    A sweep row's empty transfer ({}) becomes null."""
    out = {k: v for k, v in d.items() if k != "extra"}
    extra = dict(d.get("extra") or {})
    for key in ("null_reasons", "compute", "ops", "sweep", "stderr_tail"):
        out[key] = extra.pop(key, None)
    if extra:
        raise StoreError(f"result {d.get('run_id', '?')} (schema 1) has unknown extra section(s) "
                         f"{', '.join(map(repr, sorted(extra)))}",
                         hint="it was not written by edgeprof 1.x; remove those sections to read it")
    if not out.get("transfer"):
        out["transfer"] = None
    out["schema_version"] = 2
    return out


def _additive(section: str, to: int, before_what: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """An additive migration to schema `to`: a row written before `before_what` has no `section` (null)."""
    def migrate(d: dict[str, Any]) -> dict[str, Any]:
        out = dict(d)
        out.setdefault(section, None)
        out["schema_version"] = to
        return out

    migrate.__doc__ = (f"Schema {to - 1} → {to}: additive; a row written before {before_what} has none "
                       f"({section} = null).")
    return migrate


_migrate_2_to_3 = _additive("io", 3, "the io section")


def _migrate_3_to_4(d: dict[str, Any]) -> dict[str, Any]:
    """Schema 3 → 4: a `scenario` section; every result before it was measured single-stream."""
    out = dict(d)
    out["scenario"] = {"name": SINGLE_STREAM}
    out["schema_version"] = 4
    return out


_migrate_4_to_5 = _additive("accuracy", 5, "accuracy mode")
_migrate_5_to_6 = _additive("phases", 6, "phase times")
_migrate_6_to_7 = _additive("sustained", 7, "the sustained scenario")
_migrate_7_to_8 = _additive("phone", 8, "phone results")


def _migrate_8_to_9(d: dict[str, Any]) -> dict[str, Any]:
    """Schema 8 → 9: the raw samples and the scenario's times may be packed; the lists schema 8 wrote are
    valid schema 9 values as they are."""
    return dict(d, schema_version=9)


_migrate_9_to_10 = _additive("generation", 10, "generative models")


def _migrate_10_to_11(d: dict[str, Any]) -> dict[str, Any]:
    """Schema 10 → 11: environment.device typed by its kind: {} → null, a phone's object kept, any other object
    a board's facts (kind "board"; an l4t given as text → {release, raw}). Nothing is dropped: a fact that is
    not a field of its kind's record is refused by the loader, naming it."""
    out = dict(d, schema_version=11)
    env = d.get("environment")
    if not isinstance(env, dict):
        return out
    device = env.get("device")
    if not device:
        device = None
    elif isinstance(device, dict) and device.get("kind") != "phone":
        device = dict(device, kind="board")
        if isinstance(device.get("l4t"), str):
            device["l4t"] = {"release": device["l4t"], "raw": device["l4t"]}
    out["environment"] = dict(env, device=device)
    return out


def _migrate_11_to_12(d: dict[str, Any]) -> dict[str, Any]:
    """Schema 11 → 12: export options typed by the artifact's kind, the runtime's description typed
    (records/options.py upgrade_export_options, upgrade_runtime)."""
    from .options import upgrade_export_options, upgrade_runtime

    out = dict(d, schema_version=12)
    art = d.get("artifact")
    fmt = art.get("format") if isinstance(art, dict) else None

    def typed(opts: Any) -> Any:
        if not isinstance(opts, dict):
            return opts
        if not opts and fmt is None:
            return None  # an empty mapping with no artifact: nothing was recorded
        return upgrade_export_options(opts, fmt)

    if isinstance(art, dict):
        out["artifact"] = dict(art, export_options=typed(art.get("export_options")))
    env = d.get("environment")
    if isinstance(env, dict):
        out["environment"] = dict(env, export_options=typed(env.get("export_options")),
                                  runtime=upgrade_runtime(env.get("runtime")))
    return out


_MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _migrate_1_to_2, 2: _migrate_2_to_3,
                                                                       3: _migrate_3_to_4, 4: _migrate_4_to_5,
                                                                       5: _migrate_5_to_6, 6: _migrate_6_to_7,
                                                                       7: _migrate_7_to_8, 8: _migrate_8_to_9,
                                                                       9: _migrate_9_to_10, 10: _migrate_10_to_11,
                                                                       11: _migrate_11_to_12}
