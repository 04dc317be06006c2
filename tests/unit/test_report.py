"""Reports: HTML structure (self-contained, every section, markers), Markdown, CSV, JUnit XML, and the pure helpers."""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import report_samples

from edgeprof.analysis.regress import Finding
from edgeprof.cli.main import main
from edgeprof.report.data import gather, log_histogram, pareto_front
from edgeprof.report.html import render_html
from edgeprof.report.junit import junit_xml
from edgeprof.report.tabular import CSV_COLUMNS, render_csv, render_markdown
from edgeprof.store import Store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    s = Store(str(tmp_path_factory.mktemp("report") / "db.sqlite"))
    report_samples.populate(s)
    return s


def test_html_is_self_contained_and_has_every_section(store: Store) -> None:
    data = gather(store)
    assert data.sweep is not None and data.sweep.name == "nightly"
    assert len(data.results) == 8 and len(data.ok) == 6
    html = render_html(data)
    for sid in ("compare", "dist", "pareto", "power", "history", "cells", "warnings", "env"):
        assert f'<section id="{sid}">' in html
    # nothing to fetch: no external scripts, styles, images or fonts
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert "http" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert html.count("<svg") >= 2 + 2 + 6 + 5  # distributions, Pareto, power traces, history
    assert 'class="best"' in html
    assert "connection refused" in html and "stderr tail" in html and "tensorrt needs an NVIDIA GPU" in html
    assert "VDD_IN" in html and "not the carrier board" in html  # what the rail covers is stated
    # the rpi5 mobilenet_v2 slowdown of the last two nights carries a regression marker in the history charts
    assert re.search(r'<polygon [^>]*fill="#c62828"[^>]*><title>regressed: mobilenet_v2 · rpi5', html)
    assert "Raspberry Pi 5 Model B" in html and "R36.3.0" in html


def test_html_without_power_says_why(tmp_path: Path) -> None:
    s = Store(str(tmp_path / "db.sqlite"))
    r = report_samples.make_result("rpi5", "ds_cnn", power=False)
    s.save(r)
    html = render_html(gather(s, device="rpi5"))
    assert "no Pareto chart" in html and "no power sensor found" in html
    assert "History appears once a configuration has been measured more than once" in html


def test_markdown_and_csv(store: Store) -> None:
    data = gather(store)
    md = render_markdown(data)
    assert md.startswith("# edgeprof · nightly")
    assert "### mobilenet_v2" in md and "| x86-t4 | onnxruntime | fp32 | 1 | auto |" in md
    assert "## Failed and skipped cells" in md and "| failed | ds_cnn · rpi5" in md
    rows = list(csv.DictReader(io.StringIO(render_csv(data))))
    assert len(rows) == 8 and list(rows[0]) == list(CSV_COLUMNS)
    ok = [r for r in rows if r["status"] == "ok"]
    assert all(float(r["p50_ms"]) > 0 and float(r["mj_per_inference"]) > 0 for r in ok)
    assert {r["status"] for r in rows} == {"ok", "failed", "skipped"}


def test_report_command_formats_by_extension(store: Store, tmp_path: Path) -> None:
    db = store.url.removeprefix("sqlite:///")
    for name in ("r.html", "r.md", "r.csv"):
        assert main(["report", "--db", db, "--out", str(tmp_path / name)]) == 0
    assert (tmp_path / "r.html").read_text().startswith("<!doctype html>")
    assert (tmp_path / "r.md").read_text().startswith("# ")
    assert (tmp_path / "r.csv").read_text().startswith("run_id,")
    assert main(["report", "--db", db, "--device", "nosuch", "--out", str(tmp_path / "x.html")]) == 2


def test_junit_xml_shape() -> None:
    findings = [
        Finding("edgeprof.alpha", "m on alpha · p50_ms", "failed", "regression", "p50_ms regressed +80 %", "numbers"),
        Finding("edgeprof.alpha", "m on alpha · p99_ms", "passed", "regression", "p99_ms unchanged"),
        Finding("edgeprof.beta", "m on beta · run", "error", "cell", "cell failed: refused", "Traceback"),
        Finding("edgeprof.gamma", "m on gamma · run", "skipped", "cell", "skipped: no onnxruntime"),
    ]
    root = ET.fromstring(junit_xml(findings, properties={"scope": "sweep x"}))
    assert root.tag == "testsuites" and root.get("tests") == "4" and root.get("failures") == "1"
    suite = root.find("testsuite")
    assert suite is not None and suite.get("errors") == "1" and suite.get("skipped") == "1"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    fail = cases["m on alpha · p50_ms"].find("failure")
    assert fail is not None and fail.get("message") == "p50_ms regressed +80 %" and fail.text == "numbers"
    assert cases["m on beta · run"].find("error") is not None
    assert cases["m on gamma · run"].find("skipped") is not None
    assert cases["m on alpha · p99_ms"].find("failure") is None


def test_histogram_and_pareto_front() -> None:
    edges, dens = log_histogram([1.0, 1.0, 2.0, 10.0], bins=4)
    assert len(edges) == 5 and len(dens) == 4 and max(dens) == 1.0
    assert edges[0] == pytest.approx(1.0) and edges[-1] == pytest.approx(10.0)
    assert log_histogram([]) == ([], [])
    pts = [(1.0, 10.0), (2.0, 5.0), (3.0, 6.0), (4.0, 1.0), (0.5, 20.0)]
    assert [pts[i] for i in pareto_front(pts)] == [(0.5, 20.0), (1.0, 10.0), (2.0, 5.0), (4.0, 1.0)]
