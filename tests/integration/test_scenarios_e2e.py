"""Offline with a CPU-bound model: two streams (two onnxruntime sessions, one thread each) against one, through a
real local deploy. On two free cores two streams about double the samples per second; on a machine whose cores
are busy with other work they cannot, and the test says so (with the ratio it measured) instead of asserting
what the hardware cannot give."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from edgeprof.records import Device, RunSpec
from edgeprof.run import deploy


def _model(path: Path) -> str:
    """Two 512x512 MatMuls on a 1x128x512 input: about 130 MFLOP, a few ms on one core."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper

    rs = np.random.RandomState(0)
    inits, nodes, prev = [], [], "x"
    for i in range(2):
        w = (rs.standard_normal((512, 512)) / 22.6).astype(np.float32)
        inits.append(helper.make_tensor(f"w{i}", TensorProto.FLOAT, w.shape, w.ravel().tolist()))
        out = "y" if i else "h"
        nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [out]))
        prev = out
    graph = helper.make_graph(nodes, "mm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 128, 512])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 128, 512])], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return str(path)


def _rate(model: str, streams: int, tmp_path: Path) -> float:
    spec = RunSpec(device="local", model=model, runtime="onnxruntime", threads=1, scenario="offline",
                   streams=streams, min_duration_s=2.0, min_queries=20, warmup_s=0.5, idle_s=0.0)
    dev = Device(name="local", kind="local", python=sys.executable, workdir=str(tmp_path / "wd"))
    r = deploy(spec, dev, cache_dir=tmp_path / "cache")
    assert r.status == "ok" and r.scenario.streams == streams and r.scenario.samples == r.scenario.queries
    assert r.throughput_ips == pytest.approx(r.scenario.samples_per_s)
    assert r.scenario.samples_per_s is not None
    return r.scenario.samples_per_s


@pytest.mark.slow
def test_offline_two_streams_on_two_cores(tmp_path: Path) -> None:
    model = _model(tmp_path / "mm.onnx")
    cores = os.cpu_count() or 1
    load_before = os.getloadavg()[0]
    one = _rate(model, 1, tmp_path)
    two = _rate(model, 2, tmp_path)
    ratio = two / one
    free = cores - max(load_before, os.getloadavg()[0])
    assert ratio > 0.7, f"two streams were much slower than one ({ratio:.2f}x): the streams block each other"
    if cores >= 2 and free >= 1.8:
        assert ratio >= 1.5, f"2 streams {two:.0f}/s vs 1 stream {one:.0f}/s on {cores} cores ({free:.1f} free)"
    else:
        pytest.skip(f"2 streams gave {ratio:.2f}x the samples/s of 1 ({two:.0f} vs {one:.0f}), but only {free:.1f} "
                    f"of {cores} cores were free (load average {load_before:.1f}): doubling needs two idle cores")
