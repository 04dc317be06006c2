"""The agent as a real subprocess speaking JSON lines (no host package involved on its side)."""

import json
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from edgeprof_agent import PROTOCOL_VERSION
from edgeprof_agent.record import PACKED_INT64


class Agent:
    def __init__(self, workdir):
        self.p = subprocess.Popen([sys.executable, "-m", "edgeprof_agent", "serve", "--workdir", str(workdir)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        self.next_id = 1
        self.events = []
        self.packed = None  # the last run reply's samples_ns as sent

    def call(self, op, params=None):
        rid = self.next_id
        self.next_id += 1
        self.p.stdin.write(json.dumps({"id": rid, "op": op, "params": params or {}}) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            assert line, "agent exited: " + self.p.stderr.read()
            msg = json.loads(line)  # every stdout line must be JSON
            if "event" in msg:
                self.events.append(msg)
                continue
            assert msg["id"] == rid
            result = msg.get("result")
            if isinstance(result, dict) and "samples_ns" in result:  # protocol 9: packed int64, decoded here
                self.packed = result["samples_ns"]
                result["samples_ns"] = PACKED_INT64.decode(self.packed, "run reply.samples_ns")
            return msg

    def close(self):
        self.p.stdin.close()
        assert self.p.wait(10) == 0


@pytest.fixture
def agent(tmp_path):
    a = Agent(tmp_path / "work dir")
    yield a
    if a.p.poll() is None:
        a.p.kill()


def hello(agent):
    r = agent.call("hello", {"protocol": PROTOCOL_VERSION})
    assert r["ok"], r
    return r["result"]


def test_hello_must_come_first(agent):
    r = agent.call("facts")
    assert not r["ok"] and r["error"]["type"] == "protocol"
    assert hello(agent)["protocol"] == PROTOCOL_VERSION


def test_protocol_mismatch_is_refused_with_a_hint(agent):
    r = agent.call("hello", {"protocol": PROTOCOL_VERSION + 1})
    assert not r["ok"]
    assert r["error"]["type"] == "protocol_mismatch" and "hint" in r["error"]


def test_workdir_is_created_and_used(agent, tmp_path):
    info = hello(agent)
    assert info["workdir"] == str(tmp_path / "work dir")
    assert (tmp_path / "work dir").is_dir()


def test_facts(agent):
    hello(agent)
    f = agent.call("facts")["result"]
    for key in ("hostname", "arch", "cpu", "cores", "memory_mb", "os", "kernel", "python", "runtimes",
                "disk_free_mb", "env", "agent_version"):
        assert key in f, key
    assert f["runtimes"]["onnxruntime"]["version"]
    assert "CPUExecutionProvider" in f["runtimes"]["onnxruntime"]["providers"]


def test_unknown_op_and_malformed_line(agent):
    hello(agent)
    r = agent.call("format_disk")
    assert not r["ok"] and r["error"]["type"] == "unknown_op"
    agent.p.stdin.write("this is not json\n")
    agent.p.stdin.flush()
    msg = json.loads(agent.p.stdout.readline())
    assert msg["ok"] is False and msg["error"]["type"] == "protocol"
    assert agent.p.wait(10) == 2


def test_null_run_meets_both_stop_conditions(agent):
    hello(agent)
    # max_queries None: no cap (its default, vocab.RUN_DEFAULTS, would stop the null runtime before 0.3 s)
    r = agent.call("run", {"runtime": "null", "min_duration_s": 0.3, "min_queries": 50, "warmup_s": 0,
                           "max_queries": None})
    assert r["ok"], r
    res = r["result"]
    assert len(res["samples_ns"]) >= 50
    assert res["window_s"] >= 0.3
    assert all(isinstance(x, int) and x >= 0 for x in res["samples_ns"][:100])
    assert res["stopped_by"] == "min_duration and min_queries met"
    assert set(agent.packed) == {"dtype", "codec", "n", "b64"} and agent.packed["codec"] == "shuffle8+zlib"  # packed
    # the agent's phases start when it read the request: its setup (the measuring code imported) is inside
    ph = res["phases"]
    assert ph["setup_s"] > 0 and ph["total_s"] >= ph["setup_s"] + ph["measure_s"] >= res["window_s"]


def test_min_queries_dominates_when_queries_are_slow(agent, tmp_path):
    # a model whose queries take measurable time: 200 queries must all run even though 0 s is the duration
    path = tmp_path / "mm.onnx"
    _write_matmul(path, 64)
    hello(agent)
    spec = [{"name": "x", "shape": [1, 64], "dtype": "float32", "low": 0, "high": 1}]
    r = agent.call("run", {"runtime": "onnxruntime", "artifact": {"path": str(path)}, "inputs": spec,
                           "min_duration_s": 0.0, "min_queries": 200, "warmup_s": 0.05, "threads": 1,
                           "return_outputs": True})
    assert r["ok"], r
    res = r["result"]
    assert len(res["samples_ns"]) == 200
    assert res["runtime"]["runtime"] == "onnxruntime"
    assert res["runtime"]["options"]["threads"] == 1
    assert res["memory"]["rss_after_load"] >= res["memory"]["rss_before_load"] > 0
    assert res["memory"]["peak_rss"] > 0
    # outputs equal numpy on the same seeded inputs: the inputs are really pre-bound
    rs = np.random.RandomState(0)
    x = rs.uniform(0, 1, size=(1, 64)).astype("float32")
    w = np.arange(64 * 64, dtype=np.float32).reshape(64, 64) / 4096.0
    out = np.array(res["outputs"][0]["data"], dtype=np.float32).reshape(1, 64)
    np.testing.assert_allclose(out, x @ w, rtol=1e-5)
    phases = {e.get("phase") for e in agent.events}
    assert {"load", "measure"} <= phases


def test_max_queries_caps_raw_samples(agent):
    hello(agent)
    r = agent.call("run", {"runtime": "null", "min_duration_s": 30, "min_queries": 10, "max_queries": 1000,
                           "warmup_s": 0})
    res = r["result"]
    assert len(res["samples_ns"]) == 1000 and res["stopped_by"].startswith("max_queries")


def test_bad_model_file_is_a_clean_error(agent, tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x00garbage")
    hello(agent)
    r = agent.call("run", {"runtime": "onnxruntime", "artifact": {"path": str(bad)}, "inputs": [],
                           "min_duration_s": 0, "min_queries": 1, "warmup_s": 0})
    assert not r["ok"] and r["error"]["type"] == "load_failed"
    # the agent survives a failed run
    assert agent.call("ping")["ok"]


def test_unknown_runtime(agent):
    hello(agent)
    r = agent.call("run", {"runtime": "tvm"})
    assert not r["ok"] and r["error"]["type"] == "unknown_runtime"


def _write_matmul(path, n):
    w = (np.arange(n * n, dtype=np.float32).reshape(n, n) / 4096.0)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "mm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", n])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", n])],
        [helper.make_tensor("w", TensorProto.FLOAT, [n, n], w.ravel().tolist())],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def test_sha256_only_inside_workdir(agent, tmp_path):
    hello(agent)
    wd = tmp_path / "work dir"
    (wd / "a.bin").write_bytes(b"abc")
    r = agent.call("sha256", {"path": str(wd / "a.bin")})
    assert r["result"]["sha256"] == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert agent.call("sha256", {"path": str(wd / "missing")})["result"]["sha256"] is None
    for outside in ("/etc/passwd", str(wd / ".." / "x"), "../../etc/passwd"):
        r = agent.call("sha256", {"path": outside})
        assert not r["ok"] and r["error"]["type"] == "bad_path"


def test_a_malformed_request_is_refused_naming_the_field(agent):
    hello(agent)
    r = agent.call("run", {"runtime": "null", "max_duration_s": 5})
    assert not r["ok"] and r["error"]["type"] == "protocol"
    assert "run: unknown field 'max_duration_s'" in r["error"]["message"]
    r = agent.call("run", {"runtime": "null", "inputs": [{"shape": [1, 2]}]})
    assert not r["ok"] and "run.inputs[0]: missing field 'name'" in r["error"]["message"]
    r = agent.call("run", {"runtime": "null", "min_queries": "many"})
    assert not r["ok"] and "run.min_queries: expected an integer, got string" in r["error"]["message"]
    r = agent.call("sha256", {})
    assert not r["ok"] and "sha256: missing field 'path'" in r["error"]["message"]
    assert agent.call("ping")["result"] == {"pong": True}  # the agent survives each of them


def test_replies_match_their_records(agent):
    """Every reply the real agent sends parses strictly as the op's reply record (and round-trips)."""
    from edgeprof_agent.messages import OPS

    got = {"hello": hello(agent)}
    for op, params in (("facts", {"runtimes": False}), ("ping", {}), ("lease_info", {}),
                       ("sha256", {"path": "missing"}),
                       ("run", {"runtime": "null", "min_duration_s": 0.05, "min_queries": 5, "warmup_s": 0.05,
                                "idle_s": 0})):
        r = agent.call(op, params)
        assert r["ok"], r
        got[op] = r["result"]
    got["run"]["samples_ns"] = agent.packed  # as the agent sent it (call() decoded it)
    for op, result in got.items():
        record = OPS[op][1].from_dict(result)
        assert record.to_dict() == result, op
    for e in agent.events:
        from edgeprof_agent.messages import parse_event
        assert parse_event(e).to_dict() == e


def test_a_run_s_phases_start_at_the_stamp_it_is_handed_and_a_forked_child_takes_none(tmp_path):
    """The reading process's stamp of a request is where that run's phases start; a child forked from it (the
    standby child was forked before its request was read) gets no stamp: its run's setup_s is unknown."""
    import io
    import os

    from edgeprof_agent import protocol, worker
    from edgeprof_agent.clock import now_ns
    from edgeprof_agent.messages import RunRequest
    from edgeprof_agent.sysfs import SysfsRoot
    from edgeprof_agent.tools import ToolRunner

    protocol.read_request(io.StringIO('{"id": 1, "op": "ping"}\n'))
    assert protocol.received_ns() is not None
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.write(w, b"none" if protocol.received_ns() is None else b"some")
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(r, 4) == b"none"
    os.close(r)
    os.close(w)
    req = RunRequest(runtime="null", min_duration_s=0.01, min_queries=5, warmup_s=0, idle_s=0, max_queries=None)
    reply = worker.run_measurement(req, str(tmp_path), SysfsRoot(str(tmp_path)), ToolRunner(),
                                   received=now_ns() - 200_000_000)
    assert reply.phases.setup_s >= 0.2 and reply.phases.total_s >= reply.phases.setup_s + reply.phases.measure_s
    later = worker.run_measurement(req, str(tmp_path), SysfsRoot(str(tmp_path)), ToolRunner(),
                                   received=now_ns() + 10**12)  # not this request's: ignored
    assert later.phases.setup_s is None and later.phases.total_s < 100
