"""edgeprof/generative/stats.py: the generation figures from raw per-token times, computed by hand here, and energy
per phase from a power trace (a constant power gives exactly W × phase time ÷ tokens)."""

from __future__ import annotations

import json
import statistics

import numpy as np
import pytest

from edgeprof.generative.records import Generation
from edgeprof.generative.stats import (
    PhaseWindow,
    generation_summary,
    integrate_power,
    phase_energy,
    repetition_figures,
    spread,
    windows_of,
)


def test_one_repetition_by_hand():
    # prompt 8 tokens in 4 ms; tokens: the first's pick 0.5 ms, then decode steps 2, 3, 5 ms
    f = repetition_figures(4_000_000, [500_000, 2_000_000, 3_000_000, 5_000_000], prompt_tokens=8)
    assert f.prefill_ms == 4.0
    assert f.prefill_tps == 2000.0  # 8 tokens / 0.004 s
    assert f.ttft_ms == 4.5  # prefill + the first token; load not in it
    assert f.e2e_ms == 14.5
    assert f.itl_ms == (2.0, 3.0, 5.0)
    assert f.tpot_ms == (14.5 - 4.5) / 3  # MLPerf: (e2e - TTFT) / (tokens - 1)
    assert f.decode_tps == 3 / 0.010  # the tokens after the first over their time


def test_one_generated_token_has_no_tpot_nor_decode_rate():
    f = repetition_figures(1_000_000, [250_000], prompt_tokens=4)
    assert f.ttft_ms == 1.25 and f.itl_ms == () and f.tpot_ms is None and f.decode_tps is None


@pytest.mark.parametrize("prefill,tokens", [(0, [1]), (5, [1, 0]), (5, [])])
def test_non_positive_or_missing_times_are_refused(prefill, tokens):
    with pytest.raises(ValueError):
        repetition_figures(prefill, tokens, prompt_tokens=1)


def test_spread_is_mean_and_sample_stdev():
    s = spread([1.0, 2.0, 4.0])
    assert s.mean == pytest.approx(7 / 3, abs=1e-15)
    assert s.std == pytest.approx(statistics.stdev([1.0, 2.0, 4.0]), abs=1e-15)  # ddof 1
    assert (s.min, s.max, s.n) == (1.0, 4.0, 3)
    assert spread([3.0]).std is None


def _raw(reps):
    return {"prompt_tokens": 8, "gen_tokens": 4, "depth": 16, "load_ns": 7_000_000,
            "runtime": {"runtime": "onnxruntime-genai", "version": "0.18.0"},
            "memory": {"peak_rss_bytes": 123}, "kv_cache": {"bytes": 4096},
            "repetitions": [{"prefill_ns": p, "token_ns": t} for p, t in reps]}


def test_summary_over_repetitions_and_pooled_itl_percentiles():
    raw = _raw([(4_000_000, [500_000, 2_000_000, 3_000_000, 5_000_000]),
                (6_000_000, [500_000, 1_000_000, 1_000_000, 4_000_000])])
    g = generation_summary(raw)
    assert (g.runtime, g.prompt_tokens, g.tokens, g.depth, g.repetitions) == ("onnxruntime-genai", 8, 4, 16, 2)
    assert g.ttft_ms.mean == 5.5 and g.ttft_ms.std == pytest.approx(statistics.stdev([4.5, 6.5]))
    assert g.prefill_tps.mean == (2000.0 + 8 / 0.006) / 2
    assert g.tpot_ms is not None and g.tpot_ms.mean == pytest.approx(((10 / 3) + 2.0) / 2)
    assert g.decode_tps is not None and g.decode_tps.min == 300.0 and g.decode_tps.max == 500.0
    pooled = [2.0, 3.0, 5.0, 1.0, 1.0, 4.0]
    assert g.itl_ms is not None and g.itl_ms.n == 6
    assert g.itl_ms.p50 == float(np.percentile(pooled, 50))  # numpy's linear interpolation, as stats.py
    assert g.itl_ms.p99 == float(np.percentile(pooled, 99)) and g.itl_ms.max == 5.0  # nothing clipped
    assert g.token_ns[1] == [500_000, 1_000_000, 1_000_000, 4_000_000] and g.prefill_ns == [4_000_000, 6_000_000]
    assert (g.load_ms, g.peak_rss_bytes, g.kv_cache_bytes) == (7.0, 123, 4096)


def test_summary_refuses_a_repetition_short_of_tokens():
    with pytest.raises(ValueError, match="3 token times, not gen_tokens=4"):
        generation_summary(_raw([(4_000_000, [1, 2, 3])]))


def test_generation_section_round_trips_through_json():
    raw = _raw([(4_000_000, [500_000, 2_000_000, 3_000_000, 5_000_000])])
    win = [PhaseWindow(0.0, 0.0045, 0.0145)]
    g = generation_summary(raw, energy=phase_energy([0.0, 1.0], [2.0, 2.0], win, 8, 4, source="test"))
    back = Generation.from_dict(json.loads(json.dumps(g.to_dict())))
    assert back == g
    assert back.ttft_ms.std is None and back.energy is not None and back.energy.source == "test"


# -------------------------------------------------------------------------------------------------- energy
def test_constant_power_gives_exactly_watts_times_phase_time_over_tokens():
    # dyadic times: every product and sum below is exact in binary floating point
    t = [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0]
    w = [4.0] * len(t)
    wins = [PhaseWindow(0.125, 0.375, 0.875), PhaseWindow(1.0, 1.125, 1.875)]
    e = phase_energy(t, w, wins, prompt_tokens=16, gen_tokens=9)
    assert e.prefill_s == 0.375 and e.decode_s == 1.25
    assert e.prefill_j == 4.0 * 0.375 and e.decode_j == 4.0 * 1.25
    assert e.j_per_prompt_token == 4.0 * 0.375 / 32  # W × prefill time ÷ prompt tokens (2 repetitions)
    assert e.j_per_token == 4.0 * 1.25 / 16  # W × decode time ÷ decode tokens (8 per repetition)
    assert e.prefill_mean_w == 4.0 and e.decode_mean_w == 4.0
    assert e.tokens_per_j == 16 / 5.0


def test_constant_power_on_irregular_times_matches_to_rounding():
    rng = np.random.default_rng(1)
    t = np.cumsum(rng.uniform(0.001, 0.02, 500))
    win = PhaseWindow(float(t[10]) + 1e-4, float(t[200]) + 3e-4, float(t[480]) - 2e-4)
    e = phase_energy(t.tolist(), [3.3] * t.size, [win], prompt_tokens=64, gen_tokens=33)
    assert e.j_per_prompt_token == pytest.approx(3.3 * (win.first_token_end_s - win.prefill_start_s) / 64, rel=1e-12)
    assert e.j_per_token == pytest.approx(3.3 * (win.end_s - win.first_token_end_s) / 32, rel=1e-12)


def test_linear_power_is_integrated_with_interpolated_edges():
    # P(t) = 10 t on readings every second; the window 0.5..2.5 s: ∫10t dt = 5 (2.5² - 0.5²) = 30 J
    assert integrate_power([0.0, 1.0, 2.0, 3.0], [0.0, 10.0, 20.0, 30.0], 0.5, 2.5) == 30.0


def test_two_phases_see_their_own_power():
    # 2 W while prefilling (0..1 s), 6 W while decoding (1..3 s), a step between readings at 1 s and 1 s + ε
    t, w = [0.0, 1.0, 1.0 + 1e-9, 3.0], [2.0, 2.0, 6.0, 6.0]
    e = phase_energy(t, w, [PhaseWindow(0.0, 1.0, 3.0)], prompt_tokens=4, gen_tokens=5)
    assert e.prefill_mean_w == 2.0 and e.j_per_prompt_token == 0.5
    assert e.decode_mean_w == pytest.approx(6.0, rel=1e-8) and e.j_per_token == pytest.approx(3.0, rel=1e-8)


def test_a_trace_that_does_not_cover_the_window_is_refused_not_extrapolated():
    with pytest.raises(ValueError, match="does not cover"):
        integrate_power([1.0, 2.0], [1.0, 1.0], 0.5, 1.5)
    with pytest.raises(ValueError, match="increase"):
        integrate_power([0.0, 0.0, 1.0], [1.0, 1.0, 1.0], 0.0, 1.0)


def test_windows_from_the_agents_stamps():
    raw = {"repetitions": [{"t_prefill_start_ns": 2_000_000_000, "t_first_token_end_ns": 2_500_000_000,
                            "t_end_ns": 4_000_000_000}]}
    assert windows_of(raw, origin_ns=1_000_000_000) == [PhaseWindow(1.0, 1.5, 3.0)]
