"""Generation results with a load scenario, for the report's tests (records only, no runtime): the stored golden
generation (tests/data/golden/results/v12/ok_local_generation.json) given a server section (raw TTFT and TPOT
per request, p99 and verdict by generative/scenario.py's own loadgen_percentile and judge) or a sustained
section (windows as a board throttling during a long answer gives them: the clock halves, decode tokens/s with
it). Seeded."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edgeprof.generative.scenario import judge, loadgen_percentile
from edgeprof.records import Result
from edgeprof.records.generation import GenScenario, GenWindow
from edgeprof.session.generation import scenario_section
from edgeprof.store import Store

GOLDEN = Path(__file__).resolve().parent / "data/golden/results/v12/ok_local_generation.json"


def _base(device: str, run_id: str) -> Result:
    d = copy.deepcopy(json.loads(GOLDEN.read_text()))
    d["run_id"], d["device"] = run_id, device
    return Result.from_dict(d)


def _with(r: Result, sc: GenScenario) -> Result:
    assert r.generation is not None
    g = dataclasses.replace(r.generation, scenario=sc)
    return dataclasses.replace(r, generation=g, scenario=scenario_section(g))  # as session/generation.py stores it


def server_result(device: str, run_id: str, *, rate: float, requests: int, seed: int,
                  ttft_bound_ms: float | None = None, tpot_bound_ms: float | None = None) -> Result:
    """A server run: `requests` TTFTs and TPOTs drawn from a seeded queue-like spread, the p99s and the verdict
    as scenario_of makes them."""
    rng = random.Random(seed)
    ttft = [40.0 + rng.expovariate(1 / 25.0) for _ in range(requests)]
    tpot = [8.0 + rng.expovariate(1 / 2.0) for _ in range(requests)]
    t99, p99 = loadgen_percentile(ttft, 0.99), loadgen_percentile(tpot, 0.99)
    valid, reason = judge(t99, p99, ttft_bound_ms, tpot_bound_ms)
    return _with(_base(device, run_id), GenScenario(
        name="server", requests=requests, rate_rps=rate, seed=seed, ttft_ms=ttft, tpot_ms=tpot,
        latency_ms=[a + b * 31 for a, b in zip(ttft, tpot, strict=True)], ttft_p99_ms=t99, tpot_p99_ms=p99,
        ttft_bound_ms=ttft_bound_ms, tpot_bound_ms=tpot_bound_ms, valid=valid, valid_reason=reason))


# (decode tokens/s or None, °C, CPU MHz, GPU MHz or None) per 1 s window
PI5_WINDOWS = [(813.0, 71.5, 2400.0, None), (414.25, 82.0, 1200.0, None), (430.5, 84.25, 1200.0, None),
               (None, 84.75, 1200.0, None)]  # the last window: a request's prefill only, no decode step ended
ORIN_WINDOWS = [(955.5, 48.0, 1510.4, 624.75), (951.0, 49.5, 1510.4, 624.75), (948.25, 50.125, 1510.4, 306.0)]


def sustained_result(device: str, run_id: str, windows: list[tuple[float | None, float, float, float | None]],
                     window_s: float = 1.0, readings: Sequence[dict[str, Any]] = ()) -> Result:
    """`readings`: per window, more of its fields (throttled; board: the agent's window record, e.g. NVML's)."""
    ws = []
    for i, (tps, temp, cpu, gpu) in enumerate(windows):
        decode = 0 if tps is None else int(tps * window_s * 0.9)
        ws.append(GenWindow(index=i, start_s=i * window_s, end_s=(i + 1) * window_s, requests=1 + i % 2,
                            token_first=0, tokens=decode + 1, decode_tokens=decode, decode_tps=tps,
                            ttft_p50_ms=35.0 + i, temp_c=temp, cpu_mhz=cpu, cpu_mhz_min=cpu, gpu_mhz=gpu,
                            mean_w=6.5 - i * 0.25, **(readings[i] if i < len(readings) else {})))
    return _with(_base(device, run_id), GenScenario(
        name="sustained", requests=len(ws) + 2, duration_s=len(ws) * window_s, window_s=window_s, windows=ws,
        valid_reason="no verdict: a sustained run is not judged against bounds"))


def populate(store: Store) -> list[Result]:
    """Three server runs (VALID, INVALID, no bound) and two sustained runs, saved; returned as built."""
    runs = [server_result("pi5", "20260101-000000-srv-ok", rate=0.5, requests=120, seed=1, ttft_bound_ms=2000.0,
                          tpot_bound_ms=100.0),
            server_result("pi5", "20260101-000000-srv-bad", rate=4.0, requests=120, seed=2, ttft_bound_ms=50.0,
                          tpot_bound_ms=9.0),
            server_result("orin-nano", "20260101-000000-srv-none", rate=1.0, requests=80, seed=3),
            sustained_result("pi5", "20260101-000000-sus-pi5", PI5_WINDOWS),
            sustained_result("orin-nano", "20260101-000000-sus-orin", ORIN_WINDOWS)]
    for r in runs:
        store.save(r)
    return runs
