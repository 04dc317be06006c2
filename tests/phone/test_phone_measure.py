"""One benchmark_model measurement on the stand-in phone: latency as benchmark_model gave it, memory, battery
power (refused while charging), thermal before/after; hostile cases: crash, garbage, missing graph, vanishing."""

from __future__ import annotations

import threading
from pathlib import Path

import phone_tree as tree
import pytest
from phone_adbd import serial

from edgeprof.errors import MeasurementFailed, TransportError
from edgeprof.phone.runner import PhoneRunner, battery_power
from edgeprof.records import Device
from edgeprof.records.device import BenchmarkModel, PhoneConfig, PhonePower
from edgeprof.transport.adb import open_adb, sha256_file


def session(d, adb_client: str, server_port: int, **power) -> PhoneRunner:  # type: ignore[no-untyped-def]
    dev = Device(name="pixel", kind="adb", host=serial(d), python="", workdir="/data/local/tmp/edgeprof",
                 phone=PhoneConfig(serial=serial(d), adb=adb_client, adb_server_port=server_port,
                                   benchmark_model=BenchmarkModel(host_path=str(tree.benchmark_model_script())),
                                   power=PhonePower(**power) if power else None))
    return PhoneRunner(open_adb(dev), dev)


def model(tmp_path: Path, head: bytes = b"TFL3") -> Path:
    p = tmp_path / "m.tflite"
    p.write_bytes(head + bytes(4000))
    return p


def test_measure(adb_client, server_port, phone, tmp_path):
    s = session(phone, adb_client, server_port)
    m = model(tmp_path)
    remote, moved = s.push_artifact(str(m), sha256_file(str(m)), "tflite")
    assert moved == m.stat().st_size and remote.startswith("/data/local/tmp/edgeprof/artifacts/")
    assert s.push_artifact(str(m), sha256_file(str(m)), "tflite") == (remote, 0)  # by content: not again
    run = s.measure(remote, threads=2, num_runs=40, warmup_runs=2, min_secs=0.5, profile_ops=True)
    lat = run.latency_ms
    assert lat.count == 40 and lat.min is not None and lat.max is not None
    assert lat.p5 is not None and lat.p50 is not None and lat.p95 is not None
    assert lat.min <= lat.p5 <= lat.p50 <= lat.p95 <= lat.max
    assert "p99" not in lat.printed() and "p99" in lat.absent and "p90" not in lat.printed()
    assert run.init_ms == pytest.approx(21.432) and run.first_inference_ms > lat.p50
    assert run.memory_mb.peak == pytest.approx(9.48438)
    assert "--num_threads=2" in run.command and "--enable_op_profiling=true" in run.command
    assert [o.type for o in run.ops] == ["CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"]
    assert run.power is not None, run.power_reason
    assert run.power.mean_w == pytest.approx(0.412 * 3.912, rel=1e-6)
    assert run.power.discharge_sign == "negative" and run.power.samples >= 2
    assert run.thermal_before.status == 0 and run.warnings == []
    [d] = run.delegation
    assert (d.delegate, d.graph, d.delegate_kernels) == ("XNNPACK", "partially", 2)
    assert d.placement is not None and (d.placement.ops_on_delegate, d.placement.ops_on_cpu, d.placement.partitions) == (
        13, 1, 3)  # not a flatbuffer: 14 ops


def test_delegation_lines() -> None:
    from edgeprof.phone.benchmark import parse_delegation

    text = ("INFO: Explicitly applied GPU delegate, and the model graph will be completely executed by the delegate.\n"
            "INFO: Though NNAPI delegate is explicitly applied, the model graph will not be executed by the delegate.\n")
    assert [d.to_dict() for d in parse_delegation(text)] == [
        {"delegate": "GPU", "graph": "completely", "delegate_kernels": None},
        {"delegate": "NNAPI", "graph": "not", "delegate_kernels": 0}]


def test_charging_refuses_power_but_measures_latency(adb_client, server_port, phone, tmp_path):
    tree.set_battery(phone.root, charging=True)
    s = session(phone, adb_client, server_port)
    m = model(tmp_path)
    remote, _ = s.push_artifact(str(m), sha256_file(str(m)), "tflite")
    run = s.measure(remote, num_runs=10, warmup_runs=1, min_secs=0)
    assert run.power is None and "charging" in (run.power_reason or "")
    assert len([w for w in run.warnings if w.startswith("power refused")]) == 1
    assert run.latency_ms.count == 10


def test_hot_phone_warns(adb_client, server_port, phone, tmp_path):
    tree.set_thermal(phone.root, 2)
    s = session(phone, adb_client, server_port)
    m = model(tmp_path)
    remote, _ = s.push_artifact(str(m), sha256_file(str(m)), "tflite")
    run = s.measure(remote, num_runs=5, warmup_runs=1, min_secs=0)
    assert any("moderate" in w and "throttled" in w for w in run.warnings)


@pytest.mark.parametrize("head, expect", [(b"CRASHME!", "benchmark_model died"),
                                          (b"GARBAGE!", "not a finished benchmark")])
def test_crash_and_garbage(adb_client, server_port, phone, tmp_path, head, expect):
    s = session(phone, adb_client, server_port)
    m = model(tmp_path, head)
    remote, _ = s.push_artifact(str(m), sha256_file(str(m)), "tflite")
    with pytest.raises(MeasurementFailed, match=expect):
        s.measure(remote, num_runs=5, warmup_runs=1, min_secs=0)


def test_missing_graph(adb_client, server_port, phone):
    s = session(phone, adb_client, server_port)
    with pytest.raises(MeasurementFailed, match="Failed to mmap model /data/local/tmp/nope.tflite"):
        s.measure("/data/local/tmp/nope.tflite")


def test_a_phone_plugs_in_at_the_device_seam_not_at_the_agents_run_request(adb_client, server_port, phone):
    """benchmark_model prints no per-run times, so a phone never takes the agent's RunRequest: its measurer's
    forward-pass method is benchmark_model's (edgeprof/session/phone.py), and PhoneRunner offers no `run`."""
    from edgeprof.session import FORWARD_PASS, DeviceSession

    s = session(phone, adb_client, server_port)
    method = FORWARD_PASS.method_on(DeviceSession(s.device).measurer)
    assert type(method).__module__ == "edgeprof.session.phone" and not hasattr(s, "run")


def test_phone_vanishes_mid_run(adb_client, server_port, phone, tmp_path):
    s = session(phone, adb_client, server_port)
    m = model(tmp_path)
    remote, _ = s.push_artifact(str(m), sha256_file(str(m)), "tflite")
    threading.Timer(1.0, phone.vanish).start()
    with pytest.raises((TransportError, MeasurementFailed)):
        s.measure(remote, num_runs=2000, warmup_runs=1, min_secs=5, timeout=30)


def test_battery_units_deviation() -> None:
    p, reason, warnings = battery_power(["1000000000 -412 3912 Discharging", "1200000000 -410 3910 Discharging"])
    assert reason is None and p is not None and p.mean_w == pytest.approx(0.411 * 3.911, rel=1e-3)
    assert any("mA" in w for w in warnings) and any("mV" in w for w in warnings)


def test_the_phone_clock_read_around_a_tool_that_prints_nothing(adb_client, server_port, phone):
    """run_tool reads the phone clock (the sampler's: date +%s%N) just before and after the tool, in its shell line;
    a sample before the loop and one after the tool make the trace cover the whole process. A tool that prints
    nothing (no last newline before the trace's marker) still gives its trace."""
    s = session(phone, adb_client, server_port, rate_hz=10)
    run = s.run_tool(["sleep", "1"], tool="sleep")
    assert run.output == "" and run.span_ns is not None and run.power is not None, run.power_reason
    t0, t1 = run.span_ns
    trace = run.power.trace_ns
    assert trace[0] <= t0 and t0 + 1_000_000_000 <= t1 <= trace[-1] and list(trace) == sorted(trace)
    assert run.power.samples == len(trace) >= 4 and set(run.power.trace_w) == {0.412 * 3.912}
