"""Power end to end: `edgeprof deploy` over a real sshd to boards laid out as sysfs trees (boardlab.py).

Each board's driver process shows a constant idle level while the agent measures the idle baseline, then a
known P(t) = base + amp·sin(2πt/period + phase) on the monotonic clock the agent also uses. The truth is that
function's exact integral over the window the result reports (t0_ns, t1_ns); per-inference figures are derived
from the result's own query count. Tolerances: energy and mean power within ENERGY_TOL of the truth (real
time, two cores shared by sshd, the agent, its sampler and the driver; errors seen here were well under 1 %),
the idle baseline within IDLE_TOL of the idle level (constant: only sensor rounding), and every derived figure
consistent with energy_j and the counts to 1e-9.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from boardlab import Board, BoardLab, board_lab, matmul_model
from sshd import SSHLab

from edgeprof.store import Store

pytestmark = pytest.mark.ssh

ENERGY_TOL = 0.03   # relative, energy_j and mean_w against the analytic integral
IDLE_TOL = 0.01     # relative, idle_w against the constant idle level (counters: ENERGY_TOL, see check_power)
RUN = ["--min-duration", "1.5", "--min-queries", "50", "--warmup", "0.3", "--idle", "0.8", "--threads", "1"]
ERRORS: dict[str, float] = {}  # board -> relative energy error, printed at the end of the module (-s)


@pytest.fixture(scope="module")
def lab(ssh_lab: SSHLab, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BoardLab]:
    with board_lab(ssh_lab, tmp_path_factory.mktemp("power-e2e"), "power-lab") as bl:
        yield bl
    if ERRORS:
        print("\nenergy error vs truth: " + ", ".join(f"{k} {v * 100:+.4f} %" for k, v in ERRORS.items()))


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> str:
    return matmul_model(tmp_path_factory.mktemp("model") / "matmul.onnx")


def check_power(board: Board, r: dict[str, Any], db: str, *, source: str, rail: str, total_kind: str,
                method: str) -> dict[str, Any]:
    """The stored power section against the driven P(t); returns it."""
    p = r["power"]
    assert p is not None, r["null_reasons"]
    assert (p["source"], p["rail"], p["total_kind"], p["method"]) == (source, rail, total_kind, method)
    assert p["covers"]
    assert p["window_s"] == pytest.approx(r["settings"]["window_s"], rel=1e-9)
    t0, t1 = p["t0_ns"] / 1e9, p["t1_ns"] / 1e9
    assert t1 - t0 == pytest.approx(p["window_s"], rel=1e-9)
    truth = board.truth()
    assert truth.t_go is not None and truth.t_go < t1, "the wave never started inside the window"
    e_true = truth.energy(t0, t1)
    mean_true = e_true / p["window_s"]
    err = (p["energy_j"] - e_true) / e_true
    ERRORS[board.name] = err
    assert abs(err) <= ENERGY_TOL, f"{board.name}: energy {p['energy_j']:.4f} J vs truth {e_true:.4f} J"
    assert p["mean_w"] == pytest.approx(mean_true, rel=ENERGY_TOL)
    # a constant read through a register is exact; a counter read late by d at one end is off by d / idle window
    assert p["idle_w"] == pytest.approx(board.idle_w, rel=IDLE_TOL if method == "trapezoid" else ENERGY_TOL)
    assert p["dynamic_w"] == pytest.approx(p["mean_w"] - p["idle_w"], rel=1e-9)
    assert p["dynamic_w"] == pytest.approx(mean_true - board.idle_w, abs=ENERGY_TOL * mean_true)
    n = r["latency_ms"]["n"] * r["batch"]  # inferences, from the result's own counts
    assert n == len(r["samples_ms"]) * r["batch"]
    assert p["energy_mj_per_inference"] == pytest.approx(p["energy_j"] * 1000 / n, rel=1e-9)
    assert p["energy_mj_per_inference"] == pytest.approx(e_true * 1000 / n, rel=ENERGY_TOL)
    assert p["inferences_per_joule"] == pytest.approx(n / p["energy_j"], rel=1e-9)
    assert p["inferences_per_joule"] == pytest.approx(n / e_true, rel=ENERGY_TOL)
    assert p["perf_per_watt"] == pytest.approx(n / p["window_s"] / p["mean_w"], rel=1e-9)
    assert p["perf_per_watt"] == pytest.approx(n / p["window_s"] / mean_true, rel=ENERGY_TOL)
    # FLOPs come from the ONNX graph: GFLOPS/W = achieved GFLOPS / mean W
    flops = r["artifact"]["flops"]
    assert flops == 2 * 64 * 256 * 256
    assert p["gflops_per_watt"] == pytest.approx(flops * r["throughput_ips"] / 1e9 / p["mean_w"], rel=1e-9)
    assert p["n_samples"] >= 5 and p["rate_hz"] > 0 and p["n_read_errors"] == 0
    assert p["trace"]["t_s"][0] == 0 and p["trace"]["t_s"][-1] == pytest.approx(p["window_s"], abs=1e-4)
    assert p["idle_trace"]
    stored = Store(db).get(r["run_id"])  # what is stored is what was printed as JSON
    assert stored.power is not None and stored.power.to_dict() == p
    return p


def run(lab: BoardLab, board: Board, model: str, *extra: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], str]:
    code, out, err, r = lab.deploy(board, model, *RUN, *extra, monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0 and r is not None, err
    return r, " ".join(out.split())  # the terminal output with rich's line wrapping undone


def test_jetson_nano_pom_5v_in(lab: BoardLab, model: str, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    with lab.board("jetson-nano-jp4", idle_w=1.6, wave={"base": 4.2, "amp": 0.9, "period": 0.8}) as b:
        r, out = run(lab, b, model, monkeypatch=monkeypatch, capsys=capsys)
    p = check_power(b, r, lab.db, source="jetson-ina3221", rail="POM_5V_IN", total_kind="rail", method="trapezoid")
    assert "module input" in p["covers"]
    assert set(p["rails"]) >= {"POM_5V_IN", "POM_5V_GPU", "POM_5V_CPU"}  # sub-rails reported, never added
    assert p["rails"]["POM_5V_GPU"] == pytest.approx(0.25 * p["mean_w"], rel=0.02)
    assert p["rate_hz_requested"] == 50
    # Jetson unified memory: system-wide used memory from the tree's /proc/meminfo, not this machine's
    sysm = r["memory_mb"]["system"]
    assert sysm["total_bytes"] == 4059272 * 1024
    assert sysm["before_bytes"] == (4059272 - 2871212) * 1024 == sysm["peak_bytes"]
    assert "unified" in sysm["method"]
    assert r["memory_mb"]["gpu_process_bytes"] is None  # no NVML on a Nano
    th = r["thermal"]
    assert th["after"]["nvpmodel"]["name"] and th["after"]["zones"]["thermal_zone4"].get("ignored")  # PMIC-Die
    # terminal: the table, where the numbers come from, the thermal line
    assert "power · jetson-ina3221 POM_5V_IN" in out and "idle W" in out and "dynamic W" in out
    assert "power source: jetson-ina3221 · total POM_5V_IN · covers: module input" in out
    assert "energy not idle-subtracted" in out and "thermal: max" in out and "nvpmodel" in out
    assert "system used" in out


def test_orin_nano_vdd_in_with_power_rate(lab: BoardLab, model: str, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    with lab.board("orin-nano-jp6", idle_w=4.8, wave={"base": 7.5, "amp": 1.6, "period": 1.0},
                   power={"source": "auto", "rate_hz": 20}) as b:
        r, _ = run(lab, b, model, "--power-rate", "40", monkeypatch=monkeypatch, capsys=capsys)
    p = check_power(b, r, lab.db, source="jetson-ina3221", rail="VDD_IN", total_kind="rail", method="trapezoid")
    assert p["rate_hz_requested"] == 40  # --power-rate overrides devices.yaml rate_hz: 20
    assert r["settings"]["power_rate_hz"] == 40 and r["settings"]["idle_s"] == 0.8
    assert p["rails"]["VDD_SOC"] == pytest.approx(0.4 * p["mean_w"], rel=0.02)


def test_agx_orin_labelled_sum(lab: BoardLab, model: str, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    with lab.board("agx-orin-jp6", idle_w=9.0, wave={"base": 15.0, "amp": 3.0, "period": 1.2}) as b:
        r, out = run(lab, b, model, monkeypatch=monkeypatch, capsys=capsys)
    p = check_power(b, r, lab.db, source="jetson-ina3221", rail="sum(VDD_GPU_SOC,VDD_CPU_CV,VIN_SYS_5V0,VDDQ_VDD2_1V8AO)",
                    total_kind="sum-of-rails", method="trapezoid")
    assert "NC" not in p["rails"]
    assert "VDDQ_VDD2_1V8AO) (sum of rails)" in out


def test_pi5_pmic_side(lab: BoardLab, model: str, monkeypatch: pytest.MonkeyPatch,
                       capsys: pytest.CaptureFixture[str]) -> None:
    """Through the fake vcgencmd on the device's PATH (a process per tick: ~10 Hz, so a slower wave)."""
    with lab.board("rpi5", idle_w=2.1, wave={"base": 3.6, "amp": 0.7, "period": 2.0}) as b:
        r, out = run(lab, b, model, monkeypatch=monkeypatch, capsys=capsys)
    p = check_power(b, r, lab.db, source="rpi5-pmic", rail=r["power"]["rail"], total_kind="sum-of-rails",
                    method="trapezoid")
    assert p["rail"].startswith("sum(") and "VDD_CORE" in p["rail"]
    assert "PMIC" in p["covers"]
    assert p["rate_hz_requested"] == 10
    assert r["thermal"]["after"]["rpi"]["throttled"]["raw"] == "0x0"
    assert "covers: PMIC" in out


@pytest.mark.alone  # its energy is checked against the wall clock: other workers' load skews it
def test_x86_rapl_counter(lab: BoardLab, model: str, monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    """CPU package energy counter, started 3 J below its wrap: differenced (with the wrap undone), not integrated."""
    with lab.board("x86-rapl", idle_w=8.0, wave={"base": 21.0, "amp": 5.0, "period": 1.0},
                   power={"source": "rapl"}) as b:
        r, out = run(lab, b, model, monkeypatch=monkeypatch, capsys=capsys)
    p = check_power(b, r, lab.db, source="rapl", rail="package-0", total_kind=r["power"]["total_kind"], method="counter")
    assert "package" in p["covers"]
    assert f"covers: {p['covers']}" in out


def test_local_has_no_power_and_says_why(lab: BoardLab, model: str, capsys: pytest.CaptureFixture[str]) -> None:
    from edgeprof.cli.main import main

    code = main(["deploy", "--device", "local", "--model", model, "--db", lab.db, "--json", "-", "--quiet",
                 "--min-duration", "0.3", "--min-queries", "20", "--warmup", "0.1", "--idle", "0.2"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    import json

    r = json.loads(cap.out)
    if r["power"] is not None:  # a machine with a readable sensor (a GPU box with NVML, root with RAPL)
        pytest.skip(f"this machine has a power sensor: {r['power']['source']}")
    reason = r["null_reasons"]["power"]
    assert reason.startswith("no power sensor found: looked for INA3221 (i2c), jtop service, hwmon ina2xx, "
                             "Pi 5 PMIC (vcgencmd), NVML, RAPL")


def test_bad_telemetry_flags_are_one_line_errors(lab: BoardLab, model: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from edgeprof.cli.main import main

    cases = [(["--idle", "-1"], "--idle -1: must be >= 0"),
             (["--cooldown", "0"], "--cooldown 0: a temperature"),
             (["--cooldown", "45000"], "--cooldown 45000: a temperature"),
             (["--cooldown", "50", "--cooldown-timeout", "0"], "--cooldown-timeout 0: must be > 0"),
             (["--cooldown-timeout", "30"], "--cooldown-timeout needs --cooldown"),
             (["--power-rate", "0"], "--power-rate 0: must be > 0"),
             (["--power-rate", "nan"], "--power-rate nan"),
             (["--idle", "inf"], "--idle inf")]
    for extra, expect in cases:
        code = main(["deploy", "--device", "local", "--model", model, "--db", lab.db, "--quiet", *extra])
        err = capsys.readouterr().err
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and lines[0].startswith("edgeprof: error:"), (extra, err)
        assert expect in lines[0], (extra, lines[0])
