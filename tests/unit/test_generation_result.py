"""The `generation` section on the host (schema 10): made from the agent's generate reply (generative/reply.py),
shown as llama-bench rows and lines (generative/table.py), read as metrics that compare, budgets and check use
(compare.py, vocab.GENERATION_METRICS), and migrated into from older results (records/schema.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from edgeprof.analysis.compare import absent_reason, compare_results, metric_values, raw_samples
from edgeprof.analysis.regress import budget_findings, parse_budget
from edgeprof.generative.reply import generation_of
from edgeprof.generative.table import (
    bench_markdown,
    bench_rows,
    bench_rows_of,
    bench_test_name,
    generation_lines,
)
from edgeprof.lab.history import checked_metrics
from edgeprof.records import RESULT_KEYS, RESULT_SCHEMA_VERSION, RESULT_TAIL_KEYS, Generation, Result
from edgeprof.vocab import CHECKED_GENERATION, CHECKED_METRICS, GENERATION_METRICS, METRIC_BY_NAME
from edgeprof_agent import PROTOCOL_VERSION
from edgeprof_agent import messages as m

DATA = Path(__file__).resolve().parents[1] / "data" / "golden"
GOLDEN_REPLY = DATA / "messages" / f"v{PROTOCOL_VERSION}" / "generate_reply.json"
GOLDEN_RESULT = DATA / "results" / "v10" / "ok_local_generation.json"


def _reply(**changes: Any) -> m.GenerateReply:
    raw = json.loads(GOLDEN_REPLY.read_text())
    raw.update(changes)
    return m.GenerateReply.from_dict(raw)


def _result() -> Result:
    return Result.from_dict(json.loads(GOLDEN_RESULT.read_text()))


# -- generation_of: the reply's raw figures and power readings → the section ------------------------------------


def _covered_reply() -> m.GenerateReply:
    """The golden reply with both repetitions a few ms long, and power rising linearly 4 → 8 W over them."""
    raw = json.loads(GOLDEN_REPLY.read_text())
    rep = raw["repetitions"][1]
    rep["token_ns"] = m.PACKED_INT64.encode([40_000, 1_050_000, 900_000])
    rep["t_end_ns"] = 22_140_010 + 1_950_000 + 20
    raw["power_readings"]["t_ns"] = m.PACKED_INT64.encode([9_000_000, 29_000_000])
    raw["power_readings"]["w"] = [4.0, 8.0]
    return m.GenerateReply.from_dict(raw)


def _linear_j(t0_ns: int, t1_ns: int) -> float:
    """The exact energy of P(t) = 4 + 4 (t - 9 ms) / 20 ms W between two stamps."""
    def p(t: int) -> float:
        return 4.0 + 4.0 * (t - 9_000_000) / 20_000_000

    return (p(t0_ns) + p(t1_ns)) / 2 * (t1_ns - t0_ns) / 1e9


def test_the_section_holds_the_reply_s_raw_times_and_its_statistics() -> None:
    reply = _covered_reply()
    g = generation_of(reply)
    assert (g.runtime, g.prompt_tokens, g.tokens, g.depth, g.repetitions, g.n_ctx, g.seed) == (
        "llama.cpp", 4, 3, 5, 2, 12, 0)
    assert g.token_ns == [[50_000, 1_000_000, 1_100_000], [40_000, 1_050_000, 900_000]]
    assert g.prefill_ns == [2_000_000, 2_100_000] and g.depth_fill_ns == [900_000, 910_000]
    assert g.ttft_ms.mean == pytest.approx((2.05 + 2.14) / 2, rel=1e-12) and g.ttft_ms.n == 2
    assert g.decode_tps is not None and g.decode_tps.mean == pytest.approx((2 / 2.1e-3 + 2 / 1.95e-3) / 2, rel=1e-12)
    assert g.itl_ms is not None and g.itl_ms.n == 4 and g.itl_ms.max == 1.1
    assert g.windows_ns == [[0, 2_000_000, 2_050_010, 4_150_030], [10_000_000, 12_100_000, 12_140_010, 14_090_030]]
    assert g.warmup_prefill_ns == 2_500_000 and g.warmup_token_ns == [60_000, 1_200_000]
    assert g.kv_cache == reply.kv_cache.to_dict() and g.kv_cache_bytes == 524_288 and g.load_ms == 6.0
    assert g.sampling == reply.sampling


def test_energy_per_phase_integrates_every_reading_over_each_window() -> None:
    """A linear power trace: the trapezoid is exact, so each phase's energy is the integral of P over its windows."""
    reply = _covered_reply()
    e = generation_of(reply).energy
    assert e is not None and e.source == "rpi5-pmic"
    reps = reply.repetitions
    pre = sum(_linear_j(r.t_prefill_start_ns, r.t_first_token_end_ns) for r in reps)
    dec = sum(_linear_j(r.t_first_token_end_ns, r.t_end_ns) for r in reps)
    assert e.prefill_j == pytest.approx(pre, rel=1e-12) and e.decode_j == pytest.approx(dec, rel=1e-12)
    assert e.j_per_prompt_token == pytest.approx(pre / 8, rel=1e-12)  # 4 prompt tokens × 2 repetitions
    assert e.j_per_token == pytest.approx(dec / 4, rel=1e-12)  # (3 - 1) decode tokens × 2 repetitions
    assert e.tokens_per_j == pytest.approx(4 / dec, rel=1e-12)


def test_no_energy_says_why() -> None:
    """Readings that end before the last window are never extrapolated; no readings: the agent's reason."""
    g = generation_of(_reply())  # the golden's second repetition ends 2**40 ns later than its readings
    assert g.energy is None and g.energy_reason is not None and "does not cover the window" in g.energy_reason
    g = generation_of(_reply(power=None, power_readings=None, power_reason="no power sensor found: ..."))
    assert g.energy is None and g.energy_reason == "no power sensor found: ..."
    assert "  energy: none (no power sensor found: ...)" in generation_lines(g)


# -- the llama-bench rows and the lines ------------------------------------------------------------------------


def test_bench_rows_follow_llama_bench() -> None:
    assert (bench_test_name("pp", 512, 0), bench_test_name("tg", 128, 2048)) == ("pp512", "tg128 @ d2048")
    g = generation_of(_covered_reply())
    rows = bench_rows(g, model="llama_tiny", precision="q4_0", threads=4)
    assert [r.test for r in rows] == ["pp4 @ d5", "tg3 @ d5"] and rows[0].runtime == "llama.cpp"
    assert rows[0].tps == f"{g.prefill_tps.mean:.2f} ± {g.prefill_tps.std:.2f}" and rows[1].n == 2
    one = dataclasses.replace(g, decode_tps=None, tpot_ms=None)  # one generated token: no tg row
    assert [r.test for r in bench_rows(one, model="x")] == ["pp4 @ d5"]
    single = dataclasses.replace(rows[0], tps_std=None)
    assert single.tps == f"{g.prefill_tps.mean:.2f}"  # one repetition: no spread to show
    md = bench_markdown(rows, escape=lambda s: s.replace("|", "\\|")).splitlines()
    assert md[0].split("|")[1:-1] == [" model      ", " runtime   ", " precision ", " threads ", "     test ",
                                      "             t/s "]
    assert md[1].endswith(": |") and "| tg3 @ d5 |" in md[3] and md[3].rstrip("| ").endswith(rows[1].tps)
    assert "a\\|b" in bench_markdown([dataclasses.replace(rows[0], model="a|b")], escape=lambda s: s.replace(
        "|", "\\|"))


def test_the_lines_say_each_figure_and_where_it_comes_from() -> None:
    r = _result()
    g = r.generation
    assert g is not None and g.energy is not None and g.itl_ms is not None and g.decode_tps is not None
    text = "\n".join(generation_lines(g))
    assert "32 prompt tokens, 16 generated, depth 0, 3 repetitions" in text
    assert f"ITL p50 {g.itl_ms.p50:.2f} ms" in text or f"ITL p50 {g.itl_ms.p50:.3g} ms" in text
    assert "energy (hwmon)" in text and "48 per-token times and 3 prefill times kept" in text
    assert [x.test for x in bench_rows_of([r, dataclasses.replace(r, generation=None)])] == ["pp32", "tg16"]


def test_a_cuda_generation_s_gpu_memory_is_kept_beside_peak_rss_with_its_source() -> None:
    """The reply's memory.gpu (NVML after the load and after the last token) is the section's gpu_memory, next to
    peak_rss_bytes, shown in the memory line, and round-trips; a CPU generation has none, with the agent's reason;
    a section from before the field loads with neither."""
    raw = json.loads(GOLDEN_REPLY.read_text())
    source = ("NVML nvmlDeviceGetComputeRunningProcesses: this process's usedGpuMemory on GPU 1 (the request's "
              "gpu), read after the load and after the last token (not sampled in between)")
    raw["memory"].update(gpu={"after_load_bytes": 300 * 2**20, "end_bytes": 316 * 2**20, "gpu": 1,
                              "source": source}, gpu_reason=None)
    g = generation_of(m.GenerateReply.from_dict(raw))
    assert g.gpu_memory is not None and g.gpu_memory_reason is None
    assert (g.gpu_memory.after_load_bytes, g.gpu_memory.end_bytes, g.gpu_memory.gpu) == (300 * 2**20, 316 * 2**20, 1)
    assert g.gpu_memory.source == source
    d = g.to_dict()
    keys = list(d)
    assert keys.index("gpu_memory") == keys.index("peak_rss_bytes") + 1
    assert d["gpu_memory"] == raw["memory"]["gpu"] and "gpu_memory_reason" not in d
    assert Generation.from_dict(json.loads(json.dumps(d))) == g
    text = "\n".join(generation_lines(g))
    assert "GPU memory (GPU 1) after load 300 MiB, at the end 316 MiB (NVML)" in text
    cpu = generation_of(_reply())  # the golden reply: llama.cpp on the CPU
    assert cpu.gpu_memory is None and cpu.gpu_memory_reason == "not read: llama.cpp ran on the CPU"
    assert "GPU memory" not in "\n".join(generation_lines(cpu))
    old = _result().generation  # schema 10's golden: written before the field
    assert old is not None and old.gpu_memory is None and old.gpu_memory_reason is None
    assert "gpu_memory" not in old.to_dict() and "gpu_memory_reason" not in old.to_dict()


# -- metrics ----------------------------------------------------------------------------------------------------


def test_the_generation_metrics_are_declared_once_and_read_from_the_section() -> None:
    assert set(CHECKED_GENERATION) <= set(GENERATION_METRICS)
    assert {"decode_tps", "ttft_ms", "j_per_token"} <= set(GENERATION_METRICS) <= set(METRIC_BY_NAME)
    assert METRIC_BY_NAME["decode_tps"].better == "higher" and METRIC_BY_NAME["ttft_ms"].better == "lower"
    r = _result()
    g = r.generation
    assert g is not None and g.energy is not None and g.decode_tps is not None and g.tpot_ms is not None
    v = metric_values(r)
    assert (v["decode_tps"], v["ttft_ms"], v["tpot_ms"], v["prefill_tps"]) == (
        g.decode_tps.mean, g.ttft_ms.mean, g.tpot_ms.mean, g.prefill_tps.mean)
    assert (v["j_per_token"], v["j_per_prompt_token"], v["tokens_per_j"]) == (
        g.energy.j_per_token, g.energy.j_per_prompt_token, g.energy.tokens_per_j)
    assert v["p50_ms"] is None and v["throughput_ips"] is None  # no forward-pass latency


def test_compare_and_budgets_use_the_generation_metrics() -> None:
    base = _result()
    g = base.generation
    assert g is not None and g.decode_tps is not None and g.energy is not None
    slower = dataclasses.replace(base, generation=dataclasses.replace(  # every token after the first twice as slow
        g, decode_tps=dataclasses.replace(g.decode_tps, mean=g.decode_tps.mean / 2),
        token_ns=[rep[:1] + [2 * t for t in rep[1:]] for rep in g.token_ns],
        energy=dataclasses.replace(g.energy, j_per_token=g.energy.j_per_token * 2)))
    deltas = {d.metric.name: d for d in compare_results(base, slower)}
    assert deltas["decode_tps"].verdict == "regressed" and deltas["j_per_token"].verdict == "regressed"
    # the decode metrics are tested on the inter-token times; energy has no raw samples
    n_itl = sum(len(rep) - 1 for rep in g.token_ns)
    assert raw_samples(base, METRIC_BY_NAME["tpot_ms"]) == [t / 1e6 for rep in g.token_ns for t in rep[1:]]
    assert n_itl >= 8 and deltas["decode_tps"].p_value is not None and deltas["decode_tps"].p_value < 0.002
    assert deltas["ttft_ms"].verdict == "unchanged" and deltas["j_per_token"].p_value is None
    # the same decode mean on the same token times: not significant, whatever the stored mean says
    same_times = dataclasses.replace(base, generation=dataclasses.replace(
        g, decode_tps=dataclasses.replace(g.decode_tps, mean=g.decode_tps.mean / 2)))
    d = {x.metric.name: x for x in compare_results(base, same_times)}["decode_tps"]
    assert d.verdict == "unchanged" and "not significant" in d.note
    # TTFT: one value per repetition; with too few repetitions to reach alpha the effect alone decides, and says so
    late = dataclasses.replace(base, generation=dataclasses.replace(
        g, ttft_ms=dataclasses.replace(g.ttft_ms, mean=g.ttft_ms.mean * 2), prefill_ns=[2 * p for p in g.prefill_ns]))
    d = {x.metric.name: x for x in compare_results(base, late)}["ttft_ms"]
    assert len(g.prefill_ns) < 6 and d.verdict == "regressed" and d.p_value is None
    assert "cannot reach p < 0.002" in d.note
    findings = budget_findings(slower, [parse_budget(f"decode_tps > {g.decode_tps.mean * 0.75}"),
                                        parse_budget("ttft_ms < 10000")])
    assert [f.outcome for f in findings] == ["failed", "passed"]
    assert checked_metrics(base, None) == list(CHECKED_METRICS) + list(CHECKED_GENERATION)
    forward = Result.from_dict(json.loads((DATA / "results" / "v10" / "ok_local_ds_cnn.json").read_text()))
    assert checked_metrics(forward, None) == list(CHECKED_METRICS)
    assert absent_reason(forward, "decode_tps") == "not a generative model's run"
    no_energy = dataclasses.replace(base, generation=dataclasses.replace(g, energy=None, energy_reason="no sensor"))
    assert metric_values(no_energy)["j_per_token"] is None and absent_reason(no_energy, "j_per_token") == "no sensor"


# -- the stored form ----------------------------------------------------------------------------------------------


def test_generation_is_the_last_key_and_round_trips_with_every_raw_time() -> None:
    r = _result()
    d = r.to_dict()
    assert list(d) == list(RESULT_KEYS + RESULT_TAIL_KEYS) and list(d)[-1] == "generation"
    assert Result.from_dict(json.loads(r.to_json(packed=True))) == r
    assert isinstance(r.generation, Generation) and d["generation"]["token_ns"] == r.generation.token_ns


def test_a_schema_9_result_migrates_with_no_generation() -> None:
    raw = json.loads((DATA / "results" / "v9" / "ok_local_ds_cnn.json").read_text())
    assert "generation" not in raw
    r = Result.from_dict(raw)
    assert r.generation is None and r.schema_version == RESULT_SCHEMA_VERSION and r.to_dict()["generation"] is None
