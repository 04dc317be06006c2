"""`results show` on a sustained result whose windows read a GPU through NVML: its window table gets GPU MHz,
GPU °C and GPU W columns (and the NVML clock event reasons beside the throttle bits), with the figures of the NVML
end-to-end test's GPU (tests/integration/test_sustained_report_nvml.py: SM clock 1980 → 1410 MHz, 62 → 86 °C,
400 W, reasons 0x24 from window 1 on); a result without NVML keeps the table it had."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from edgeprof.cli.main import main
from edgeprof.records import Result
from edgeprof.store import Store

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "results" / "v7" / "ok_local_sustained.json"
# (SM MHz, °C, W, reasons) per window, as the NVML end-to-end test's stored windows read
NVML = [(1980.0, 62.0, 400.0, 0), (1695.0, 74.0, 400.0, 0x24), (1410.0, 86.0, 400.0, 0x24)]


def _golden() -> Result:
    return Result.from_dict(json.loads(GOLDEN.read_text()))


def _with_nvml(r: Result) -> Result:
    s = r.sustained
    assert s is not None and len(s.windows) == len(NVML)
    windows = [dataclasses.replace(w, n_nvml=4, nvml_sm_mhz=mhz, nvml_graphics_mhz=mhz, nvml_temp_c=c, nvml_w=watts,
                                   nvml_reasons=reasons)
               for w, (mhz, c, watts, reasons) in zip(s.windows, NVML, strict=True)]
    return dataclasses.replace(r, run_id=r.run_id + "g", sustained=dataclasses.replace(s, windows=windows,
                                                                                         nvml_gpu="NVIDIA H200"))


def _shown(tmp_path: Path, r: Result, capsys: pytest.CaptureFixture[str]) -> list[str]:
    db = str(tmp_path / "r.sqlite")
    Store(db).save(r)
    assert main(["results", "show", r.run_id, "--db", db]) == 0
    out = capsys.readouterr().out
    return out[out.index("sustained: "):].splitlines()


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"[│┃|]", line) if c.strip()]


def test_results_show_has_the_gpu_columns_where_the_windows_read_nvml(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    lines = _shown(tmp_path, _with_nvml(_golden()), capsys)
    assert lines[0].startswith("sustained: 3 windows of 2 s; GPU: NVIDIA H200 (NVML)"), lines[0]
    head = next(_cells(ln) for ln in lines if "window" in ln and "p50 ms" in ln)
    assert head[head.index("min MHz") + 1:] == ["GPU MHz", "GPU °C", "GPU W", "W", "mJ/inf", "throttled"], head
    rows = {c[0]: dict(zip(head, c, strict=True)) for c in map(_cells, lines) if c and c[0] in ("0", "1", "2")}
    assert sorted(rows) == ["0", "1", "2"], lines
    for k, (mhz, c, watts, reasons) in enumerate(NVML):
        row = rows[str(k)]
        assert (row["GPU MHz"], row["GPU °C"], row["GPU W"]) == (f"{mhz:.0f}", f"{c:.1f}", f"{watts:.0f}"), row
        assert row["throttled"] == f"NVML 0x{reasons:x}", row


def test_results_show_without_nvml_has_no_gpu_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = _shown(tmp_path, _golden(), capsys)
    head = next(_cells(ln) for ln in lines if "window" in ln and "p50 ms" in ln)
    assert "GPU MHz" not in head and "GPU W" not in head and head[-3:] == ["W", "mJ/inf", "throttled"], head
    assert "GPU:" not in lines[0]
