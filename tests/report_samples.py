"""Synthetic but realistic results for report tests: three boards, two models, power traces, failed and skipped
cells, and a week of nightly history with a step on one configuration. Seeded; no measurement involved."""

from __future__ import annotations

import dataclasses
import datetime as dt

import numpy as np

from edgeprof.analysis.stats import latency_summary
from edgeprof.lab import sweep_state as ledger
from edgeprof.lab.spec import Cell
from edgeprof.records import (
    Accuracy,
    BoardFacts,
    Environment,
    Memory,
    NullReasons,
    Power,
    Result,
    RuntimeFacts,
    RunWarning,
    SweepInfo,
)
from edgeprof.store import Store, sweeps

BOARDS = {
    "orin-nano": {"board_model": "NVIDIA Jetson Orin Nano Developer Kit", "cpu": "ARMv8 Processor rev 1 (v8l)",
                  "arch": "aarch64", "cores": 6, "memory_mb": 7620.0, "os": "Ubuntu 22.04.4 LTS",
                  "kernel": "5.15.136-tegra", "python": "3.10.12", "l4t": {"release": "R36.3.0", "raw": "# R36 (release), REVISION: 3.0, GCID: 36191598, BOARD: generic, EABI: aarch64"}, "hostname": "orin-nano-01"},
    "rpi5": {"board_model": "Raspberry Pi 5 Model B Rev 1.0", "cpu": "Cortex-A76", "arch": "aarch64", "cores": 4,
             "memory_mb": 8050.0, "os": "Debian GNU/Linux 12 (bookworm)", "kernel": "6.6.31+rpt-rpi-2712",
             "python": "3.11.2", "hostname": "pi5-lab"},
    "x86-t4": {"cpu": "Intel(R) Xeon(R) Silver 4210R", "arch": "x86_64", "cores": 20, "memory_mb": 64000.0,
               "os": "Ubuntu 22.04.4 LTS", "kernel": "6.5.0-41-generic", "python": "3.10.12", "hostname": "t4-box"},
}
# (board, model) → (p50 ms, watts, idle watts)
PERF = {("orin-nano", "mobilenet_v2"): (6.1, 7.4, 4.9), ("rpi5", "mobilenet_v2"): (21.0, 6.2, 3.1),
        ("x86-t4", "mobilenet_v2"): (2.3, 58.0, 31.0), ("orin-nano", "ds_cnn"): (0.42, 5.6, 4.9),
        ("rpi5", "ds_cnn"): (0.95, 4.1, 3.1), ("x86-t4", "ds_cnn"): (0.12, 38.0, 31.0)}
POWER_SOURCE = {"orin-nano": ("jetson-ina3221", "VDD_IN", "module input (VDD_IN): SoC, DRAM and module; not the "
                              "carrier board or wall"),
                "rpi5": ("rpi5-pmic", "PMIC sum", "sum of PMIC rails (PMIC side only, not EXT5V input)"),
                "x86-t4": ("nvml", "GPU board", "the GPU board only (NVML), not the host")}


def make_result(board: str, model: str, runtime: str = "onnxruntime", precision: str = "fp32", *, day: int = 0,
                slow: float = 1.0, seed: int = 0, sweep_id: str | None = None, n: int = 800,
                power: bool = True) -> Result:
    rng = np.random.default_rng(seed)
    p50, watts, idle = PERF[(board, model)]
    if precision == "int8":
        p50, watts = p50 * 0.55, watts * 0.93
    p50 *= slow
    samples = p50 * np.exp(rng.normal(0, 0.035, n))
    tail = rng.random(n) < 0.02
    samples[tail] *= 1 + rng.exponential(0.6, int(tail.sum()))
    samples_l = [float(x) for x in samples]
    lat = latency_summary(samples_l)
    window = float(np.sum(samples) / 1000.0)
    created = (dt.datetime(2026, 11, 20, 2, 0, tzinfo=dt.timezone.utc) + dt.timedelta(days=day, minutes=seed % 50))
    pw = None
    if power:
        src, rail, covers = POWER_SOURCE[board]
        ts = np.linspace(0, window, 120)
        w = watts * (1 + 0.04 * np.sin(ts * 3.1) + rng.normal(0, 0.015, ts.size))
        its = np.linspace(0, 3.0, 30)
        iw = idle * (1 + rng.normal(0, 0.01, its.size))
        energy = float(np.mean(w) * window)
        pw = Power.from_dict({"source": src, "rail": rail, "covers": covers, "method": "trapezoid", "rate_hz": 50.0,
              "window_s": window, "n_samples": 120, "mean_w": float(np.mean(w)), "p95_w": float(np.percentile(w, 95)),
              "idle_w": float(np.mean(iw)), "dynamic_w": float(np.mean(w) - np.mean(iw)), "energy_j": energy,
              "energy_mj_per_inference": energy * 1000 / n, "inferences_per_joule": n / energy,
              "gflops_per_watt": (0.6 if model == "mobilenet_v2" else 0.005) * 1000 / p50 / float(np.mean(w)),
              "trace": {"t_s": [round(float(x), 4) for x in ts], "w": [round(float(x), 4) for x in w]},
              "idle_trace": {"t_s": [round(float(x), 4) for x in its], "w": [round(float(x), 4) for x in iw]},
              "warnings": []})
    facts = dict(BOARDS[board])
    r = Result(run_id=f"{created:%Y%m%d-%H%M%S}-{seed:06x}", status="ok", created_at=created.isoformat(), device=board,
               model=model, runtime=runtime, precision=precision, batch=1, threads=None, latency_ms=lat,
               throughput_ips=n / window, memory_mb=Memory(rss_before_load=30.0, rss_after_load=60.0 + p50,
                                                           peak_rss=70.0 + p50),
               power=pw, thermal=None, fidelity=None,
               environment=Environment(device=BoardFacts.from_dict(facts), runtime=RuntimeFacts(
                   runtime=runtime, version="1.23.2", providers=["CPUExecutionProvider"]),
                                       agent_version="0.1.0",
                                       host={"hostname": "lab-controller", "python": "3.11.7"}),
               warnings=[], samples_ms=samples_l)
    if lat.cv and lat.cv > 0.1:
        r.warnings.append(RunWarning("high_cv", f"latency CV {lat.cv * 100:.0f} % (> 10 %): lock clocks or raise "
                                     "--min-duration"))
    if not power:
        r = dataclasses.replace(r, null_reasons=NullReasons(power="no power sensor found"))
    if sweep_id:
        r = dataclasses.replace(r, sweep=SweepInfo(sweep_id=sweep_id,
                                                   cell_id=f"{board}/{model}/{runtime}/{precision}/b1/tauto",
                                                   model_label=model, budgets=["p99_ms < 50"]))
    if (board, model) == ("orin-nano", "mobilenet_v2"):  # scored on a labelled set: int8 costs 1.2 points
        top1 = 71.9 - (1.2 if precision == "int8" else 0.0)
        n_acc = 500
        hits = int(round(top1 * n_acc / 100))
        r = dataclasses.replace(r, accuracy=Accuracy(
            data="imagenet-val-500.npz", sha256="5e" * 32, samples=n_acc, inferences=n_acc, per_inference=1,
            duration_s=9.5, output="logits", classes=1000, top1=100.0 * hits / n_acc, top5=90.4,
            predicted=[i % 1000 for i in range(n_acc)], label_rank=[0] * hits + [None] * (n_acc - hits)))
    return r


def failed_result(board: str, model: str, reason: str, status: str = "failed", day: int = 6,
                  runtime: str = "onnxruntime", sweep_id: str | None = None) -> Result:
    created = dt.datetime(2026, 11, 20, 3, 0, tzinfo=dt.timezone.utc) + dt.timedelta(days=day)
    r = Result(run_id=f"{created:%Y%m%d-%H%M%S}-{len(board) * 4099 + len(model) * 7 + len(status):06x}",
               status=status, created_at=created.isoformat(), device=board, model=model, runtime=runtime,
               precision="fp32", batch=1, threads=None, latency_ms=None, throughput_ips=None, memory_mb=None,
               power=None, thermal=None, fidelity=None, environment=Environment(), warnings=[], samples_ms=[],
               reason=reason)
    if status == "failed":
        r = dataclasses.replace(r, stderr_tail="Traceback (most recent call last):\n  ...\nMemoryError: std::bad_alloc")
    if sweep_id:
        r = dataclasses.replace(r, sweep=SweepInfo(sweep_id=sweep_id, model_label=model,
                                                   attempts=3 if status == "failed" else 1))
    return r


def populate(store: Store, nights: int = 7) -> str:
    """A week of nightly sweeps; returns the last one's id. rpi5 mobilenet_v2 is 35 % slower in the last two
    nights; in the last night rpi5 ds_cnn failed (board unreachable) and a TensorRT cell on rpi5 was skipped."""
    sweep_id = ""
    for night in range(nights):
        sweep_id = f"sw-202611{20 + night:02d}-020000-{night:04x}"
        last = night == nights - 1
        results = []
        seed = night * 100
        for board, model in PERF:
            seed += 1
            if last and (board, model) == ("rpi5", "ds_cnn"):
                results.append(failed_result(board, model, "device rpi5 (10.0.0.4:22): connection refused — is "
                                             "sshd running on the board? (gave up after 3 attempts)",
                                             day=night, sweep_id=sweep_id))
                continue
            slow = 1.35 if (board, model) == ("rpi5", "mobilenet_v2") and night >= nights - 2 else 1.0
            results.append(make_result(board, model, day=night, slow=slow, seed=seed, sweep_id=sweep_id))
        results.append(make_result("orin-nano", "mobilenet_v2", precision="int8", day=night, seed=seed + 50,
                                   sweep_id=sweep_id))
        if last:
            results.append(failed_result("rpi5", "mobilenet_v2", "tensorrt needs an NVIDIA GPU; device rpi5 has none",
                                         status="skipped", runtime="tensorrt", day=night, sweep_id=sweep_id))
        cells = [Cell(model=r.model, model_label=r.model, device=r.device, runtime=r.runtime, precision=r.precision,
                      batch=1, threads=None, settings={}, budgets=["p99_ms < 50"]) for r in results]
        results = [dataclasses.replace(r, sweep=dataclasses.replace(r.sweep or SweepInfo(), cell_id=c.cell_id))
                   for c, r in zip(cells, results, strict=True)]
        ledger.create_sweep(store, sweep_id, "nightly", None, {"name": "nightly"}, cells)
        for c, r in zip(cells, results, strict=True):
            ledger.commit_cell(store, sweep_id, c, r, 1)
        with store.engine.begin() as conn:
            conn.execute(sweeps.update().where(sweeps.c.sweep_id == sweep_id)
                         .values(created_at=f"2026-11-{20 + night:02d}T02:00:00+00:00", status="done"))
    return sweep_id
