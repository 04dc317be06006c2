"""The sustained scenario end to end: `edgeprof deploy --scenario sustained` over a real sshd to a simulated Pi 5
(boardlab.py) whose tree heats up and steps its clock down on a schedule (tests/agent/fakes/heating.py), started
when the agent reports the measurement's start. 12 s at 100 frames/s in 2 s windows: the onset window, the
temperature then, the steady state, each window's power from the driven PMIC, the progress line per window and
`results show`'s window table are known in advance and checked."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest
from boardlab import FAKES, BoardLab, board_lab, matmul_model
from sshd import SSHLab

from edgeprof.cli.main import main

sys.path.insert(0, str(FAKES))
from heating import HeatingBoard  # noqa: E402

pytestmark = [pytest.mark.ssh, pytest.mark.slow]


@pytest.fixture(scope="module")
def lab(ssh_lab: SSHLab, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BoardLab]:
    with board_lab(ssh_lab, tmp_path_factory.mktemp("sustained-e2e"), "sustained-lab") as bl:
        yield bl


def test_a_heating_pi5_through_the_cli(lab: BoardLab, tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    import edgeprof.cli.ui as ui

    model = matmul_model(tmp_path / "matmul.onnx")
    with lab.board("rpi5", idle_w=2.0, wave={"base": 4.0, "amp": 0.0}) as b:
        heater = HeatingBoard(b.dir, copy=False, trip_s=5.0)  # 50 → 68 °C by 6 s; 2.4 → 1.2 GHz at 5 s

        class HeatOnMeasure(ui.DeployProgress):
            def event(self, event: Any) -> None:
                if getattr(event, "phase", None) == "measure" and heater.t_start is None:
                    heater.start()
                super().event(event)

        monkeypatch.setattr(ui, "DeployProgress", HeatOnMeasure)
        try:
            code, out, err, r = lab.deploy(b, model, "--scenario", "sustained", "--rate", "100", "--duration", "12",
                                           "--window", "2", "--warmup", "0.2", "--idle", "0", "--threads", "1",
                                           monkeypatch=monkeypatch, capsys=capsys)
        finally:
            heater.stop()
    assert code == 0 and r is not None, err
    s = r["sustained"]
    rows = s["windows"]
    assert len(rows) == 6 and [w["n"] for w in rows] == [200] * 6 and len(r["samples_ms"]) == 1200
    assert [w["cpu_mhz"] for w in rows[:2]] == [2400.0, 2400.0] and [w["cpu_mhz"] for w in rows[3:]] == [1200.0] * 3
    assert s["onset_window"] == 2 and s["onset_s"] == 4.0 and "CPU clock" in s["onset_reason"]
    assert 62.0 <= s["onset_temp_c"] <= 68.0 and s["onset_temp_c"] == rows[2]["temp_c"]
    # the plateau from 6 s (the heater starts when the host hears the measure phase begin: a reading just after a
    # window opens may still see 67.9x °C)
    assert [w["temp_c"] for w in rows[3:]] == pytest.approx([68.0] * 3, abs=0.3) and rows[0]["temp_c"] < 54.0
    assert s["steady_window"] == 3 and s["time_to_steady_s"] == 6.0
    assert s["steady_temp_c"] == pytest.approx(68.0, abs=0.3)
    assert s["sustained_ratio"] == 1.0  # a fixed rate that keeps up: the frames per window are the schedule's
    assert s["throttle_source"] == "vcgencmd get_throttled" and [w["throttled"] for w in rows] == [0] * 6
    assert s["power_source"] == "rpi5-pmic"
    for w in rows:  # the driven PMIC shows 4 W during the run
        assert w["mean_w"] == pytest.approx(4.0, rel=0.05) and w["energy_j"] == pytest.approx(8.0, rel=0.05)
        assert w["mj_per_inference"] == pytest.approx(40.0, rel=0.05) and w["n_power"] > 10
    for k in range(1, 7):
        assert f"window {k}/6: p50 " in err
    assert "window 6/6" in err and "1200 MHz" in err
    assert main(["results", "show", r["run_id"], "--db", lab.db]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "sustained: 6 windows of 2 s" in shown and "throttling onset: window 2 (from 4 s)" in shown
    assert "steady state from window 3 (6 s)" in shown
