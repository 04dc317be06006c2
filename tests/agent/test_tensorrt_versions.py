"""The TensorRT backend against every version profile of the double (tests/agent/fakes/tensorrt: 8.2, 8.4, 8.5, 8.6,
10.x, 11.x), with the CUDA Python bindings each stack really has (pycuda on JetPack 4.6, cuda-python 12 old and new
layout, cuda-python 13), and what each version refuses: the doubles reject what the real release rejects, so a
backend that calls a missing API or passes a flag that release does not know fails here.
The 8.2 profile also runs under Python 3.6 (the JetPack 4.6 stand-in venv of tests/stacks)."""

import glob
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from test_backend_tensorrt import FAKES, Agent, decode, events, gpu_tree, run_params, write_onnx

from edgeprof_agent.backends.tensorrt import banner_version, trtexec_argv, version_tuple

REPO = Path(__file__).resolve().parents[2]
# (TensorRT, cuda-python or "none", pycuda?) as the boards of docs/stacks.md have them
STACKS = {
    "8.2": ("8.2.1", "none", True),  # JetPack 4.6: CUDA 10.2, Python 3.6, pycuda only
    "8.4": ("8.4.3", "12.4.0", False),  # bindings only, memory pools
    "8.5": ("8.5.2", "12.4.0", False),  # JetPack 5.1 era, cuda-python's old layout (cuda.cudart)
    "8.6": ("8.6.1", "12.6.2", False),  # JetPack 6.0: both layouts, the new one is taken
    "10.x": ("10.3.0", "13.0.0", False),  # JetPack 6.1 / x86: cuda.bindings.runtime only
    "11.x": ("11.0.0", "13.0.0", False),
}
# 1 << EXPLICIT_BATCH (0) before 10; none in 10; 1 << STRONGLY_TYPED (1) in 11
NETWORK_FLAGS = {"8.2": 1, "8.4": 1, "8.5": 1, "8.6": 1, "10.x": 0, "11.x": 2}


def stack_env(env, profile, driver="13000"):
    trt, cuda_python, pycuda = STACKS[profile]
    env["EDGEPROF_FAKE_TRT_VERSION"] = trt
    env["EDGEPROF_FAKE_CUDA_PYTHON"] = cuda_python
    env["EDGEPROF_FAKE_CUDA_DRIVER"] = driver
    if pycuda:
        env["EDGEPROF_FAKE_PYCUDA"] = "1"
    else:
        env.pop("EDGEPROF_FAKE_PYCUDA", None)
    return env


def trtexec_shim(tmp_path, env, python=None):
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    shim = bindir / "trtexec"
    shim.write_text(f"#!/bin/sh\nexec {python or sys.executable} {FAKES / 'bin' / 'trtexec'} \"$@\"\n")
    shim.chmod(0o755)
    env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"
    return shim


def static_onnx(path, fp16=False):
    """A fully static model (batch 2); fp16=True: its tensors are float16 (what TensorRT 11 builds fp16 from)."""
    t = TensorProto.FLOAT16 if fp16 else TensorProto.FLOAT
    w = np.random.RandomState(1).standard_normal((6, 4)).astype(np.float16 if fp16 else np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"), helper.make_node("Relu", ["h"], ["y"], name="act")],
        "g", [helper.make_tensor_value_info("x", t, [2, 6])], [helper.make_tensor_value_info("y", t, [2, 4])],
        [helper.make_tensor("w", t, w.shape, w.tobytes(), raw=True)])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.save(m, str(path))
    return path, w


def double(code, env):
    """Run `code` with the doubles importable under `env` (the version switch is read at import)."""
    e = dict(os.environ, **env)
    e["PYTHONPATH"] = str(FAKES)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True, timeout=60)


# ------------------------------------------------------------------------------------------- every profile
@pytest.mark.parametrize("profile", sorted(STACKS))
def test_backend_runs_on_every_profile(tmp_path, trt_env, profile):
    env, log = trt_env
    stack_env(env, profile)
    model, w = write_onnx(tmp_path / "m.onnx")
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", run_params(model, "fp32"))
        assert r["ok"], r
        res = r["result"]
        opts = res["runtime"]["options"]
        assert res["runtime"]["version"] == STACKS[profile][0]
        assert opts["io_api"].startswith("bindings" if profile in ("8.2", "8.4") else "tensors"), opts
        old_layout = "cuda-python (cuda.cudart)"
        assert opts["cuda"] == {"8.2": "pycuda", "8.4": old_layout, "8.5": old_layout}.get(
            profile, "cuda-python (cuda.bindings.runtime)")
        assert opts["typing"].startswith("strong" if profile == "11.x" else "weak")
        x = np.random.RandomState(3).uniform(-1, 1, (2, 6)).astype(np.float32)
        np.testing.assert_allclose(decode(res["outputs"][0]), np.maximum(x @ w, 0), rtol=1e-6)
        ev = events(log)
        assert [e["flags"] for e in ev if e["event"] == "create_network"] == [NETWORK_FLAGS[profile]]
        build = [e for e in ev if e["event"] == "build"][0]
        assert build["workspace"] == (["max_workspace_size", 1 << 30] if profile == "8.2" else ["pool", 1 << 30])
        assert build["profiles"] == [{"x": [[2, 6], [2, 6], [2, 6]]}] and build["flags"] == []
        assert build["strongly_typed"] is (profile == "11.x")
    finally:
        agent.close()


@pytest.mark.parametrize("profile", ["8.2", "8.6", "10.x"])
def test_fp16_and_int8_are_builder_flags_up_to_10(tmp_path, trt_env, profile):
    env, log = trt_env
    stack_env(env, profile)
    model, _ = write_onnx(tmp_path / "m.onnx")
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        assert agent.call("run", run_params(model, "fp16"))["ok"]
        assert agent.call("run", run_params(model, "int8"))["ok"]
        assert [e["flags"] for e in events(log) if e["event"] == "build"] == [["FP16"], ["INT8"]]
    finally:
        agent.close()


def test_tensorrt_11_takes_precision_from_the_onnx(tmp_path, trt_env):
    env, log = trt_env
    stack_env(env, "11.x")
    fp32, _ = write_onnx(tmp_path / "m.onnx")
    fp16, w16 = static_onnx(tmp_path / "m16.onnx", fp16=True)
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", run_params(fp32, "fp16"))  # an fp32 ONNX cannot become fp16 without BuilderFlag.FP16
        assert not r["ok"] and r["error"]["type"] == "bad_option"
        msg = r["error"]["message"]
        assert "\n" not in msg and msg.startswith("TensorRT 11.0.0 builds strongly typed networks")
        assert "BuilderFlag.FP16 was removed" in msg and "fp16" in r["error"]["hint"]
        r = agent.call("run", run_params(fp32, "int8"))
        assert not r["ok"] and "Q/DQ" in r["error"]["message"]
        assert [e for e in events(log) if e["event"] == "build"] == []  # refused before any build

        p = run_params(fp16, "fp16")
        p["inputs"][0]["dtype"] = "float16"
        r = agent.call("run", p)
        assert r["ok"], r
        build = [e for e in events(log) if e["event"] == "build"]
        assert len(build) == 1 and build[0]["flags"] == [] and build[0]["strongly_typed"] is True
        assert build[0]["profiles"] == []  # static model: no optimisation profile
        out = decode(r["result"]["outputs"][0])
        assert out.dtype == np.float16 and out.shape == (2, 4)
        assert any("strongly typed" in n for n in r["result"]["runtime"]["options"]["build_notes"])
    finally:
        agent.close()


# -------------------------------------------------------------------------------------------- trtexec
@pytest.mark.parametrize("profile,expect,absent", [
    ("8.2", ["--buildOnly", "--workspace=1024", "--fp16"], ["--skipInference", "--memPoolSize=workspace:1024"]),
    ("8.4", ["--buildOnly", "--memPoolSize=workspace:1024", "--fp16"], ["--skipInference", "--workspace=1024"]),
    ("8.5", ["--buildOnly", "--memPoolSize=workspace:1024", "--fp16"], ["--skipInference", "--workspace=1024"]),
    ("8.6", ["--skipInference", "--memPoolSize=workspace:1024", "--fp16"], ["--buildOnly", "--workspace=1024"]),
    ("10.x", ["--skipInference", "--memPoolSize=workspace:1024", "--fp16"], ["--buildOnly", "--workspace=1024"]),
])
def test_trtexec_fallback_speaks_each_versions_flags(tmp_path, trt_env, profile, expect, absent):
    env, log = trt_env
    stack_env(env, profile)
    env["EDGEPROF_FAKE_TRT_BUILD_FAIL"] = "1"
    trtexec_shim(tmp_path, env)
    dynamic, _ = write_onnx(tmp_path / "dyn.onnx")
    static, _ = static_onnx(tmp_path / "static.onnx")
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        for model, shapes in ((dynamic, True), (static, False)):
            r = agent.call("run", run_params(model, "fp16"))
            assert r["ok"], r
            assert r["result"]["runtime"]["options"]["engine_cache"]["builder"].startswith("trtexec")
            argv = [e["argv"] for e in events(log) if e["event"] == "trtexec" and "--help" not in e["argv"]][-1]
            assert set(expect) <= set(argv) and not set(absent) & set(argv), argv
            # shape flags only for a dynamic input: trtexec refuses them on a static model
            assert ("--minShapes=x:2x6" in argv) is shapes and ("--maxShapes=x:2x6" in argv) is shapes
    finally:
        agent.close()


def test_trtexec_11_gets_no_precision_flag(tmp_path, trt_env):
    env, log = trt_env
    stack_env(env, "11.x")
    env["EDGEPROF_FAKE_TRT_BUILD_FAIL"] = "1"
    trtexec_shim(tmp_path, env)
    fp16, _ = static_onnx(tmp_path / "m16.onnx", fp16=True)
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        p = run_params(fp16, "fp16")
        p["inputs"][0]["dtype"] = "float16"
        r = agent.call("run", p)
        assert r["ok"], r
        argv = [e["argv"] for e in events(log) if e["event"] == "trtexec" and "--help" not in e["argv"]][-1]
        assert "--fp16" not in argv and "--skipInference" in argv and not any("Shapes" in a for a in argv)
    finally:
        agent.close()


def test_trtexec_failure_is_one_line_with_its_error(tmp_path, trt_env):
    """A trtexec that refuses the build: the one-line error carries trtexec's own [E] line."""
    env, _ = trt_env
    stack_env(env, "8.2")
    env["EDGEPROF_FAKE_TRT_BUILD_FAIL"] = "1"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "trtexec"  # an 8.2 trtexec that is always handed --skipInference
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKES / 'bin' / 'trtexec'} \"$@\" --skipInference\n")
    shim.chmod(0o755)
    env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"
    model, _ = write_onnx(tmp_path / "m.onnx")
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", run_params(model))
        assert not r["ok"] and r["error"]["type"] == "load_failed"
        assert r["error"]["message"] == "trtexec 8.2.1 could not build the engine (exit 1): Unknown option: " \
                                        "--skipInference"
    finally:
        agent.close()


@pytest.mark.parametrize("version,banner", [("8.2.1", "[TensorRT v8201]"), ("8.6.1", "[TensorRT v8601]"),
                                            ("10.3.0", "[TensorRT v100300]"), ("11.0.0", "[TensorRT v110000]")])
def test_trtexec_double_banner_and_its_decoding(tmp_path, version, banner):
    env = {"EDGEPROF_FAKE_TRT_VERSION": version}
    p = subprocess.run([sys.executable, str(FAKES / "bin" / "trtexec"), "--help"], env=dict(os.environ, **env),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and banner in p.stdout.splitlines()[0]
    assert banner_version(banner[len("[TensorRT v"):-1]) == version_tuple(version)


@pytest.mark.parametrize("version,argv,message", [
    ("8.2.1", ["--skipInference"], "[E] Unknown option: --skipInference "),
    ("8.2.1", ["--memPoolSize=workspace:1024"], "[E] Unknown option: --memPoolSize workspace:1024"),
    ("8.5.2", ["--skipInference"], "[E] Unknown option: --skipInference "),
    ("10.3.0", ["--buildOnly"], "[E] Unknown option: --buildOnly "),
    ("10.3.0", ["--workspace=1024"], "[E] Unknown option: --workspace 1024"),
    ("11.0.0", ["--fp16"], "[E] Unknown option: --fp16 "),
    ("11.0.0", ["--int8"], "[E] Unknown option: --int8 "),
    ("8.6.1", ["--minShapes=x:2x6"], "[E] Static model does not take explicit shapes since the shape of inference "
                                     "tensors will be determined by the model itself"),
    ("10.3.0", ["--optShapes=x:2x6"], "[E] Static model does not take explicit shapes since the shape of "
                                      "inference tensors will be determined by the model itself"),
])
def test_trtexec_double_refuses_what_that_version_refuses(tmp_path, version, argv, message):
    model, _ = static_onnx(tmp_path / "static.onnx")
    engine = tmp_path / "e.engine"
    p = subprocess.run([sys.executable, str(FAKES / "bin" / "trtexec"), f"--onnx={model}", f"--saveEngine={engine}",
                        *argv], env=dict(os.environ, EDGEPROF_FAKE_TRT_VERSION=version), capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 1 and message in p.stderr.splitlines() and not engine.exists()
    assert p.stdout.splitlines()[-1].startswith("&&&& FAILED TensorRT.trtexec")


@pytest.mark.parametrize("version,argv,warning", [
    ("8.6.1", ["--buildOnly"], "[W] --buildOnly flag has been deprecated by --skipInference flag."),
    ("8.5.2", ["--workspace=64"], "[W] --workspace flag has been deprecated by --memPoolSize flag."),
])
def test_trtexec_double_deprecations_still_build(tmp_path, version, argv, warning):
    model, _ = static_onnx(tmp_path / "static.onnx")
    engine = tmp_path / "e.engine"
    p = subprocess.run([sys.executable, str(FAKES / "bin" / "trtexec"), f"--onnx={model}", f"--saveEngine={engine}",
                        *argv], env=dict(os.environ, EDGEPROF_FAKE_TRT_VERSION=version), capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0 and warning in p.stderr.splitlines() and engine.exists()


def test_trtexec_argv_per_version():
    shapes = {"x": (2, 6), "mask": (2, 8)}
    a = trtexec_argv("trtexec", (8, 2, 1), "m.onnx", "e", "int8", shapes, ["x"], 1 << 30)
    assert a == ["trtexec", "--onnx=m.onnx", "--saveEngine=e", "--buildOnly", "--workspace=1024", "--int8",
                 "--minShapes=x:2x6", "--optShapes=x:2x6", "--maxShapes=x:2x6"]  # `mask` is static: no flags
    a = trtexec_argv("trtexec", (11, 0, 0), "m.onnx", "e", "fp16", shapes, [], 1 << 30)
    assert a == ["trtexec", "--onnx=m.onnx", "--saveEngine=e", "--skipInference", "--memPoolSize=workspace:1024"]
    assert version_tuple("8.2.1.8") == (8, 2, 1) and version_tuple("10.3") == (10, 3, 0)
    assert version_tuple("11.0.0.post1") == (11, 0, 0) and version_tuple("junk") == (0, 0, 0)


# ------------------------------------------------------------------------- what the API doubles lack
@pytest.mark.parametrize("version,code", [
    ("10.3.0", "tensorrt.IExecutionContext.execute_async_v2"),
    ("10.3.0", "tensorrt.IExecutionContext.set_binding_shape"),
    ("10.3.0", "tensorrt.ICudaEngine.num_bindings"),
    ("10.3.0", "tensorrt.IBuilderConfig.max_workspace_size"),
    ("8.2.1", "tensorrt.IExecutionContext.execute_async_v3"),
    ("8.2.1", "tensorrt.IExecutionContext.set_input_shape"),
    ("8.2.1", "tensorrt.ICudaEngine.num_io_tensors"),
    ("8.2.1", "tensorrt.IBuilderConfig.set_memory_pool_limit"),
    ("8.2.1", "tensorrt.TensorIOMode"),
    ("11.0.0", "tensorrt.BuilderFlag.FP16"),
    ("11.0.0", "tensorrt.BuilderFlag.INT8"),
    ("11.0.0", "tensorrt.NetworkDefinitionCreationFlag.EXPLICIT_BATCH"),
    ("11.0.0", "tensorrt.Builder.platform_has_fast_fp16"),
    ("8.6.1", "tensorrt.NetworkDefinitionCreationFlag.STRONGLY_TYPED"),
])
def test_each_profile_lacks_what_that_release_lacks(version, code):
    p = double(f"import tensorrt\ntry:\n    {code}\nexcept AttributeError:\n    print('AttributeError')",
               {"EDGEPROF_FAKE_TRT_VERSION": version})
    assert p.stdout.strip() == "AttributeError", p.stderr


@pytest.mark.parametrize("version,code", [
    ("8.5.2", "tensorrt.IExecutionContext.execute_async_v2, tensorrt.IExecutionContext.execute_async_v3"),
    ("8.6.1", "tensorrt.ICudaEngine.num_bindings, tensorrt.ICudaEngine.num_io_tensors"),
    ("10.3.0", "tensorrt.BuilderFlag.FP16, tensorrt.NetworkDefinitionCreationFlag.STRONGLY_TYPED"),
])
def test_the_overlap_releases_have_both(version, code):
    p = double(f"import tensorrt\n{code}\nprint('ok')", {"EDGEPROF_FAKE_TRT_VERSION": version})
    assert p.stdout.strip() == "ok", p.stderr


def test_a_release_without_a_profile_is_refused():
    p = double("import tensorrt", {"EDGEPROF_FAKE_TRT_VERSION": "9.2.0"})
    assert p.returncode != 0 and "no profile for 9.2.0" in p.stderr


@pytest.mark.parametrize("cuda_python,importable", [
    ("13.0.0", {"cuda.bindings.runtime"}), ("12.6.2", {"cuda.bindings.runtime", "cuda.cudart"}),
    ("12.4.0", {"cuda.cudart"}), ("none", set()),
])
def test_cuda_python_layouts(cuda_python, importable):
    code = ("import importlib\nfor m in ('cuda.bindings.runtime', 'cuda.cudart'):\n    try:\n"
            "        importlib.import_module(m); print(m)\n    except ImportError:\n        pass")
    p = double(code, {"EDGEPROF_FAKE_CUDA_PYTHON": cuda_python})
    assert set(p.stdout.split()) == importable, p.stderr


# ------------------------------------------------------------------------------------ CUDA that cannot start
@pytest.mark.parametrize("profile,driver,message,hint", [
    ("10.x", "12040", "cuda-python (cuda.bindings.runtime) needs a driver for CUDA 13.0; this device's NVIDIA driver "
                      "supports CUDA 12.4", "pip install 'cuda-python<13'"),
    ("10.x", "0", "CUDA cannot start through cuda-python (cuda.bindings.runtime): no NVIDIA driver is loaded",
     "install the NVIDIA driver"),
    ("8.2", "0", "CUDA cannot start through pycuda: cuInit failed: no CUDA-capable device is detected",
     "NVIDIA driver"),
])
def test_a_driver_that_cannot_run_cuda_is_one_line(tmp_path, trt_env, profile, driver, message, hint):
    env, log = trt_env
    stack_env(env, profile, driver=driver)
    model, _ = write_onnx(tmp_path / "m.onnx")
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", run_params(model))
        assert not r["ok"] and r["error"]["type"] == "capability", r
        assert r["error"]["message"].startswith(message) and "\n" not in r["error"]["message"]
        assert hint in r["error"]["hint"]
        assert [e for e in events(log) if e["event"] in ("build", "create_network")] == []
    finally:
        agent.close()


def test_no_cuda_bindings_at_all_is_runtime_missing(tmp_path, trt_env):
    env, _ = trt_env
    stack_env(env, "8.2")
    env.pop("EDGEPROF_FAKE_PYCUDA")
    model, _ = write_onnx(tmp_path / "m.onnx")
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", run_params(model))
        assert not r["ok"] and r["error"]["type"] == "runtime_missing"
        assert r["error"]["message"].startswith("CUDA Python bindings for tensorrt is not importable")
        assert "pycuda" in r["error"]["hint"]
    finally:
        agent.close()


# ---------------------------------------------------------------------------------------------- Python 3.6
def jetpack46_python():
    cache = os.environ.get("EDGEPROF_STACKS_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "edgeprof" / "stacks")
    found = sorted(glob.glob(os.path.join(cache, "jetpack-4.6-*", "bin", "python3.6")))
    return found[-1] if found else None


JETPACK46 = jetpack46_python()


@pytest.mark.skipif(JETPACK46 is None, reason="no JetPack 4.6 stand-in venv (Python 3.6, numpy 1.19.5, onnxruntime "
                                              "1.10): build it with scripts/build-stack-venvs.py")
def test_tensorrt_8_2_with_pycuda_under_python_3_6(tmp_path, trt_env):
    """JetPack 4.6 as it is: Python 3.6, numpy 1.19.5, TensorRT 8.2 (bindings API), pycuda; the trtexec
    fallback with 8.2's flags; every line of the backend and the doubles runs on 3.6."""
    env, log = trt_env
    stack_env(env, "8.2")
    env["PYTHONPATH"] = os.pathsep.join([str(FAKES), str(REPO / "agents")])
    model, w = write_onnx(tmp_path / "m.onnx")
    m = onnx.load(str(model))  # onnxruntime 1.10 loads IR 8 / opset 15 at most
    m.opset_import[0].version = 13
    m.ir_version = 7
    onnx.save(m, str(model))

    class Agent36(Agent):
        def __init__(self, workdir, env, root):
            self.p = subprocess.Popen([JETPACK46, "-m", "edgeprof_agent", "serve", "--workdir", str(workdir),
                                       "--sysfs-root", str(root)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, universal_newlines=True, env=env)
            self.next_id = 1
            from edgeprof_agent import PROTOCOL_VERSION
            hello = self.call("hello", {"protocol": PROTOCOL_VERSION})
            assert hello["ok"] and hello["result"]["python"].startswith("3.6."), hello

    agent = Agent36(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", run_params(model, "fp16", profile_ops=True, profile_iterations=2))
        assert r["ok"], r
        opts = r["result"]["runtime"]["options"]
        assert opts["io_api"].startswith("bindings") and opts["cuda"] == "pycuda"
        assert [n[:3] for n in r["result"]["ops"]["nodes"]] == [["mm", "MatMul", "TensorRT"],
                                                               ["act", "Relu", "TensorRT"]]
        r2 = agent.call("run", run_params(model, "fp16", runtime_options={"precision": "fp16", "transfers": False}))
        assert r2["ok"] and r2["result"]["runtime"]["options"]["engine_cache"]["hit"] is True, r2
        x = np.random.RandomState(3).uniform(-1, 1, (2, 6)).astype(np.float32)
        np.testing.assert_allclose(decode(r["result"]["outputs"][0]), np.maximum(x @ w, 0), rtol=1e-6)
        ev = events(log)
        assert [e["flags"] for e in ev if e["event"] == "build"] == [["FP16"]]
        assert [e["workspace"] for e in ev if e["event"] == "build"] == [["max_workspace_size", 1 << 30]]

        # the trtexec fallback, run by Python 3.6 too, with 8.2's flags
        env["EDGEPROF_FAKE_TRT_BUILD_FAIL"] = "1"
        trtexec_shim(tmp_path, env, python=JETPACK46)
        agent.close()
        agent = Agent36(tmp_path / "work2", env, gpu_tree(tmp_path / "root2"))
        r = agent.call("run", run_params(model, "fp16"))
        assert r["ok"], r
        argv = [e["argv"] for e in events(log) if e["event"] == "trtexec" and "--help" not in e["argv"]][-1]
        assert "--buildOnly" in argv and "--workspace=1024" in argv and "--skipInference" not in argv
    finally:
        agent.close()


@pytest.mark.parametrize("profile,binding", [("8.2", "int32"), ("8.6", "int32"), ("10.x", "int64")])
def test_int64_inputs_are_int32_bindings_before_10(tmp_path, trt_env, profile, binding):
    """8.x's ONNX parser casts INT64 down to INT32 (no INT64 DataType before 10): token ids are written as int32."""
    env, _ = trt_env
    stack_env(env, profile)
    graph = helper.make_graph(
        [helper.make_node("Cast", ["ids"], ["f"], name="cast", to=TensorProto.FLOAT),
         helper.make_node("Relu", ["f"], ["y"], name="act")],
        "g", [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 5])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.save(m, str(tmp_path / "ids.onnx"))
    p = run_params(tmp_path / "ids.onnx")
    p["inputs"] = [{"name": "ids", "shape": [2, 5], "dtype": "int64", "low": 0, "high": 1000}]
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", p)
        assert r["ok"], r
        ids = np.random.RandomState(3).randint(0, 1000, (2, 5)).astype(np.int64)
        np.testing.assert_array_equal(decode(r["result"]["outputs"][0]), ids.astype(np.float32))
        log = [json.loads(line) for line in (tmp_path / "trt.log").read_text().splitlines()]
        htod = [e["nbytes"] for e in log if e["event"] == "htod"]
        assert htod[0] == 10 * np.dtype(binding).itemsize
    finally:
        agent.close()


def test_a_trtexec_of_another_tensorrt_is_not_used(tmp_path, trt_env):
    """A plan loads only in the TensorRT that built it: trtexec 10.3 beside the Python module 8.6 is refused
    before it builds anything."""
    env, log = trt_env
    stack_env(env, "8.6")
    env["EDGEPROF_FAKE_TRT_BUILD_FAIL"] = "1"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "trtexec"
    shim.write_text(f"#!/bin/sh\nEDGEPROF_FAKE_TRT_VERSION=10.3.0 exec {sys.executable} {FAKES / 'bin' / 'trtexec'} "
                    "\"$@\"\n")
    shim.chmod(0o755)
    env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"
    model, _ = write_onnx(tmp_path / "m.onnx")
    agent = Agent(tmp_path / "work", env, gpu_tree(tmp_path / "root"))
    try:
        r = agent.call("run", run_params(model))
        assert not r["ok"] and r["error"]["type"] == "load_failed"
        assert f"{shim} is TensorRT 10.3.0 while the Python module is 8.6.1" in r["error"]["message"]
        assert [e["argv"] for e in events(log) if e["event"] == "trtexec"] == [["--help"]]
    finally:
        agent.close()
