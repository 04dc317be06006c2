"""Delegated-op counts: the interpreter's "Replacing N out of M node(s) with delegate (K) node" lines (LiteRT
tflite/core/subgraph.cc, in each of the three forms LiteRT and TensorFlow Lite releases printed) parsed into ops on
the delegate vs on LiteRT's CPU kernels; end to end through the replay benchmark_model on the stand-in phone."""

from __future__ import annotations

from pathlib import Path

import phone_tree as tree
import pytest
from phone_adbd import serial

from edgeprof.phone.benchmark import Delegation, parse_delegation, parse_placement, placement_line
from edgeprof.phone.runner import PhoneRunner
from edgeprof.records import Device
from edgeprof.records.device import BenchmarkModel, PhoneConfig
from edgeprof.transport.adb import open_adb, sha256_file

# LiteRT today (subgraph.cc: "... yielding %zu partitions for subgraph %d.", VERBOSE) and the explicit line
# benchmark_tflite_model.cc prints after ModifyGraphWithDelegate
CURRENT = """INFO: Created TensorFlow Lite XNNPACK delegate for CPU.
VERBOSE: Replacing 59 out of 62 node(s) with delegate (TfLiteXNNPackDelegate) node, yielding 5 partitions for subgraph 0.
INFO: Explicitly applied XNNPACK delegate, and the model graph will be partially executed by the delegate w/ 2 delegate kernels.
"""
# TensorFlow Lite 2.6-2.15: "... for the whole graph."; before 2.6 no "out of M"
WHOLE_GRAPH = ("INFO: Replacing 31 out of 31 node(s) with delegate (TfLiteGpuDelegateV2) node, yielding 1 partitions "
               "for the whole graph.\n")
OLDEST = "INFO: Replacing 1 node(s) with delegate (TfLiteGpuDelegateV2) node, yielding 1 partitions.\n"


def test_current_line_with_the_explicit_one() -> None:
    [d] = parse_delegation(CURRENT)
    assert (d.delegate, d.graph, d.delegate_kernels) == ("XNNPACK", "partially", 2)
    p = d.placement
    assert p is not None and (p.ops_on_delegate, p.ops_total, p.ops_on_cpu, p.partitions) == (59, 62, 3, 5)
    assert p.unit == "CPU (XNNPACK)" and p.subgraphs == [0]
    assert Delegation.from_dict(d.to_dict()) == d  # the phone section's stored shape reads back whole
    assert placement_line(d) == ("delegate XNNPACK: graph partially delegated (2 delegate kernels); ops: 59 of 62 on "
                                 "CPU (XNNPACK), 3 on the CPU (LiteRT's kernels), 5 partitions")


def test_older_forms_and_a_delegate_no_flag_applied() -> None:
    [d] = parse_delegation(WHOLE_GRAPH)  # no "Explicitly applied" line: the runtime applied it
    assert d.placement is not None and (d.delegate, d.graph, d.placement.ops_on_cpu, d.placement.unit) == (
        "GPU", "completely", 0, "GPU")
    assert d.applied is not None and d.applied.startswith("by the runtime")
    assert Delegation.from_dict(d.to_dict()) == d
    [p] = parse_placement(OLDEST)
    assert (p.ops_on_delegate, p.ops_total, p.ops_on_cpu) == (1, None, None)
    line = placement_line(Delegation(delegate=p.delegate, graph="partially", delegate_kernels=None, placement=p))
    assert line.endswith("ops: 1 on GPU (this LiteRT prints no total)")


def test_two_delegates_and_two_subgraphs() -> None:
    text = ("VERBOSE: Replacing 5 out of 64 node(s) with delegate (TfLiteNnapiDelegate) node, yielding 5 partitions "
            "for subgraph 0.\nVERBOSE: Replacing 59 out of 62 node(s) with delegate (TfLiteXNNPackDelegate) node, "
            "yielding 5 partitions for subgraph 0.\nVERBOSE: Replacing 4 out of 4 node(s) with delegate "
            "(TfLiteXNNPackDelegate) node, yielding 1 partitions for subgraph 1.\n")
    nnapi, xnn = parse_placement(text)
    assert (nnapi.delegate, nnapi.ops_on_delegate, nnapi.ops_on_cpu) == ("NNAPI", 5, 59)
    assert (xnn.ops_on_delegate, xnn.ops_total, xnn.subgraphs) == (63, 66, [0, 1])
    assert parse_placement("Replacing lots of node(s)\nReplacing 3 out of node(s) with delegate") == []


def _session(d, adb_client: str, server_port: int) -> PhoneRunner:  # type: ignore[no-untyped-def]
    dev = Device(name="pixel", kind="adb", host=serial(d), python="", workdir="/data/local/tmp/edgeprof",
                 phone=PhoneConfig(serial=serial(d), adb=adb_client, adb_server_port=server_port,
                                   benchmark_model=BenchmarkModel(host_path=str(tree.benchmark_model_script()))))
    return PhoneRunner(open_adb(dev), dev)


@pytest.mark.parametrize("delegate, want", [("gpu", ("GPU", "completely", 14, 0)),
                                            ("nnapi", ("NNAPI", "partially", 7, 7)),
                                            ("cpu", None)])
def test_measured_placement(adb_client, server_port, phone, tmp_path: Path, delegate, want):
    s = _session(phone, adb_client, server_port)
    m = tmp_path / "m.tflite"
    m.write_bytes(b"TFL3" + bytes(4000))  # not a flatbuffer: the replay's 14 ops
    remote, _ = s.push_artifact(str(m), sha256_file(str(m)), "tflite")
    run = s.measure(remote, num_runs=5, warmup_runs=1, min_secs=0, delegate=delegate, power=False)
    if want is None:  # --use_xnnpack=false: no delegate, every op on LiteRT's kernels
        assert run.delegation == [] and "--use_xnnpack=false" in run.command
        return
    [d] = run.delegation
    assert d.placement is not None
    assert (d.delegate, d.graph, d.placement.ops_on_delegate, d.placement.ops_on_cpu) == want
