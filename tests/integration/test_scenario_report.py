"""The report's "latency and energy per frame against rate" chart: one card per board with a point per rate (hollow
when INVALID) and the single-stream throughput of the same configuration as the saturation line; it renders in
headless Chromium without errors (the pattern of test_report_browser.py). Also a real local sweep over
`scenarios: [single-stream, fixed-rate]` and `rates:` that renders the curve."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from test_report_browser import chromium, console_errors, png_size

from edgeprof.cli.main import main
from edgeprof.records import Result
from edgeprof.store import Store

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "results" / "v4"
RATES = (10.0, 30.0, 60.0, 120.0)
# board -> (single-stream capacity q/s, p99 ms at each rate, mJ per frame at each rate, VALID at each rate)
BOARDS = {
    "rpi5": (70.0, (9.0, 11.0, 16.0, 400.0), (310.0, 140.0, 95.0, 80.0), (True, True, True, False)),
    "orin-nano": (450.0, (3.0, 3.1, 3.3, 3.9), (520.0, 190.0, 110.0, 70.0), (True, True, True, True)),
}


def _results() -> list[Result]:
    base = Result.from_dict(json.loads((GOLDEN / "ok_local_fixed_rate.json").read_text()))
    single = Result.from_dict(json.loads((GOLDEN / "ok_local_ds_cnn.json").read_text()))
    out = []
    n = 0
    for board, (cap, p99s, mjs, valids) in BOARDS.items():
        n += 1
        out.append(dataclasses.replace(single, run_id=f"20261201-000000-ss{n:04d}", device=board, throughput_ips=cap))
        for rate, p99, mj, valid in zip(RATES, p99s, mjs, valids, strict=True):
            n += 1
            assert base.latency_ms is not None
            out.append(dataclasses.replace(
                base, run_id=f"20261201-000000-fr{n:04d}", device=board,
                latency_ms=dataclasses.replace(base.latency_ms, p99=p99),
                scenario=dataclasses.replace(base.scenario, rate_qps=rate, j_per_frame=mj / 1000, valid=valid,
                                             misses=0 if valid else 37)))
    return out


@pytest.fixture()
def page(tmp_path: Path) -> Path:
    db = str(tmp_path / "db.sqlite")
    store = Store(db)
    for r in _results():
        store.save(r)
    out = tmp_path / "report.html"
    assert main(["report", "--db", db, "--out", str(out)]) == 0
    return out


def _section(html: str) -> str:
    m = re.search(r'<section id="rates">.*?</section>', html, re.S)
    assert m is not None, "no rate section"
    return m.group(0)


def test_the_rate_curve_per_board(page: Path) -> None:
    sec = _section(page.read_text())
    assert "Latency and energy per frame against rate" in sec
    cards = re.findall(r'<div class="card rate-card" data-device="([^"]+)">', sec)
    assert sorted(cards) == ["orin-nano", "rpi5"]
    points = re.findall(r'data-rate="([^"]+)" data-v="([^"]+)" data-valid="([^"]*)"', sec)
    assert len(points) == 2 * len(RATES) * 2  # two boards, four rates, latency and energy charts
    rpi = sec[sec.index('data-device="rpi5"'):]
    rpi = rpi[:rpi.index("</div>")]
    rp = re.findall(r'data-rate="([^"]+)" data-v="([^"]+)" data-valid="([^"]*)"', rpi)
    assert rp[:4] == [("10", "9", "1"), ("30", "11", "1"), ("60", "16", "1"), ("120", "400", "0")]
    assert rp[4:] == [("10", "310", "1"), ("30", "140", "1"), ("60", "95", "1"), ("120", "80", "0")]
    assert "INVALID · misses 37 of 100" in rpi  # the saturated point says why
    # rpi5 saturates at 70/s, inside the chart: a dashed line; orin-nano's 450/s is named, off the chart
    assert rpi.count('class="capacity"') == 2 and "single-stream throughput 70.0 q/s" in rpi
    assert "orin-nano" not in rpi and "single-stream 450 q/s →" in sec


def test_the_rate_curve_renders_in_chromium(page: Path, tmp_path: Path) -> None:
    dom = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = re.search(r"<body[^>]*>", dom.stdout)
    assert body is not None and 'data-ready="1"' in body.group(0) and "data-errors" not in body.group(0)
    assert not console_errors(dom.stderr), console_errors(dom.stderr)
    assert dom.stdout.count('class="rate-point"') == 16
    shot = tmp_path / "rates.png"
    run = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,3000", page.as_uri())
    assert run.returncode == 0 and png_size(shot) == (1200, 3000) and not console_errors(run.stderr)


@pytest.mark.slow
def test_a_scenario_sweep_renders_the_rate_curve(tmp_path: Path) -> None:
    sweep = tmp_path / "rates.yaml"
    sweep.write_text("version: 1\nmodels: [ds_cnn]\ndevices: [local]\nruntimes: [\"null\"]\n"
                     "scenarios: [single-stream, fixed-rate]\nrates: [10, 30, 60]\n"
                     "settings: {min_duration_s: 0.3, min_queries: 5, warmup_s: 0, idle_s: 0, "
                     "runtime_options: {service_ms: 2}}\n")
    db = str(tmp_path / "db.sqlite")
    assert main(["sweep", str(sweep), "--db", db]) == 0
    out = tmp_path / "r.html"
    assert main(["report", "--db", db, "--out", str(out)]) == 0
    sec = _section(out.read_text())
    rates = [r for r, _, _ in re.findall(r'data-rate="([^"]+)" data-v="([^"]+)" data-valid="([^"]*)"', sec)]
    assert rates == ["10", "30", "60"]  # latency points; no power sensor here, so no energy chart
    assert "No energy per frame" in sec and 'class="capacity"' not in sec  # null: ~1e5 q/s, off the chart
    assert "single-stream" in sec


def test_csv_and_markdown_name_the_scenario(page: Path, tmp_path: Path) -> None:
    import csv
    import io

    db = str(page.parent / "db.sqlite")
    out = tmp_path / "r.csv"
    assert main(["report", "--db", db, "--out", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    fixed = sorted((r for r in rows if r["device"] == "rpi5" and r["scenario"] != "single-stream"),
                   key=lambda r: float(r["rate_qps"]))
    assert [r["scenario"] for r in fixed] == [f"fixed-rate {x:g}/s" for x in RATES]
    assert [r["valid"] for r in fixed] == ["1.0", "1.0", "1.0", "0.0"] and fixed[-1]["misses"] == "37.0"
    assert float(fixed[0]["j_per_frame"]) == pytest.approx(0.31)
    md = tmp_path / "r.md"
    assert main(["report", "--db", db, "--out", str(md)]) == 0
    assert "| rpi5 (fixed-rate 120/s) |" in md.read_text()
