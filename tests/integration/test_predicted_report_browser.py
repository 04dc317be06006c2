"""The report's "Predicted vs measured" section in a real browser (headless Chromium, as test_report_browser.py):
with a stored prediction beside every ok run of the nightly sample, the page's script runs to the end with no
console error, the section's table is sortable like the others and holds one row per predicted run, and every
board ranking states its agreement."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import report_samples
from browser import rendered_dom

from edgeprof.cli.main import main
from edgeprof.lab.history import sweep_results
from edgeprof.records.prediction import StoredPrediction
from edgeprof.store import Store
from edgeprof.store.predictions import save_prediction

pytestmark = pytest.mark.slow


def _prediction(r, factor):
    ident, p50 = r.identity, r.latency_ms.p50 * factor
    return StoredPrediction(
        config_key=ident.key(), created_at=r.created_at, device=r.device, model=r.model, source=ident.source,
        content=ident.content, runtime=r.runtime, runtime_version="1.32.0", precision=r.precision, batch=r.batch,
        threads=r.threads or 1, shapes=ident.shapes or (), table_id="0123456789abcdef", table_path="t.json",
        p50_ms=p50, low_ms=p50 / 1.3, high_ms=p50 * 1.3, level=0.9, covered_ops=1.0, covered_flops=1.0)


def test_the_predicted_section_renders_in_chromium_without_errors(tmp_path: Path) -> None:
    db = str(tmp_path / "db.sqlite")
    store = Store(db)
    sweep_id = report_samples.populate(store)
    ok = [r for r in sweep_results(store, sweep_id)[1] if r.status == "ok"]
    for i, r in enumerate(ok):  # alternately 20 % low and 40 % high: some inside the interval, some not
        save_prediction(store, _prediction(r, 0.8 if i % 2 else 1.4))
    page = tmp_path / "report.html"
    assert main(["report", "--db", db, "--sweep", sweep_id, "--out", str(page)]) == 0
    dom = rendered_dom(tmp_path, page)
    section = re.search(r'<section id="predicted">(.*?)</section>', dom, re.S)
    assert section is not None
    table = re.search(r'<table class="sortable predicted">.*?<tbody>(.*?)</tbody>', section.group(1), re.S)
    assert table is not None and table.group(1).count("<tr>") == len(ok)
    assert section.group(1).count("Boards ranked:") >= 1
    assert section.group(1).count("Boards ranked:") == len(re.findall(r"board pairs \(Kendall τ = [+-]\d\.\d\d\)|One "
                                                                       r"board: nothing to rank", section.group(1)))
