"""The Markdown report escapes HTML in names (issue 14 item 7): a hostile model or device name is text."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import report_samples

from edgeprof.cli.main import main
from edgeprof.store import Store

HOSTILE = "<img src=x onerror=alert(1)>.onnx"


def test_markdown_report_escapes_html_in_names(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    store = Store(str(db))
    r = report_samples.make_result("x86-t4", "mobilenet_v2")
    store.save(dataclasses.replace(r, model=HOSTILE, device="<b>board</b>"))
    out = tmp_path / "r.md"
    assert main(["report", "--db", str(db), "--out", str(out), "--format", "md"]) == 0
    md = out.read_text()
    assert "<img" not in md and "<b>" not in md
    assert "&lt;img src=x onerror=alert(1)&gt;.onnx" in md
    assert "&lt;b&gt;board&lt;/b&gt;" in md
