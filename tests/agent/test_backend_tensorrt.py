"""The TensorRT backend's control flow, against the test double of `tensorrt` + cuda-python (tests/agent/fakes/
tensorrt). The double runs the ONNX with onnxruntime, so outputs are real; it logs every call so the build
flags, the engine cache and the synchronisation of each query can be checked. This is the ONLY place the
TensorRT code runs on our machines: no real TensorRT, no GPU."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from edgeprof_agent import PROTOCOL_VERSION
from edgeprof_agent.record import PACKED_INT64

FAKES = Path(__file__).resolve().parent / "fakes" / "tensorrt"
FAST = {"min_duration_s": 0.05, "min_queries": 5, "warmup_s": 0, "seed": 3}


def write_onnx(path, batch="batch"):
    w = np.random.RandomState(1).standard_normal((6, 4)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"), helper.make_node("Relu", ["h"], ["y"], name="act")],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 4])],
        [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.ravel().tolist())])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))
    return path, w


def gpu_tree(root):
    d = root / "proc" / "driver" / "nvidia" / "gpus" / "0000:01:00.0"
    d.mkdir(parents=True)
    (d / "information").write_text("Model: \t\t Tesla T4\nIRQ:   \t\t 40\n")
    return root


class Agent:
    def __init__(self, workdir, env, sysfs_root="/"):
        self.p = subprocess.Popen([sys.executable, "-m", "edgeprof_agent", "serve", "--workdir", str(workdir),
                                   "--sysfs-root", str(sysfs_root)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env)
        self.next_id = 1
        assert self.call("hello", {"protocol": PROTOCOL_VERSION})["ok"]

    def call(self, op, params=None):
        rid = self.next_id
        self.next_id += 1
        self.p.stdin.write(json.dumps({"id": rid, "op": op, "params": params or {}}) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            assert line, "agent exited: " + self.p.stderr.read()
            msg = json.loads(line)
            if "event" not in msg:
                return msg

    def close(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            self.p.wait(10)


def events(log):
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def run_params(model, precision="fp32", shape=(2, 6), **extra):
    p = {"runtime": "tensorrt", "artifact": {"path": str(model), "format": "onnx"},
         "inputs": [{"name": "x", "shape": list(shape), "dtype": "float32", "low": -1.0, "high": 1.0}],
         "runtime_options": {"precision": precision}, "return_outputs": "base64", **FAST}
    p.update(extra)
    return p


def decode(out):
    import base64

    return np.frombuffer(base64.b64decode(out["b64"]), dtype=out["dtype"]).reshape(out["shape"])


def test_fp16_engine_built_cached_and_every_query_synchronised(tmp_path, trt_env):
    env, log = trt_env
    model, w = write_onnx(tmp_path / "m.onnx")
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", run_params(model, "fp16"))
        assert r["ok"], r
        res = r["result"]
        opts = res["runtime"]["options"]
        assert res["runtime"]["runtime"] == "tensorrt" and res["runtime"]["version"] == "10.3.0"
        assert opts["precision"] == "fp16" and opts["io_api"].startswith("tensors")
        assert opts["engine_cache"]["hit"] is False and opts["engine_cache"]["builder"] == "tensorrt python api"
        assert opts["engine_cache"]["gpu"] == "Fake GPU T4"
        x = np.random.RandomState(3).uniform(-1, 1, (2, 6)).astype(np.float32)
        np.testing.assert_allclose(decode(res["outputs"][0]), np.maximum(x @ w, 0), rtol=1e-6)
        ev = events(log)
        build = [e for e in ev if e["event"] == "build"]
        assert len(build) == 1 and build[0]["flags"] == ["FP16"] and build[0]["detailed"] is True
        assert build[0]["profiles"] == [{"x": [[2, 6], [2, 6], [2, 6]]}]  # dynamic batch pinned to the run's shape
        assert [e["flags"] for e in ev if e["event"] == "create_network"] == [0]  # TensorRT 10: explicit batch
        # every query: H2D, execute, D2H, then a stream sync before anything else happens
        seq = [e["event"] for e in ev if e["event"] in ("htod", "execute", "dtoh", "sync")]
        first = seq.index("execute")
        body = seq[first - 1:]
        n_exec = body.count("execute")
        assert n_exec >= len(PACKED_INT64.decode(res["samples_ns"], "samples_ns")) >= 5  # packed (protocol 9)
        assert body == ["htod", "execute", "dtoh", "sync"] * n_exec
        engines = list((tmp_path / "work" / "trt-engines").glob("*.engine"))
        assert len(engines) == 1
        meta = json.loads(Path(str(engines[0]) + ".json").read_text())
        assert meta["precision"] == "fp16" and meta["tensorrt"] == "10.3.0" and meta["gpu"] == "Fake GPU T4"
        assert len(meta["onnx_sha256"]) == 64

        # same model, precision, GPU and TensorRT: the cached engine, no build
        r2 = agent.call("run", run_params(model, "fp16"))
        assert r2["ok"] and r2["result"]["runtime"]["options"]["engine_cache"]["hit"] is True
        assert sum(e["event"] == "build" for e in events(log)) == 1
        # another precision: another engine
        r3 = agent.call("run", run_params(model, "int8"))
        assert r3["ok"] and r3["result"]["runtime"]["options"]["engine_cache"]["hit"] is False
        assert [e["flags"] for e in events(log) if e["event"] == "build"][-1] == ["INT8"]
        assert len(list((tmp_path / "work" / "trt-engines").glob("*.engine"))) == 2
    finally:
        agent.close()


def test_tensorrt_8_bindings_api_and_no_transfers(tmp_path, trt_env):
    env, log = trt_env
    env["EDGEPROF_FAKE_TRT_VERSION"] = "8.2.1"  # JetPack 4.6
    model, w = write_onnx(tmp_path / "m.onnx")
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", run_params(model, "fp32", runtime_options={"precision": "fp32", "transfers": False}))
        assert r["ok"], r
        opts = r["result"]["runtime"]["options"]
        assert opts["io_api"].startswith("bindings") and opts["transfers"] is False
        x = np.random.RandomState(3).uniform(-1, 1, (2, 6)).astype(np.float32)
        np.testing.assert_allclose(decode(r["result"]["outputs"][0]), np.maximum(x @ w, 0), rtol=1e-6)
        ev = events(log)
        assert [e["flags"] for e in ev if e["event"] == "create_network"] == [1]  # 1 << EXPLICIT_BATCH
        seq = [e["event"] for e in ev if e["event"] in ("htod", "execute", "dtoh", "sync")]
        timed = seq[seq.index("execute") + 1:]
        timed = timed[:len(timed) - 2]  # the final outputs() copy
        assert "htod" not in timed and "dtoh" not in timed[:-1]
        assert timed[1:] == ["execute", "sync"] * ((len(timed) - 1) // 2)
    finally:
        agent.close()


def test_profile_pass_uses_iprofiler_per_layer(tmp_path, trt_env):
    env, _log = trt_env
    model, _ = write_onnx(tmp_path / "m.onnx")
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", run_params(model, profile_ops=True, profile_iterations=4))
        assert r["ok"], r
        ops = r["result"]["ops"]
        assert ops["available"] and ops["iterations"] == 4 and ops["source"].startswith("TensorRT IProfiler")
        assert [n[:3] for n in ops["nodes"]] == [["mm", "MatMul", "TensorRT"], ["act", "Relu", "TensorRT"]]
        assert ops["nodes"][0][3] == pytest.approx(4 * 0.01 * 1000) and ops["nodes"][0][4] == 4
    finally:
        agent.close()


def test_trtexec_builds_when_the_python_builder_fails(tmp_path, trt_env):
    env, log = trt_env
    env["EDGEPROF_FAKE_TRT_BUILD_FAIL"] = "1"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "trtexec"
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKES / 'bin' / 'trtexec'} \"$@\"\n")
    shim.chmod(0o755)
    env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"
    model, _ = write_onnx(tmp_path / "m.onnx")
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", run_params(model, "fp16"))
        assert r["ok"], r
        assert r["result"]["runtime"]["options"]["engine_cache"]["builder"].startswith("trtexec")
        argv = [e["argv"] for e in events(log) if e["event"] == "trtexec" and "--help" not in e["argv"]][0]
        assert "--fp16" in argv and any(a.startswith("--onnx=") for a in argv)
        assert "--minShapes=x:2x6" in argv and "--maxShapes=x:2x6" in argv
    finally:
        agent.close()


def test_failed_build_without_trtexec_is_one_error(tmp_path, trt_env):
    env, _ = trt_env
    env["EDGEPROF_FAKE_TRT_BUILD_FAIL"] = "1"
    env["PATH"] = "/usr/bin:/bin"
    model, _ = write_onnx(tmp_path / "m.onnx")
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", run_params(model))
        assert not r["ok"] and r["error"]["type"] == "load_failed"
        assert "could not build an engine" in r["error"]["message"]
    finally:
        agent.close()


def test_no_gpu_means_a_capability_error_before_importing_tensorrt(tmp_path, trt_env):
    env, log = trt_env
    model, _ = write_onnx(tmp_path / "m.onnx")
    empty = tmp_path / "root"
    empty.mkdir()
    agent = Agent(tmp_path / "work", env, empty)
    try:
        r = agent.call("run", run_params(model))
        assert not r["ok"] and r["error"]["type"] == "capability"
        assert r["error"]["message"].startswith("tensorrt needs an NVIDIA GPU")
        assert events(log) == []
    finally:
        agent.close()


def test_a_users_int8_file_builds_an_int8_engine_without_precision_given(tmp_path, trt_env):
    """A user's already-quantised ONNX (Q/DQ) runs as given, labelled `int8 (as given)`; with --precision left at
    fp32 the run request still asks TensorRT for int8, so the builder sets INT8 (it built without it)."""
    import shutil

    from edgeprof.records import RunSpec, local_device
    from edgeprof.run import input_params, prepare, run_request

    env, log = trt_env
    model, _ = write_onnx(tmp_path / "m.onnx")
    cache = tmp_path / "cache"
    qdq = prepare(RunSpec(device="local", model=str(model), runtime="onnxruntime", precision="int8"),
                  cache).artifact
    user = tmp_path / "user_int8.onnx"
    shutil.copy(qdq.path, user)
    spec = RunSpec(device="local", model=str(user), runtime="tensorrt", min_duration_s=0.05, min_queries=5,
                   warmup_s=0)
    artifact = prepare(spec, cache).artifact
    assert artifact.precision == "int8" and artifact.export_options.precision_as_given
    request = run_request(spec, local_device(), artifact, str(user), input_params(artifact, spec, cache),
                          return_outputs=False, profile_ops=False)
    assert request.runtime_options["precision"] == "int8"
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", request.to_dict())
        assert r["ok"], r
        assert r["result"]["runtime"]["options"]["precision"] == "int8"
        assert [e["flags"] for e in events(log) if e["event"] == "build"] == [["INT8"]]
    finally:
        agent.close()


@pytest.mark.parametrize("version, transfers", [("8.2.1", False), ("10.3.0", True)])
def test_accuracy_pass_feeds_every_sample_through_the_engine(tmp_path, trt_env, version, transfers):
    """run.accuracy on TensorRT: each batch of samples goes into the engine's input buffers (set_inputs: the host
    buffer, and the GPU copy when the timed runs do not copy), padded at the end; the top-k and errors come from
    the engine's own outputs (the double computes them with onnxruntime), so they are those of x @ w, relu."""
    env, _log = trt_env
    env["EDGEPROF_FAKE_TRT_VERSION"] = version
    model, w = write_onnx(tmp_path / "m.onnx")
    x = np.random.RandomState(7).uniform(-1, 1, (5, 6)).astype(np.float32)
    want = np.maximum(x @ w, 0)
    work = tmp_path / "work"
    work.mkdir()
    np.savez(work / "acc.npz", **{"in:x": x, "expected:0": want})
    agent = Agent(work, env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", run_params(model, "fp32", runtime_options={"precision": "fp32",
                                                                         "transfers": transfers},
                                         accuracy={"data": {"path": "acc.npz", "format": "npz"}, "samples": 5,
                                                   "inputs": ["x"], "per_inference": 2, "stacked": True,
                                                   "topk_output": 0, "k": 3, "expected": [0]}))
        assert r["ok"], r
        acc = r["result"]["accuracy"]
        assert acc["error"] is None and acc["inferences"] == 3 and acc["padded"] == 1 and acc["classes"] == 4
        assert acc["topk"] == [np.argsort(-row, kind="mergesort")[:3].tolist() for row in want]
        (e,) = acc["errors"]
        assert max(e["max_abs"]) < 1e-5 and min(e["cosine"]) > 0.9999 or not want.any()
    finally:
        agent.close()
