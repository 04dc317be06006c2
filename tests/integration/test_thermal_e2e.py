"""Thermal, throttling and cooldown end to end: `edgeprof deploy` over a real sshd to simulated boards (boardlab.py).

- Pi 5: the fake vcgencmd's captured get_throttled changes between the before and after snapshots (the driver
  rewrites it when the model loads): warnings in the stored result and THROTTLED lines in the terminal.
- A GPU box seen through a pynvml double on the device's PYTHONPATH: NVML clock event reasons become a
  warning; GPU memory of the agent's process and NVML power (energy counter) are in the result; --cooldown
  below the GPU's temperature times out with a warning.
- Pi 5 whose thermal zone the driver cools over time: --cooldown waits until it is below the target.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from boardlab import BoardLab, board_lab, matmul_model
from sshd import SSHLab

from edgeprof.store import Store

pytestmark = pytest.mark.ssh

RUN = ["--min-duration", "1.2", "--min-queries", "50", "--warmup", "0.2", "--idle", "0.5", "--threads", "1"]


@pytest.fixture(scope="module")
def lab(ssh_lab: SSHLab, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BoardLab]:
    with board_lab(ssh_lab, tmp_path_factory.mktemp("thermal-e2e"), "thermal-lab") as bl:
        yield bl


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> str:
    return matmul_model(tmp_path_factory.mktemp("model") / "matmul.onnx")


def codes(r: dict[str, Any]) -> list[str]:
    return [w["code"] for w in r["warnings"]]


def deploy(lab: BoardLab, board: Any, model: str, *extra: str, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], str]:
    code, out, err, r = lab.deploy(board, model, *RUN, *extra, monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0 and r is not None, err
    assert [w.to_dict() for w in Store(lab.db).get(r["run_id"]).warnings] == r["warnings"]  # stored as printed
    return r, " ".join(out.split())  # rich's line wrapping undone


def test_pi5_throttling_during_the_run(lab: BoardLab, model: str, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    on_go = {"tools/vcgencmd/get_throttled.txt": "throttled=0x50005\n"}  # under-voltage + throttled, now and since
    with lab.board("rpi5", idle_w=2.0, wave={"base": 3.0, "amp": 0.5, "period": 2.0}, on_go=on_go) as b:
        r, out = deploy(lab, b, model, monkeypatch=monkeypatch, capsys=capsys)
    before, after = r["thermal"]["before"]["rpi"]["throttled"], r["thermal"]["after"]["rpi"]["throttled"]
    assert before["raw"] == "0x0" and after["raw"] == "0x50005"
    assert after["now"] == ["under-voltage", "throttled"] == after["has_occurred"]
    assert {"rpi_throttled_now", "rpi_throttled_during_run"} <= set(codes(r))
    msg = next(w["message"] for w in r["warnings"] if w["code"] == "rpi_throttled_during_run")
    assert "0x0 -> 0x50005" in msg and "power supply" in msg
    assert "THROTTLED rpi_throttled_now: Raspberry Pi reports under-voltage, throttled" in out
    assert "THROTTLED rpi_throttled_during_run: Raspberry Pi under-voltage, throttled occurred during the run" in out
    assert "get_throttled 0x50005: under-voltage, throttled, under-voltage (has occurred)" in out
    assert r["power"]["source"] == "rpi5-pmic"


def test_nvml_clock_reasons_gpu_memory_power_and_cooldown_timeout(
        lab: BoardLab, model: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    wave = {"base": 62.0, "amp": 12.0, "period": 0.7, "phase": 0.4}
    gpu = {"name": "Tesla T4", "temp_c": 71, "reasons": 0x4 | 0x20, "energy_update_s": 0.05, "wave": wave,
           "processes": [["self", 512 * 2**20], [1, 3 * 2**30]]}
    with lab.board("gpu-box", nvml={"gpus": [gpu]}, drive=False) as b:
        # 100 Hz: a counter update is placed at the first tick that shows it, so each window edge can be off by
        # one tick x P (at 50 Hz and 50 ms updates in a 1.2 s window that aliases to a steady ~1 %)
        r, out = deploy(lab, b, model, "--cooldown", "60", "--cooldown-timeout", "1", "--power-rate", "100",
                        monkeypatch=monkeypatch, capsys=capsys)
    # clock event reasons: a warning in the result and on the terminal
    assert "gpu_clock_reasons" in codes(r)
    assert r["thermal"]["after"]["nvml"][0]["clock_reasons"] == ["SwPowerCap", "SwThermalSlowdown"]
    assert "THROTTLED gpu_clock_reasons: GPU 0 (Tesla T4) clocks limited at the end of the run by SwPowerCap, " \
           "SwThermalSlowdown" in out
    assert "GPU 0 clock reasons: SwPowerCap, SwThermalSlowdown" in out
    # --cooldown 60 on a GPU at 71 °C: waits --cooldown-timeout, then measures anyway and says so
    cool = r["thermal"]["cooldown"]
    assert cool["cooled"] is False and cool["start_c"] == 71 and cool["waited_s"] >= 1.0
    assert "cooldown_timeout" in codes(r) and "thermal cooldown_timeout: --cooldown 60: still 71.0 C" in out
    # GPU memory of the agent's own process (NVML per-process), not the other process's 3 GiB
    assert r["memory_mb"]["gpu_process_bytes"] == 512 * 2**20
    assert "GPU memory of the agent 536.9 MB (NVML)" in out
    # NVML power: the energy counter (20-100 ms updates, here 50 ms) differenced over the window
    p = r["power"]
    assert (p["source"], p["rail"], p["method"]) == ("nvml", "gpu0", "counter"), p["warnings"]
    assert p["rate_hz_requested"] == 100
    w = 2 * math.pi / wave["period"]
    t0, t1 = p["t0_ns"] / 1e9, p["t1_ns"] / 1e9
    e_true = wave["base"] * (t1 - t0) - wave["amp"] / w * (math.cos(w * t1 + wave["phase"])
                                                          - math.cos(w * t0 + wave["phase"]))
    print(f"\nnvml energy error vs truth: {(p['energy_j'] - e_true) / e_true * 100:+.4f} %")
    assert p["energy_j"] == pytest.approx(e_true, rel=0.02)
    assert abs(p["idle_w"] - wave["base"]) < wave["amp"]  # idle shows the same wave here: its mean, roughly


def test_cooldown_waits_for_a_cooling_zone(lab: BoardLab, model: str, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The driver cools the Pi's zone (and measure_temp) from 70 °C at 2.5 °C/s; --cooldown 50 waits until ~8 s after
    the board starts. The zone cools from the driver's start, not the agent's first read, so the deploy's own set-up
    (SSH, push, agent start: over 2 s on a loaded 2-core CI machine) must not reach 50 °C first."""
    cool = {"files": ["sys/class/thermal/thermal_zone0/temp"], "start_c": 70.0, "c_per_s": -2.5, "floor_c": 41.0,
            "measure_temp": True}
    with lab.board("rpi5", idle_w=2.0, cool=cool) as b:
        (b.dir / "tools/vcgencmd/get_throttled.txt").write_text("throttled=0x50000\n")  # sticky: since boot
        r, out = deploy(lab, b, model, "--cooldown", "50", monkeypatch=monkeypatch, capsys=capsys)
    c = r["thermal"]["cooldown"]
    assert c["cooled"] is True and c["start_c"] >= 50 and c["end_c"] < 50 and c["waited_s"] > 0.5
    assert r["thermal"]["before"]["max_temp_c"] < 50  # the before snapshot is taken after the wait
    assert r["settings"]["cooldown_c"] == 50
    assert "cooldown_timeout" not in codes(r)
    assert "cooldown < 50.0 °C: cooled after" in out
    # sticky bits set before the run: cannot tell whether this run was affected
    assert "rpi_throttle_history" in codes(r) and "rpi_throttled_during_run" not in codes(r)
    assert "thermal rpi_throttle_history: Raspberry Pi had already reported under-voltage" in out
