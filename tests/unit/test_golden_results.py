"""Every stored schema version stays readable: each golden result under tests/data/golden/results/v<N>/ (real
output of the code of version N) loads, migrates, round-trips, and renders through `results show` (text and
--json) and `report` (html, md, csv) from a real SQLite store, with its numbers intact."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from edgeprof.cli.main import main
from edgeprof.errors import StoreError
from edgeprof.records import (
    RESULT_KEYS,
    RESULT_SCHEMA_VERSION,
    RESULT_TAIL_KEYS,
    BoardFacts,
    GenerativeBuild,
    L4TRelease,
    OnnxExportOptions,
    PhoneDeviceFacts,
    Result,
    RuntimeFact,
    RuntimeFacts,
    TfliteExportOptions,
)
from edgeprof.store import Store, runs
from edgeprof.vocab import fmt_value

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "results"
FILES = sorted(GOLDEN.glob("v*/*.json"))
KINDS = ("ok_local_ds_cnn", "ok_local_int8_fidelity", "ok_rpi5_power_thermal_ops", "failed_sweep_row",
         "skipped_sweep_row")
# kinds a version added (schema 4: load scenarios; schema 5: accuracy mode; schema 7: the sustained scenario;
# schema 8: a phone's run; schema 10: a generative model's run)
KINDS_SINCE = {4: ("ok_local_fixed_rate",), 5: ("ok_local_accuracy",), 7: ("ok_local_sustained",),
               8: ("ok_phone_ds_cnn",), 10: ("ok_local_generation",)}


def kinds_of(version: int) -> set[str]:
    return set(KINDS).union(*(k for v, k in KINDS_SINCE.items() if v <= version))


def _id(p: Path) -> str:
    return f"{p.parent.name}/{p.stem}"


def _raw(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def _set(section: dict[str, Any]) -> dict[str, Any]:
    """The fields a section holds a value for (a typed section also lists the ones it has none for)."""
    return {k: _set(v) if isinstance(v, dict) else v for k, v in section.items() if v not in (None, {}, [])}


def _samples_of(raw: dict[str, Any]) -> list[float]:
    """The file's raw samples as numbers: a JSON list, or (schema 9 on) decoded by hand from the packed object
    (int64 counts of 1/per_ms ms, bytes regrouped by position, zlib, base64), not through records/samples.py."""
    v = raw["samples_ms"]
    if isinstance(v, list):
        return v
    assert raw["schema_version"] >= 9 and v["encoding"] == "int64-shuffle8-zlib" and v["per_ms"] == 1_000_000
    planes = zlib.decompress(base64.b64decode(v["b64"]))
    n = v["n"]
    data = bytes(planes[(k % 8) * n + k // 8] for k in range(8 * n))  # value i's byte j sits at j * n + i
    return [c / v["per_ms"] for c in struct.unpack(f"<{n}q", data)]


def _accuracy_of(raw: dict[str, Any]) -> dict[str, Any] | None:
    """The file's accuracy section (schema 5 on; an older file has none)."""
    return raw.get("accuracy") if raw["schema_version"] >= 5 else None


def _sweep_of(raw: dict[str, Any]) -> dict[str, Any] | None:
    """The sweep tag where the file's own version keeps it (v1: extra.sweep)."""
    return (raw.get("extra") or {}).get("sweep") if raw["schema_version"] == 1 else raw.get("sweep")


def _env_as_10(env: dict[str, Any], fmt: str | None = None) -> dict[str, Any]:
    """An environment section with its device facts as schema 10 keeps them: a board's gain kind "board" (a
    phone's had its kind already); an empty object is none (both compare as unset). Its export options and
    runtime as schema 12 keeps them (_options_as_12, _runtime_as_12)."""
    device = env.get("device")
    return dict(env, device=dict(device, kind="board") if device and "kind" not in device else device,
                export_options=_options_as_12(env.get("export_options"), fmt),
                runtime=_runtime_as_12(env.get("runtime")))


# written out by hand from schema.py's history (not through records/options.py): the distribution names schema 11
# wrote versions under
_VERSIONS_AS_12 = {"litert-torch": "litert_torch", "ai-edge-quantizer": "ai_edge_quantizer",
                   "onnxconverter-common": "onnxconverter_common"}


def _options_as_12(opts: dict[str, Any] | None, fmt: str | None) -> dict[str, Any] | None:
    """Export options as schema 12 keeps them: the artifact's format as `kind`, versions under field names."""
    if opts is None or "kind" in opts or (not opts and fmt is None):
        return opts or None
    return {"kind": fmt, **{_VERSIONS_AS_12.get(k, k): v for k, v in opts.items()}}


def _runtime_as_12(rt: dict[str, Any] | None) -> dict[str, Any] | None:
    """environment.runtime as schema 12 keeps it: a phone's tool apart (no golden's runtime echoed an option
    RuntimeOptions does not name: none has a passthrough)."""
    if not rt:
        return None
    out = dict(rt)
    if "tool" in out and "runtime" not in out:
        out["runtime"] = out.pop("name")
        out["phone"] = {k: out.pop(k) for k in ("tool", "binary", "delegate") if k in out}
    return out


def test_export_and_runtime_options_are_typed_in_every_version() -> None:
    """Schema 12: each golden's export options load as the record of its artifact's kind, its runtime as
    RuntimeFacts (a phone's tool apart), with what they held."""
    kinds = {"onnx": OnnxExportOptions, "tflite": TfliteExportOptions, "gguf": GenerativeBuild}
    for path in FILES:
        raw = _raw(path)
        r = Result.from_dict(raw)
        art, rt = raw["artifact"], (raw.get("environment") or {}).get("runtime")
        if art is not None:
            assert r.artifact is not None and isinstance(r.artifact.export_options, kinds[art["format"]]), path
            assert r.artifact.export_options.kind == art["format"]
            assert r.artifact.export_options.seed == (art["export_options"] or {}).get("seed"), path
        if not rt:
            assert r.environment.runtime is None, path
            continue
        assert isinstance(r.environment.runtime, RuntimeFacts), path
        if "tool" in rt or "phone" in rt:  # a phone's benchmark_model (schema 12: its tool apart)
            tool = rt.get("phone") or rt
            phone = r.environment.runtime.phone
            assert phone is not None and (phone.tool, phone.binary) == (tool["tool"], tool["binary"]), path
            assert r.environment.runtime.runtime == rt.get("runtime", rt.get("name")) == "tflite"
        else:
            assert r.environment.runtime.runtime == rt["runtime"] and r.environment.runtime_version == rt.get("version")
            options = r.environment.runtime.options
            assert options is not None and options.threads == rt["options"].get("threads"), path


def test_device_facts_are_typed_by_kind_in_every_version() -> None:
    """Schema 10: each golden's environment.device loads as its kind's record, or None where no facts were read
    (a sweep row), with the facts it held."""
    for path in FILES:
        raw = _raw(path)
        device = (raw.get("environment") or {}).get("device")
        env = Result.from_dict(raw).environment
        if not device:
            assert env.device is None and env.fact("cpu") is None, path
        elif device.get("kind") == "phone":
            assert isinstance(env.device, PhoneDeviceFacts) and env.fact("soc") == device["soc"], path
            assert env.fact("board_model") == device["board_model"] and env.fact("hostname") is None
        else:
            assert isinstance(env.device, BoardFacts) and env.device.kind == "board", path
            assert (env.fact("cpu"), env.fact("cores"), env.fact("memory_mb")) == (
                device["cpu"], device["cores"], device["memory_mb"]), path
            for name, fact in (device.get("runtimes") or {}).items():
                assert env.device.runtimes is not None and env.device.runtimes[name] == RuntimeFact.from_dict(fact)


def test_every_version_up_to_the_current_one_has_its_golden_files() -> None:
    versions = {int(p.parent.name[1:]) for p in FILES}
    assert versions == set(range(1, RESULT_SCHEMA_VERSION + 1))
    for v in versions:
        assert {p.stem for p in FILES if p.parent.name == f"v{v}"} == kinds_of(v), f"v{v}"


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_golden_loads_migrates_and_round_trips(path: Path) -> None:
    raw = _raw(path)
    assert raw["schema_version"] == int(path.parent.name[1:]), "a golden file is written by its own version"
    r = Result.from_dict(raw)
    assert r.schema_version == RESULT_SCHEMA_VERSION
    assert (r.run_id, r.status, r.device, r.model, r.runtime, r.precision, r.batch, r.threads) == (
        raw["run_id"], raw["status"], raw["device"], raw["model"], raw["runtime"], raw["precision"], raw["batch"],
        raw["threads"])
    assert r.samples_ms == _samples_of(raw) and r.reason == raw["reason"]
    assert [(w.code, w.message) for w in r.warnings] == [(w["code"], w["message"]) for w in raw["warnings"]]
    d = r.to_dict()
    assert list(d) == list(RESULT_KEYS + RESULT_TAIL_KEYS)
    assert Result.from_dict(json.loads(json.dumps(d))) == r
    # every section of the file arrives, whichever version wrote it
    fmt = (raw["artifact"] or {}).get("format")
    for key in ("latency_ms", "memory_mb", "power", "thermal", "fidelity", "environment", "artifact"):
        assert d[key] is not None or raw[key] is None, key
        if raw[key] is not None and key != "artifact":
            assert _set(d[key]) == _set(_env_as_10(raw[key], fmt) if key == "environment" else raw[key]), key
    if raw["artifact"] is not None:  # schema 12: its export options typed, every key they held kept
        want = _options_as_12(raw["artifact"]["export_options"], fmt) or {"kind": fmt}
        assert _set(d["artifact"]["export_options"]) == _set(want)
    # the accuracy section arrives whole, raw per-sample lists included; before schema 5 there is none
    acc = _accuracy_of(raw)
    assert d["accuracy"] == acc and (r.accuracy is None) == (acc is None)
    if raw["schema_version"] >= 5:
        assert d["null_reasons"]["accuracy"] == raw["null_reasons"]["accuracy"]
        assert d["settings"]["accuracy"] == raw["settings"]["accuracy"]
    else:
        assert r.null_reasons.accuracy is None and r.settings.accuracy is None
    gen = raw.get("generation")  # schema 10: a generative model's run has no forward-pass latency
    assert d["generation"] == gen and (r.generation is None) == (gen is None)
    if raw["status"] == "ok" and gen is not None:
        assert r.latency_ms is None and raw["latency_ms"] is None and r.identity.source == raw["artifact"]["source"]
    elif raw["status"] == "ok":
        assert r.latency_ms is not None and r.latency_ms.p99 == raw["latency_ms"]["p99"]
        assert r.identity.source == raw["artifact"]["source"]
    else:
        sweep = _sweep_of(raw)
        assert r.sweep is not None and sweep is not None and r.sweep.cell_id == sweep["cell_id"]
        assert r.sweep.budgets == sweep["budgets"] == ["p99_ms < 50"]


def test_the_rpi5_golden_keeps_power_thermal_ops_and_compute() -> None:
    for path in (p for p in FILES if p.stem == "ok_rpi5_power_thermal_ops"):
        raw = _raw(path)
        extra = raw.get("extra") or raw  # v1 kept compute and ops in extra
        r = Result.from_dict(raw)
        assert r.power is not None and r.power.energy_j == raw["power"]["energy_j"] > 0
        assert r.power.trace is not None and r.power.trace.t_s == raw["power"]["trace"]["t_s"]
        assert r.power.rails == raw["power"]["rails"] and r.power.total_kind == "sum-of-rails"
        assert r.thermal is not None and r.thermal.after is not None
        thr = r.thermal.after.rpi_throttled
        assert thr is not None and thr.to_dict() == raw["thermal"]["after"]["rpi"]["throttled"]
        assert r.ops is not None and r.ops.available and r.ops.op_types == extra["ops"]["op_types"]
        assert r.compute is not None and r.compute.achieved_gflops == extra["compute"]["achieved_gflops"]
        assert r.null_reasons.power is None and r.null_reasons.fidelity


def test_the_int8_golden_keeps_fidelity() -> None:
    for path in (p for p in FILES if p.stem == "ok_local_int8_fidelity"):
        raw = _raw(path)
        f = Result.from_dict(raw).fidelity
        assert f is not None and f.ok and f.cosine_similarity == raw["fidelity"]["cosine_similarity"]
        assert f.reference == raw["fidelity"]["reference"] and f.outputs == raw["fidelity"]["outputs"]


def test_results_before_v4_are_single_stream_and_keep_their_identity() -> None:
    for path in FILES:
        raw = _raw(path)
        r = Result.from_dict(raw)
        if raw["schema_version"] < 4:
            assert r.scenario.name == "single-stream" and r.scenario.label is None
            assert r.identity.scenario is None  # the configuration key of an old result is unchanged
        else:
            assert r.scenario.name == raw["scenario"]["name"]


def test_the_fixed_rate_golden_keeps_its_scenario() -> None:
    raw = _raw(GOLDEN / "v4" / "ok_local_fixed_rate.json")
    r = Result.from_dict(raw)
    sc = r.scenario
    assert (sc.name, sc.rate_qps, sc.queries, sc.misses) == ("fixed-rate", 100.0, 100, 0)
    assert sc.label == "fixed-rate 100/s" and r.identity.scenario == "fixed-rate 100/s"
    assert "fixed-rate 100/s" in r.identity.label()
    assert len(sc.scheduled_ms) == len(sc.issued_ms) == sc.queries
    assert sc.scheduled_ms[1] == 10.0 and all(i >= s for s, i in zip(sc.scheduled_ms, sc.issued_ms, strict=True))
    same_but_single = Result.from_dict({**raw, "scenario": {"name": "single-stream"}})
    assert same_but_single.identity.key() != r.identity.key()


def test_results_before_v5_have_no_accuracy() -> None:
    for path in FILES:
        raw = _raw(path)
        r = Result.from_dict(raw)
        if raw["schema_version"] < 5:
            assert "accuracy" not in raw and r.accuracy is None
        elif path.stem != "ok_local_accuracy":
            assert raw["accuracy"] is None and r.accuracy is None


def test_results_before_v6_have_no_phases_and_v6_ok_runs_have_them_measured() -> None:
    """Schema 6: an ok run's phases add up to its total, the timed window is the settings' window, and the
    phases a local deploy makes (agent, facts, export, push, load, run) were timed; rows without a measurement
    and older rows have none."""
    from edgeprof.records.phases import Phases

    seen = 0
    for path in FILES:
        raw = _raw(path)
        r = Result.from_dict(raw)
        if raw["schema_version"] < 6 or raw["status"] != "ok" or path.stem in ("ok_rpi5_power_thermal_ops",
                                                                               "ok_local_generation"):
            assert r.phases is None and raw.get("phases") is None, path
            continue
        seen += 1
        p = r.phases
        assert isinstance(p, Phases) and p.to_dict() == raw["phases"]
        if r.phone is not None:  # a phone: no agent; benchmark_model's timed runs summed (count × mean)
            lat = r.latency_ms
            assert lat is not None and p.window_s == round(lat.n * lat.mean / 1000, 4) and p.agent_s is None
            assert p.device_s == p.run_s and p.total_s is not None and p.facts_s and p.push_s is not None
            assert abs(sum(v for _, v in p.parts()) - p.total_s) < 1e-6
            continue
        assert p.total_s is not None and p.window_s == round(r.settings.window_s or 0, 4) and p.window_s > 0
        for name in ("agent_s", "facts_s", "export_s", "push_s", "load_s", "warmup_s", "measure_s", "run_s",
                     "device_s", "close_s"):
            assert getattr(p, name) is not None, (path, name)
        assert p.device_s is not None and p.run_s is not None and p.device_s <= p.run_s <= p.total_s
        assert p.measure_s is not None and p.measure_s >= p.window_s
        assert abs(sum(v for _, v in p.parts()) - p.total_s) < 1e-6
        if path.stem == "ok_local_accuracy":
            assert p.accuracy_device_s is not None and p.accuracy_s is not None
            assert p.accuracy_s >= p.accuracy_device_s > 0
        else:
            assert p.accuracy_s is None
    assert seen == 39  # v6's four, v7's views of them and its sustained run, v8's views of those and its phone run,
    # v9's views of v8's (the samples packed), v10's views of v9's (the generation golden: made by a script, no
    # deploy's phases: tests/gen/golden_generation.py), v11's views of v10's (the device facts typed), v12's views
    # of v11's (the export and runtime options typed)


def test_the_accuracy_golden_keeps_its_section() -> None:
    """The int8 run of tests/accuracy_fixtures.py's classifier with --accuracy: top-1/top-5 against labels, and the
    raw per-sample values they were counted from."""
    for path in (p for p in FILES if p.stem == "ok_local_accuracy"):
        raw = _raw(path)
        r = Result.from_dict(raw)
        a = r.accuracy
        assert a is not None and raw["accuracy"] is not None and raw["precision"] == "int8"
        assert (a.data, a.sha256, a.samples, a.output, a.classes) == tuple(
            raw["accuracy"][k] for k in ("data", "sha256", "samples", "output", "classes"))
        assert (a.top1, a.top5) == (raw["accuracy"]["top1"], raw["accuracy"]["top5"]) and a.top1 is not None
        assert a.top1 > 50 and a.top5 is not None and a.top5 >= a.top1  # chance is 10 %
        assert a.samples == 600 and a.predicted == raw["accuracy"]["predicted"] and len(a.predicted) == 600
        assert a.label_rank == raw["accuracy"]["label_rank"] and len(a.label_rank) == 600
        assert a.errors == [] and a.nonfinite == 0
        # top-1 / top-5 are what the raw ranks say
        assert round(100 * sum(k == 0 for k in a.label_rank) / a.samples, 1) == a.top1
        assert round(100 * sum(k is not None and k < 5 for k in a.label_rank) / a.samples, 1) == a.top5
        assert r.settings.accuracy == raw["settings"]["accuracy"] == a.data
        assert r.null_reasons.accuracy is None


def test_results_before_v7_have_no_sustained_section_and_the_sustained_golden_keeps_its_windows() -> None:
    """Schema 7: only a sustained run has the section; its window rows are what numpy says of each window's raw
    samples (kept whole: 300 at 50/s for 6 s), and the curve's figures are stored beside them."""
    import numpy as np

    for path in FILES:
        raw = _raw(path)
        r = Result.from_dict(raw)
        if path.stem != "ok_local_sustained":
            assert r.sustained is None and raw.get("sustained") is None, path
            continue
        s = r.sustained
        # the NVML fields added since (optional, additive) read as their defaults
        nvml_w = {"n_nvml": 0, "nvml_w": None, "nvml_temp_c": None, "nvml_sm_mhz": None, "nvml_graphics_mhz": None,
                  "nvml_reasons": None}
        stored = {"nvml_gpu": None, **raw["sustained"], "windows": [{**nvml_w, **w} for w in raw["sustained"]["windows"]]}
        assert s is not None and s.to_dict() == stored and r.scenario.name == "sustained"
        assert (s.duration_s, s.window_s, len(s.windows)) == (6.0, 2.0, 3)
        assert sum(w.n for w in s.windows) == len(r.samples_ms) == 300
        first = 0
        for w in s.windows:
            part = r.samples_ms[first:first + w.n]
            first += w.n
            assert w.p50_ms == round(float(np.percentile(part, 50)), 4) and w.qps == w.n / 2.0
            assert w.misses == sum(x > 20.0 for x in part)  # 50/s: a frame is late after 20 ms
        assert s.sustained_ratio is not None and s.last_n == 1


def test_results_before_v10_have_no_generation_and_the_generation_golden_keeps_its_raw_times() -> None:
    """Schema 10: only a generative model's run has the section. Its figures are what its raw per-token times say
    (kept whole: 3 repetitions × 16 tokens), and its energy per phase is the board tree's constant power × the
    phase windows it stores (tests/data/boards/rpi4-ina219: 3.2768 W)."""
    import numpy as np

    for path in FILES:
        raw = _raw(path)
        r = Result.from_dict(raw)
        if path.stem != "ok_local_generation":
            assert r.generation is None and raw.get("generation") is None, path
            continue
        g = r.generation
        assert g is not None and (g.prompt_tokens, g.tokens, g.depth, g.repetitions) == (32, 16, 0, 3)
        assert len(g.token_ns) == 3 and all(len(t) == 16 for t in g.token_ns) and len(g.prefill_ns) == 3
        ttft = [(p + t[0]) / 1e6 for p, t in zip(g.prefill_ns, g.token_ns, strict=True)]
        assert g.ttft_ms.mean == pytest.approx(float(np.mean(ttft)), rel=1e-12)
        assert g.ttft_ms.std == pytest.approx(float(np.std(ttft, ddof=1)), rel=1e-9)
        tps = [15 * 1e9 / sum(t[1:]) for t in g.token_ns]
        assert g.decode_tps is not None and g.decode_tps.mean == pytest.approx(float(np.mean(tps)), rel=1e-12)
        itl = [x / 1e6 for t in g.token_ns for x in t[1:]]
        assert g.itl_ms is not None and g.itl_ms.n == 45 and g.itl_ms.p99 == pytest.approx(
            float(np.percentile(itl, 99)), rel=1e-12)
        e = g.energy
        assert e is not None and e.source == "hwmon" and r.power is not None
        decode_s = sum(w[3] - w[2] for w in g.windows_ns) / 1e9
        assert e.decode_s == pytest.approx(decode_s, rel=1e-12)
        assert e.j_per_token == pytest.approx(3.2768 * decode_s / 45, rel=1e-9)
        assert e.prefill_j == pytest.approx(3.2768 * sum(w[2] - w[0] for w in g.windows_ns) / 1e9, rel=1e-9)
        assert g.kv_cache is not None and g.kv_cache_bytes == g.kv_cache["bytes"] == 2 * 4 * 4 * 32 * 256 * 2


def test_migration_refuses_what_it_does_not_know() -> None:
    raw = _raw(GOLDEN / "v1" / "ok_local_ds_cnn.json")
    with pytest.raises(StoreError, match="unknown extra section.*'mystery'"):
        Result.from_dict({**raw, "extra": {**raw["extra"], "mystery": 1}})
    with pytest.raises(StoreError, match="section 'power' has unknown field.*'volts'"):
        Result.from_dict({**raw, "power": {"mean_w": 1.0, "volts": 5}})
    with pytest.raises(StoreError, match="upgrade edgeprof"):
        Result.from_dict({**raw, "schema_version": RESULT_SCHEMA_VERSION + 1})


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_golden_renders_in_results_show(path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = _raw(path)
    db = str(tmp_path / "db.sqlite")
    store = Store(db)
    _store_as_written(store, raw)
    with store.engine.connect() as conn:
        stored = conn.execute(sa.select(runs.c.result_json).where(runs.c.run_id == raw["run_id"])).scalar_one()
    assert json.loads(stored) == raw  # the database holds the file's own version
    assert main(["results", "show", raw["run_id"], "--db", db]) == 0
    printed = capsys.readouterr().out
    text = " ".join(printed.split())
    assert raw["run_id"] in text
    if raw["status"] == "ok" and raw.get("generation"):  # the llama-bench rows and the section's lines
        g = raw["generation"]
        assert f"pp{g['prompt_tokens']}" in text and f"tg{g['tokens']}" in text and "latency (ms)" not in text
        assert f"{g['prefill_tps']['mean']:.2f} ± {g['prefill_tps']['std']:.2f}" in text
        assert f"{g['decode_tps']['mean']:.2f} ± {g['decode_tps']['std']:.2f}" in text
        assert f"TTFT {fmt_value(g['ttft_ms']['mean'])} ± {fmt_value(g['ttft_ms']['std'], 'ms')}" in text
        assert f"{fmt_value(g['energy']['j_per_token'] * 1000, 'mJ')}/token" in text
        assert f"ITL p50 {fmt_value(g['itl_ms']['p50'], 'ms')}" in text and "energy (hwmon)" in text
    elif raw["status"] == "ok":
        assert fmt_value(raw["latency_ms"]["p99"]) in text and f"n={raw['latency_ms']['n']}" in text
        if raw["power"]:
            assert fmt_value(raw["power"]["energy_j"]) in text and fmt_value(raw["power"]["mean_w"]) in text
            source = "battery" if raw.get("phone") else "rpi5-pmic"
            assert f"power source: {source}" in text and "top ops" in text
            assert "get_throttled 0x0" in text or raw.get("phone")
        if raw.get("phone"):  # benchmark_model's statistics: what is absent says why
            assert "benchmark_model's own statistics" in text and "not measured: samples, p90, p97, p99" in text
        if raw["fidelity"]:
            assert ("fidelity vs torch (bundled ds_cnn)" if raw["model"] == "ds_cnn"
                    else f"fidelity vs {raw['fidelity']['reference']}") in text
    else:
        assert f"{raw['status']}: {raw['reason']}" in text
    acc = _accuracy_of(raw)
    accuracy_lines = [ln for ln in printed.splitlines() if ln.startswith("accuracy (")]
    if acc is not None:
        head = f"accuracy ({raw['precision']}): top-1 {fmt_value(acc['top1'], '%')} "
        assert [ln for ln in accuracy_lines if ln.startswith(head)], accuracy_lines
    else:
        assert accuracy_lines == []
    assert main(["results", "show", raw["run_id"], "--db", db, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["schema_version"] == RESULT_SCHEMA_VERSION
    assert Result.from_dict(shown) == Result.from_dict(raw)
    assert shown["generation"] == raw.get("generation")  # the raw per-token times included
    if raw["status"] == "ok" and raw.get("generation"):
        assert shown["generation"]["token_ns"] and shown["latency_ms"] is None
    elif raw["status"] == "ok":
        assert shown["latency_ms"]["p99"] == raw["latency_ms"]["p99"]
        assert (shown["power"] or {}).get("energy_j") == (raw["power"] or {}).get("energy_j")
    assert shown["accuracy"] == _accuracy_of(raw)


def _store_as_written(store: Store, raw: dict[str, Any]) -> None:
    """The row the code of the file's version stored: its own JSON, untouched, and the indexed columns."""
    r = Result.from_dict(raw)
    store.save(r)
    with store.engine.begin() as conn:
        conn.execute(runs.update().where(runs.c.run_id == r.run_id)
                     .values(result_json=json.dumps(raw), schema_version=raw["schema_version"]))


@pytest.fixture(scope="module")
def golden_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Every golden file of every version in one store (a file that is a later version's view of a run already
    stored, same run_id, is that run: stored once, as its first version wrote it)."""
    db = str(tmp_path_factory.mktemp("golden") / "db.sqlite")
    store = Store(db)
    seen: set[str] = set()
    for path in FILES:
        raw = _raw(path)
        if raw["run_id"] not in seen:
            _store_as_written(store, raw)
            seen.add(raw["run_id"])
    return db


def _report(db: str, fmt: str, tmp_path: Path) -> str:
    out = tmp_path / f"report.{fmt}"
    assert main(["report", "--out", str(out), "--db", db, "--history", "5"]) == 0
    return out.read_text()


def test_goldens_render_in_report(golden_db: str, tmp_path: Path) -> None:
    html, md, csv_text = (_report(golden_db, fmt, tmp_path) for fmt in ("html", "md", "csv"))
    rows = {r["run_id"]: r for r in csv.DictReader(io.StringIO(csv_text))}
    shown = set(rows)  # the report shows the newest result of each configuration
    assert md.count("\n## Accuracy\n") == 1  # the accuracy golden's section
    assert {raw["status"] for raw in map(_raw, FILES) if raw["run_id"] in shown} == {"ok", "failed", "skipped"}
    assert len({(_raw(p)["status"], p.stem) for p in FILES if _raw(p)["run_id"] in shown}) == len(
        kinds_of(RESULT_SCHEMA_VERSION))
    for path in FILES:
        raw = _raw(path)
        if raw["run_id"] not in shown:
            continue
        row = rows[raw["run_id"]]
        assert row["status"] == raw["status"]
        if raw["status"] == "ok" and raw.get("phone"):  # benchmark_model's statistics: p99 absent, not 0
            assert row["p99_ms"] == "" and float(row["p50_ms"]) == raw["latency_ms"]["p50"]
            assert row["latency_source"] == "benchmark_model" and row["power_source"].startswith("battery")
            assert f"{raw['device']}: latency is benchmark_model's own statistics" in md
            assert "benchmark_model prints no per-run times" in html
        elif raw["status"] == "ok" and raw.get("generation"):  # no forward-pass latency: empty, never 0
            assert row["p99_ms"] == "" and row["p50_ms"] == ""
            g = raw["generation"]
            section = md.split("\n## Generation\n", 1)[1].split("\n## ", 1)[0]
            assert f"| tg{g['tokens']} |" in section and f"{g['decode_tps']['mean']:.2f} ± " in section
            assert f"<td class=\"l\">tg{g['tokens']}</td>" in html and float(row["decode_tps"]) == g["decode_tps"]["mean"]
        elif raw["status"] == "ok":
            p99 = raw["latency_ms"]["p99"]
            assert float(row["p99_ms"]) == p99 and row["latency_source"] == "samples"
            assert f'data-v="{p99:.6g}"' in html and fmt_value(p99) in md
            acc = _accuracy_of(raw)
            if acc is not None:
                assert float(row["top1"]) == acc["top1"] and float(row["top5"]) == acc["top5"]
                assert int(row["accuracy_samples"]) == acc["samples"]
                section = md.split("\n## Accuracy\n", 1)[1].split("\n## ", 1)[0]
                assert f"| {fmt_value(acc['top1'], '%')} |" in section
            else:
                assert row["top1"] == ""
            if raw["power"]:
                assert float(row["mj_per_inference"]) == raw["power"]["energy_mj_per_inference"]
                assert row["power_source"].startswith("rpi5-pmic sum(")
                assert fmt_value(raw["power"]["energy_j"], "J") in html  # the trace's window title
                assert fmt_value(raw["power"]["energy_mj_per_inference"]) in md
        else:
            assert row["reason"] == raw["reason"]
            assert raw["reason"] in md and re.sub("'", "&#x27;", raw["reason"]) in html


def test_a_section_missing_a_required_field_is_named() -> None:
    raw = _raw(GOLDEN / f"v{RESULT_SCHEMA_VERSION}" / "ok_local_ds_cnn.json")
    lat = {k: v for k, v in raw["latency_ms"].items() if k != "p97"}
    with pytest.raises(StoreError, match="section 'latency_ms' lacks field.*'p97'"):
        Result.from_dict({**raw, "latency_ms": lat})


def test_every_run_setting_has_a_home_in_the_stored_settings() -> None:
    import dataclasses

    from edgeprof.records import Settings
    from edgeprof.vocab import SETTINGS

    assert set(SETTINGS) <= {f.name for f in dataclasses.fields(Settings)}  # a sweep row stores its cell's


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_assigning_to_a_loaded_results_field_raises(path: Path) -> None:
    """A Result is built once (run/assemble.py) and never changed afterwards: a derived one is
    dataclasses.replace(result, ...), which leaves the loaded one as it was."""
    import dataclasses

    r = Result.from_dict(_raw(path))
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.status = "failed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.warnings = []  # type: ignore[misc]
    derived = dataclasses.replace(r, reason="derived")
    assert derived.reason == "derived" and r.reason == Result.from_dict(_raw(path)).reason


def _v9(device: Any) -> dict[str, Any]:
    """A schema 9 result (the v9 sweep row) whose environment.device is `device`."""
    raw = _raw(GOLDEN / "v9" / "failed_sweep_row.json")
    return dict(raw, environment=dict(raw["environment"], device=device))


def test_migration_9_to_10_types_every_shape_schema_9_stored() -> None:
    # a sweep row's {} and a missing object: no facts were read
    assert Result.from_dict(_v9({})).environment.device is None
    # a phone run whose facts could not be read kept only its kind: a phone's record, every fact unknown
    bare = Result.from_dict(_v9({"kind": "phone"})).environment
    assert bare.device == PhoneDeviceFacts() and bare.fact("board_model") is None
    # partial board facts (a hand-made or old row): kept, the rest unknown; an L4T release given as text kept as both
    env = Result.from_dict(_v9({"cpu": "ARMv8", "cores": 6, "l4t": "R36.3.0"})).environment
    assert isinstance(env.device, BoardFacts) and (env.fact("cpu"), env.fact("cores")) == ("ARMv8", 6)
    assert env.fact("l4t") == L4TRelease(release="R36.3.0", raw="R36.3.0") and env.fact("hostname") is None
    assert env.device.to_dict()["kind"] == "board"
    # a fact no record of its kind has is refused by name, not dropped
    with pytest.raises(StoreError, match="'environment.device' has unknown field.*'serial'"):
        Result.from_dict(_v9({"cpu": "ARMv8", "serial": "x"}))


def test_schema_10_device_needs_a_known_kind() -> None:
    d = Result.from_dict(_raw(GOLDEN / "v10" / "ok_local_ds_cnn.json")).to_dict()
    d["environment"]["device"]["kind"] = "toaster"
    with pytest.raises(StoreError, match="kind 'toaster', not one of 'board', 'phone'"):
        Result.from_dict(d)
    d["environment"]["device"] = {"cpu": "x"}  # schema 10 always names the kind
    with pytest.raises(StoreError, match="kind None"):
        Result.from_dict(d)
