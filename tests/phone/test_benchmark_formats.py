"""benchmark_model's output in every release format phones carry (tests/data/phones/benchmark_model, sources in its
SOURCES.md): what the build printed is kept as its own, what it did not print is absent with the reason, and a run
whose timed line gives no time is refused (one line), never stored ok. No adb here: the stand-in phone's runs of
the same formats are in test_phone_releases.py."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from edgeprof.errors import MeasurementFailed
from edgeprof.phone.benchmark import (
    NO_PERCENTILES,
    NOT_EMITTED,
    BenchmarkLatency,
    BenchmarkOutputError,
    parse_output,
    parse_stats,
)
from edgeprof.phone.facts import Thermal
from edgeprof.phone.result import NO_PERCENTILE_METHOD, PERCENTILE_METHOD, latency, phone_result
from edgeprof.phone.runner import PhoneMemory, PhoneRun
from edgeprof.records import Device, Result, RunSpec

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "phones" / "benchmark_model"


def capture(name: str) -> str:
    return (CAPTURES / f"{name}.txt").read_text()


def run_of(text: str) -> PhoneRun:
    """A PhoneRun built from an output as runner.PhoneRunner.measure builds it (no power, no thermal)."""
    p = parse_output(text)
    return PhoneRun(device="phone", command=["benchmark_model"], latency_ms=p.latency_ms(), init_ms=p.init_us / 1000,
                    first_inference_ms=p.first_inference_us / 1000 if p.first_inference_us is not None else None,
                    memory_mb=PhoneMemory(p.memory_init_mb, p.memory_overall_mb, p.peak_memory_mb), power=None,
                    power_reason="power measurement is off for this phone (power: source: none)",
                    thermal_before=Thermal(None), thermal_after=Thermal(None),
                    output=p, binary="benchmark_model")


def result_of(text: str) -> Result:
    dev = Device(name="phone", kind="adb", host="x", python="", workdir="/data/local/tmp/edgeprof")
    r = phone_result(RunSpec(model="m.tflite", runtime="tflite", device="phone"), dev, None, run_of(text), None,
                     delegate="xnnpack")
    return Result.from_dict(json.loads(r.to_json()))  # as stored and read back


# (capture, count, min, max, mean, std in ms as printed; p5, p50, p95 or None; init, first inference ms)
FORMATS = [
    ("litert", 124, 7.689, 9.894, 8.04357, 0.311, (7.721, 7.968, 8.602), 41.208, 15.873),
    ("tensorflow", 2100, 0.401, 0.900, 0.4582, 0.025, None, 3.118, 0.902),
    ("tensorflow-peak-footprint", 50, 2727.568, 3189.954, 2950.34, 109.798, None, 16.242, 3512.391),
    ("tensorflow-average", 50, 79.633, 83.351, 80.6601, 0.702, None, 4.108, 91.471),
    ("tensorflow-contrib", 50, 137.079, 143.416, 137.722, 0.896, None, 4.452, 146.161),
    ("all-same", 3, 52.0, 52.0, 52.0, 0.0, (52.0, 52.0, 52.0), 5.579, 1357.602),
]


@pytest.mark.parametrize("name, n, lo, hi, mean, std, pct, init, first", FORMATS, ids=[f[0] for f in FORMATS])
def test_each_release_is_stored_as_printed(name, n, lo, hi, mean, std, pct, init, first):
    r = result_of(capture(name))
    lat = r.latency_ms
    assert r.status == "ok" and lat is not None and lat.source == "benchmark_model"
    assert (lat.n, lat.min, lat.max, lat.std) == (n, pytest.approx(lo), pytest.approx(hi), pytest.approx(std))
    assert lat.mean == pytest.approx(mean)
    assert (lat.p90, lat.p99, lat.cv, r.throughput_ips, r.samples_ms) == (None, None, None, None, [])
    assert lat.absent_reason("p99") == NOT_EMITTED and lat.absent_reason("throughput_ips")
    if pct is None:  # the build printed no percentiles: null, each with the reason, none computed
        assert (lat.p5, lat.p50, lat.p95) == (None, None, None)
        assert [lat.absent_reason(k) for k in ("p5", "p50", "p95")] == [NO_PERCENTILES] * 3
        assert lat.percentile_method == NO_PERCENTILE_METHOD
    else:
        assert (lat.p5, lat.p50, lat.p95) == tuple(pytest.approx(v) for v in pct)
        assert lat.absent_reason("p50") is None and lat.percentile_method == PERCENTILE_METHOD
    assert r.phone is not None and r.phone.init_ms == pytest.approx(init)
    assert r.phone.first_inference_ms == pytest.approx(first)


def test_memory_lines_of_each_release():
    assert run_of(capture("litert")).memory_mb == PhoneMemory(32.0234, 33.4375, 41.0234)
    assert run_of(capture("tensorflow-peak-footprint")).memory_mb == PhoneMemory(4.92969, 138.809, None)
    assert parse_output(capture("tensorflow-peak-footprint")).memory_line == "Peak memory footprint"
    assert run_of(capture("tensorflow-contrib")).memory_mb == PhoneMemory(None, None, None)
    assert parse_output(capture("tensorflow-contrib")).summary_line == "Average inference timings in us (no stats)"


def test_warmup_of_a_single_run():
    """'count=1 curr=X': Stat's all-same branch; the one run's time is its min, max and mean."""
    r = result_of(capture("tensorflow-peak-footprint"))
    assert r.phone is not None and (r.phone.warmup_runs, r.phone.warmup_mean_ms) == (1, pytest.approx(3512.391))


@pytest.mark.parametrize("line, want", [
    ("count=5 curr=3000(all same)", {"count": 5, "curr": 3000.0, "all_same": True, "avg": None}),
    ("count=1 curr=77 p5=77 median=77 p95=77", {"count": 1, "median": 77.0, "all_same": True}),
    ("count=0", {"count": 0, "all_same": False}),
    ("count=9 first=8 curr=7 min=6 max=9 avg=7.5 std=1", {"avg": 7.5, "median": None, "all_same": False}),
    ("count=2 first=1.5e+06 curr=1e+06 min=1e+06 max=1.5e+06 avg=1.25e+06 std=250000",
     {"max": 1.5e6, "avg": 1.25e6}),
])
def test_stat_lines(line, want):
    s = parse_stats(f"INFO: {line}\n\n")
    assert {k: getattr(s, k) for k in want} == want


@pytest.mark.parametrize("name, why", [("dry-run", "the timed runs' line gives no time: count=0, no run was timed"),
                                       ("cut-short", "no count= line")])
def test_no_latency_is_not_a_finished_benchmark(name, why):
    with pytest.raises(BenchmarkOutputError, match=why):
        parse_output(capture(name))


def test_a_run_without_latency_is_never_stored_ok():
    """Belt and braces: a PhoneRun whose latency gives no time (not one parse_output lets through) is refused by
    phone_result, one line."""
    run = run_of(capture("tensorflow"))
    run.latency_ms = BenchmarkLatency(count=0)
    assert latency(run) is None
    dev = Device(name="phone", kind="adb", host="x", python="", workdir="/data/local/tmp/edgeprof")
    with pytest.raises(MeasurementFailed, match="benchmark_model's timed runs give no latency") as e:
        phone_result(RunSpec(model="m.tflite", runtime="tflite", device="phone"), dev, None, run, None,
                     delegate="xnnpack")
    assert "\n" not in e.value.message


def test_a_timed_line_without_times_is_refused():
    text = capture("tensorflow").replace("count=2100 first=470 curr=455 min=401 max=900 avg=458.2 std=25",
                                         "count=2100 first=470 curr=455")
    with pytest.raises(BenchmarkOutputError, match="gives no time: count=2100, with no min/max/avg/std"):
        parse_output(text)


def test_stored_and_reported_beside_a_build_with_percentiles(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """A result without p50 next to one with it: stored, `results show`, and every report view (the Markdown and
    HTML rankings order by p50: the one without comes last, its cells empty)."""
    import csv
    import io

    from edgeprof.cli.main import main
    from edgeprof.report.data import gather
    from edgeprof.report.html import render_html
    from edgeprof.report.tabular import render_csv, render_markdown
    from edgeprof.store import Store

    s = Store(str(tmp_path / "db.sqlite"))
    old = dataclasses.replace(result_of(capture("tensorflow")), threads=1)  # another configuration
    new = result_of(capture("litert"))
    for r in (old, new):
        s.save(r)
    data = gather(s)
    md = render_markdown(data)
    assert len(data.ok) == 2 and md.index("| phone | tflite | fp32 | 1 | auto |") < md.index("| phone | tflite | fp32 | 1 | 1 |")
    rows = {r["run_id"]: r for r in csv.DictReader(io.StringIO(render_csv(data)))}
    assert rows[old.run_id]["p50_ms"] == "" and float(rows[new.run_id]["p50_ms"]) == pytest.approx(7.968)
    assert rows[old.run_id]["latency_source"] == "benchmark_model"
    cells = " ".join(re.sub(r"<[^>]+>", " ", render_html(data)).split())  # the comparison table's cells
    assert "phone tflite fp32 1 auto 7.97 – – 41.0" in cells and "phone tflite fp32 1 1 – – – 5.69" in cells
    assert cells.index("auto 7.97") < cells.index("1 1 – – – 5.69")
    # the device's note says why the cells are empty, over both results (not only the first one's reasons)
    assert f"p5, p50, p95 absent: {NO_PERCENTILES}" in " ".join(md.split())
    assert "p5, p50, p95 absent: this benchmark_model build printed no percentiles" in cells
    assert main(["results", "show", old.run_id, "--db", str(tmp_path / "db.sqlite")]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "not measured: p50 — this benchmark_model build printed no percentiles" in text
