"""NVML per window end to end: `edgeprof deploy --scenario sustained` over a real sshd to a GPU box seen only
through the pynvml double on the device's PYTHONPATH (boardlab.py), whose GPU throttles (SM clock 1980 → 1410 MHz,
SwThermalSlowdown | SwPowerCap, 62 → 86 °C) 3 s after the host hears the measurement start. 8 s in 2 s windows:
window 0 reads the unthrottled GPU only, windows 2 and 3 the throttled one, window 1 both; the stored result's
onset is window 1 from NVML, and `edgeprof report` shows the GPU clock and reasons (Markdown) and draws the GPU
clock with the onset marked (HTML)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from boardlab import board_lab, matmul_model
from sshd import SSHLab

from edgeprof.cli.main import main

pytestmark = [pytest.mark.ssh, pytest.mark.slow]


def test_a_throttling_gpu_through_the_cli_and_the_report(ssh_lab: SSHLab, tmp_path: Any,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import edgeprof.cli.ui as ui

    model = matmul_model(tmp_path / "matmul.onnx")
    mark = tmp_path / "throttle"
    gpu = {"name": "NVIDIA H200", "temp_c": 62, "sm_mhz": 1980, "reasons": 0, "wave": {"base": 400.0, "amp": 0.0},
           "throttle": {"file": str(mark), "after_s": 3.0, "sm_mhz": 1410, "reasons": 0x24, "temp_c": 86}}

    class MarkOnMeasure(ui.DeployProgress):
        def event(self, event: Any) -> None:
            if getattr(event, "phase", None) == "measure" and not mark.exists():
                mark.write_text("go\n")
            super().event(event)

    monkeypatch.setattr(ui, "DeployProgress", MarkOnMeasure)
    (tmp_path / "lab").mkdir()
    with board_lab(ssh_lab, tmp_path / "lab", "sustained-nvml-lab") as lab, \
            lab.board("gpu-box", nvml={"gpus": [gpu]}, drive=False) as b:
        code, _out, err, r = lab.deploy(b, model, "--scenario", "sustained", "--rate", "50", "--duration", "8",
                                        "--window", "2", "--warmup", "0.2", "--idle", "0", "--threads", "1",
                                        monkeypatch=monkeypatch, capsys=capsys)
        db = lab.db
    assert code == 0 and r is not None, err
    s = r["sustained"]
    rows = s["windows"]
    assert s["nvml_gpu"] == "NVIDIA H200" and len(rows) == 4 and all(w["n_nvml"] >= 3 for w in rows)
    assert (rows[0]["nvml_sm_mhz"], rows[0]["nvml_reasons"], rows[0]["nvml_temp_c"]) == (1980.0, 0, 62.0)
    for w in rows[2:]:
        assert (w["nvml_sm_mhz"], w["nvml_reasons"], w["nvml_temp_c"]) == (1410.0, 0x24, 86.0)
    assert 1410.0 < rows[1]["nvml_sm_mhz"] < 1980.0 and rows[1]["nvml_reasons"] == 0x24
    assert all(w["nvml_w"] == 400.0 and w["temp_c"] is None and w["cpu_mhz"] is None for w in rows)
    assert s["power_source"] == "nvml" and all(w["mean_w"] == pytest.approx(400.0, rel=0.05) for w in rows)
    assert s["onset_window"] == 1 and s["onset_s"] == 2.0 and "GPU SM clock" in s["onset_reason"]
    assert s["onset_temp_c"] == rows[1]["nvml_temp_c"]

    md, html = tmp_path / "r.md", tmp_path / "r.html"
    assert main(["report", "--db", db, "--out", str(md)]) == 0
    assert main(["report", "--db", db, "--out", str(html)]) == 0
    text = md.read_text()
    sec = text[text.index("## Sustained runs"):]
    assert "GPU: NVIDIA H200 (NVML)" in sec and "| GPU MHz | GPU °C | GPU W | W | throttle |" in sec
    assert re.search(r"^\| 1 \(onset\) \| 2 \| 100 \| 50\.0 \|.* \| NVML 0x24 \|$", sec, re.M)
    assert re.search(r"^\| 3 \| 6 \| 100 \| 50\.0 \|.* \| 1410 \| 86\.0 \| 400 \| 400 \| NVML 0x24 \|$", sec, re.M)
    page = html.read_text()
    clock = page[page.index('data-chart="clock"'):]
    clock = clock[:clock.index("</svg>")]
    assert 'class="onset" data-window="1"' in clock
    assert re.findall(r'data-series="GPU" data-window="(\d)" data-v="([^"]+)"', clock) == [
        ("0", "1980"), ("1", f"{rows[1]['nvml_sm_mhz']:.6g}"), ("2", "1410"), ("3", "1410")]
