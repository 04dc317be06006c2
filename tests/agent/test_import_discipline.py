"""The agent stays light: gathering facts imports no runtime into the process that then measures (issue 22).

Runtimes are found on the import path and versioned from their package metadata, or described by a short-lived
child process (onnxruntime's providers, a TensorRT without metadata); the measuring process imports only the
runtime under test, when the run loads it. The facts say exactly what importing each runtime would say."""

import json
import os
import subprocess
import sys
import textwrap

from edgeprof_agent import PROTOCOL_VERSION
from edgeprof_agent.environment import (
    NEEDS_IMPORT,
    RUNTIME_MODULES,
    describe_module,
    module_location,
    owner_version,
    probe_in_child,
    runtime_fact,
)

# the runtime modules and numpy, and their native parts (as /proc/PID/maps shows a loaded extension)
HEAVY = RUNTIME_MODULES + ("importlib.metadata",)
NATIVE = ("onnxruntime_pybind11_state", "_multiarray_umath", "_pywrap_tensorflow_interpreter_wrapper", "libnvinfer")


def _imported_by_import():
    """What today's import-everything would report: each module imported in a fresh process of its own."""
    code = ("import json, sys; from edgeprof_agent.environment import describe_module; "
            "print(json.dumps(describe_module(sys.argv[1])))")
    return dict((mod, json.loads(subprocess.check_output([sys.executable, "-c", code, mod], text=True)))
                for mod in RUNTIME_MODULES)


def test_gathering_facts_imports_no_runtime_and_says_what_importing_them_says():
    code = textwrap.dedent("""
        import json, sys
        from edgeprof_agent.environment import facts
        f = facts(".")
        heavy = json.loads(sys.argv[1])
        print(json.dumps({"runtimes": f.to_dict()["runtimes"], "imported": sorted(m for m in heavy if m in sys.modules)}))
    """)
    out = json.loads(subprocess.check_output([sys.executable, "-c", code, json.dumps(HEAVY)], text=True))
    assert out["imported"] == []
    assert out["runtimes"] == _imported_by_import()
    assert out["runtimes"]["onnxruntime"]["version"] and "CPUExecutionProvider" in \
        out["runtimes"]["onnxruntime"]["providers"]
    assert out["runtimes"]["tensorrt"] == {"error": "ModuleNotFoundError: No module named 'tensorrt'"}
    og = out["runtimes"]["onnxruntime_genai"]
    if "error" not in og:  # installed: whether its build has CUDA, read in a child (the CPU wheel: False)
        assert isinstance(og["cuda"], bool), og


class _Agent:
    def __init__(self, workdir, env=None):
        self.p = subprocess.Popen([sys.executable, "-m", "edgeprof_agent", "serve", "--workdir", str(workdir)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=env)
        self.next_id = 1

    def call(self, op, params=None):
        rid, self.next_id = self.next_id, self.next_id + 1
        self.p.stdin.write(json.dumps({"id": rid, "op": op, "params": params or {}}) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            assert line, "agent exited: " + self.p.stderr.read()
            msg = json.loads(line)
            if "event" not in msg:
                assert msg["id"] == rid and msg["ok"], msg
                return msg["result"]

    def mapped(self):
        """The shared objects mapped into the agent process (/proc/PID/maps)."""
        with open(f"/proc/{self.p.pid}/maps") as f:
            return set(os.path.basename(line.split()[-1]) for line in f if "/" in line)

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


def test_the_agent_process_holds_no_runtime_after_facts_and_only_the_one_under_test_after_a_run(tmp_path):
    a = _Agent(tmp_path / "w")
    try:
        a.call("hello", {"protocol": PROTOCOL_VERSION})
        f = a.call("facts", {"runtimes": True})
        assert f["runtimes"]["onnxruntime"]["providers"]  # facts still tell the providers
        loaded = a.mapped()
        assert not [lib for lib in loaded if lib.startswith(NATIVE)], loaded
        mem = a.call("run", {"runtime": "null", "min_duration_s": 0.05, "min_queries": 5, "warmup_s": 0,
                             "idle_s": 0})["memory"]
        assert mem["rss_before_load"] is not None
        assert not [lib for lib in a.mapped() if lib.startswith(NATIVE)]  # the null runtime needs none
        # a second facts in the same session: still nothing imported, same answer
        assert a.call("facts", {"runtimes": True})["runtimes"] == f["runtimes"]
        assert not [lib for lib in a.mapped() if lib.startswith(NATIVE)]
    finally:
        a.close()


def test_tensorrt_without_metadata_is_described_by_a_child_process(trt_env, tmp_path):
    env, _ = trt_env
    env["EDGEPROF_FAKE_TRT_VERSION"] = "8.2.1"
    code = ("import json, sys; from edgeprof_agent.environment import runtimes; r = runtimes(); "
            "print(json.dumps([r['tensorrt'], 'tensorrt' in sys.modules]))")
    fact, imported = json.loads(subprocess.check_output([sys.executable, "-c", code], text=True, env=env,
                                                        cwd=str(tmp_path)))
    assert fact == {"version": "8.2.1"} and imported is False


def _site(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    return site


def test_versions_come_from_the_metadata_that_owns_the_module(tmp_path, monkeypatch):
    site = _site(tmp_path, monkeypatch)
    (site / "fakert").mkdir()
    (site / "fakert" / "__init__.py").write_text("raise RuntimeError('imported')\n")
    # a wheel's dist-info with no top_level.txt: its RECORD says what it installed
    info = site / "fakert_gpu-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakert-gpu\nVersion: 1.2.3\n\nVersion: 9\n")
    (info / "RECORD").write_text("fakert/__init__.py,sha256=x,1\nfakert_gpu-1.2.3.dist-info/METADATA,,\n")
    # a distribution whose name starts alike but that installed something else
    other = site / "fakert_tools-7.0.dist-info"
    other.mkdir()
    (other / "METADATA").write_text("Name: fakert-tools\nVersion: 7.0\n")
    (other / "top_level.txt").write_text("fakert_tools\n")
    loc = module_location("fakert")
    assert loc == (str(site), str(site / "fakert"))
    assert owner_version("fakert", loc) == "1.2.3"
    # Debian's egg-info (a directory with PKG-INFO and top_level.txt) and a single-file egg-info
    (site / "debrt.py").write_text("raise RuntimeError('imported')\n")
    egg = site / "debrt-0.9.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text("Metadata-Version: 1.1\nName: debrt\nVersion: 0.9\n")
    (egg / "top_level.txt").write_text("debrt\n")
    assert owner_version("debrt", module_location("debrt")) == "0.9"
    (site / "filert.py").write_text("raise RuntimeError('imported')\n")
    (site / "filert-2.0.egg-info").write_text("Metadata-Version: 1.0\nName: filert\nVersion: 2.0\n")
    assert owner_version("filert", module_location("filert")) == "2.0"
    # a single-file egg-info lists no names: only its own name claims a module
    (site / "lonert.py").write_text("raise RuntimeError('imported')\n")
    (site / "lonert_extras-5.0.egg-info").write_text("Metadata-Version: 1.0\nName: lonert-extras\nVersion: 5.0\n")
    assert owner_version("lonert", module_location("lonert")) is None
    assert "fakert" not in sys.modules and "debrt" not in sys.modules


def test_a_module_without_metadata_is_imported_in_a_child_and_its_failures_are_facts(tmp_path, monkeypatch):
    site = _site(tmp_path, monkeypatch)
    (site / "plainrt.py").write_text("__version__ = '3.1'\n")
    assert owner_version("plainrt", module_location("plainrt")) is None
    assert probe_in_child("plainrt") == {"version": "3.1"} and "plainrt" not in sys.modules
    # an import that raises: the same error an import in this process would give
    (site / "brokenrt.py").write_text("import no_such_library_here\n")
    assert probe_in_child("brokenrt") == describe_module("brokenrt")
    assert probe_in_child("brokenrt")["error"] == "ModuleNotFoundError: No module named 'no_such_library_here'"
    # one that never finishes, and one that dies natively: error facts, the agent carries on
    (site / "slowrt.py").write_text("import time\ntime.sleep(60)\n")
    slow = probe_in_child("slowrt", timeout_s=1)
    assert slow["error"].startswith("TimeoutError: importing slowrt took longer than 1 s")
    (site / "crashrt.py").write_text("import os\nos.abort()\n")
    crash = probe_in_child("crashrt")
    assert crash["error"].startswith("ImportError: importing crashrt in a child process failed: it was killed "
                                     "by signal 6")
    # absent: the ImportError's own words, without starting anything
    assert runtime_fact("absentrt") == {"error": "ModuleNotFoundError: No module named 'absentrt'"}


def test_onnxruntime_genai_s_cuda_is_read_in_a_child_and_an_error_is_unknown(tmp_path, monkeypatch):
    """Whether onnxruntime-genai's build has CUDA is og.is_cuda_available() (src/python/python.cpp: its
    compile-time USE_CUDA): facts read it in a child even where the package's metadata gives the version, True or
    False as the build says; a call that raises, or a build without the function, leaves it out (unknown) and
    never fails the facts."""
    monkeypatch.delitem(sys.modules, "onnxruntime_genai", raising=False)  # another test may have imported it

    def install(body):
        site = tmp_path / f"site{len(list(tmp_path.iterdir()))}"
        (site / "onnxruntime_genai").mkdir(parents=True)
        (site / "onnxruntime_genai" / "__init__.py").write_text("__version__ = '0.18.0'\n" + body)
        info = site / "onnxruntime_genai_cuda-0.18.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: onnxruntime-genai-cuda\nVersion: 0.18.0\n")
        (info / "top_level.txt").write_text("onnxruntime_genai\n")
        monkeypatch.syspath_prepend(str(site))

    install("def is_cuda_available():\n    return True\n")
    assert runtime_fact("onnxruntime_genai") == {"version": "0.18.0", "cuda": True}
    install("def is_cuda_available():\n    return False\n")
    assert runtime_fact("onnxruntime_genai") == {"version": "0.18.0", "cuda": False}
    install("def is_cuda_available():\n    raise RuntimeError('no driver')\n")
    assert runtime_fact("onnxruntime_genai") == {"version": "0.18.0"}
    install("")  # a build before the function
    assert runtime_fact("onnxruntime_genai") == {"version": "0.18.0"}
    assert "onnxruntime_genai" not in sys.modules


def test_a_module_this_process_already_imported_is_described_from_that_import(tmp_path, monkeypatch):
    site = _site(tmp_path, monkeypatch)
    (site / "loadedrt.py").write_text("__version__ = '4.2'\n")
    __import__("loadedrt")
    try:
        assert runtime_fact("loadedrt") == {"version": "4.2"}
    finally:
        del sys.modules["loadedrt"]


def test_the_baseline_note_says_which_runtimes_the_process_holds():
    from edgeprof_agent.memory import baseline_note

    assert baseline_note({"json": None}).endswith("runtimes imported before load: none")
    assert baseline_note({"onnxruntime": None, "numpy": None}).endswith(
        "runtimes imported before load: onnxruntime, numpy")


def _count_children(monkeypatch):
    from edgeprof_agent import environment

    started = []
    real = environment._start_probe

    def start(mod):
        started.append(mod)
        return real(mod)

    monkeypatch.setattr(environment, "_start_probe", start)
    return environment, started


def test_what_a_child_said_is_said_again_while_the_files_it_imported_are_the_same(tmp_path, monkeypatch):
    site = _site(tmp_path, monkeypatch)
    (site / "cachert").mkdir()
    (site / "cachert" / "__init__.py").write_text("__version__ = '1.0'\n")
    (site / "cachert" / "capi").mkdir()
    (site / "cachert" / "capi" / "native.so").write_bytes(b"v1")
    environment, started = _count_children(monkeypatch)
    monkeypatch.setattr(environment, "RUNTIME_MODULES", ("cachert",))
    cache = tmp_path / "work"
    cache.mkdir()
    assert environment.runtimes(cache_dir=str(cache)) == {"cachert": {"version": "1.0"}} and started == ["cachert"]
    assert environment.runtimes(cache_dir=str(cache)) == {"cachert": {"version": "1.0"}} and started == ["cachert"]
    assert "cachert" not in sys.modules
    # a file of the package changed (a native library one level down): the child runs again and says the new
    (site / "cachert" / "capi" / "native.so").write_bytes(b"v2 rebuilt")
    (site / "cachert" / "__init__.py").write_text("__version__ = '2.0.1'\n")
    assert environment.runtimes(cache_dir=str(cache)) == {"cachert": {"version": "2.0.1"}}
    assert started == ["cachert", "cachert"]
    # another import path is another Python's answer: asked again
    monkeypatch.syspath_prepend(str(tmp_path / "elsewhere"))
    assert environment.runtimes(cache_dir=str(cache)) == {"cachert": {"version": "2.0.1"}} and len(started) == 3
    # without a directory (not run from a zipapp), nothing is kept
    environment.runtimes()
    environment.runtimes()
    assert len(started) == 5


def test_an_error_fact_is_never_kept_and_a_broken_cache_file_is_ignored(tmp_path, monkeypatch):
    site = _site(tmp_path, monkeypatch)
    (site / "flakyrt.py").write_text("import no_such_library_here\n")
    environment, started = _count_children(monkeypatch)
    monkeypatch.setattr(environment, "RUNTIME_MODULES", ("flakyrt",))
    cache = tmp_path / "work"
    cache.mkdir()
    first = environment.runtimes(cache_dir=str(cache))
    assert first["flakyrt"]["error"] == "ModuleNotFoundError: No module named 'no_such_library_here'"
    assert environment.runtimes(cache_dir=str(cache)) == first and started == ["flakyrt", "flakyrt"]
    (cache / environment.ChildFacts.NAME).write_text("{not json")
    (site / "flakyrt.py").write_text("__version__ = '0.3'\n")
    assert environment.runtimes(cache_dir=str(cache)) == {"flakyrt": {"version": "0.3"}}
    assert json.loads((cache / environment.ChildFacts.NAME).read_text())["flakyrt"]["fact"] == {"version": "0.3"}


def test_the_children_of_several_modules_run_at_the_same_time(tmp_path, monkeypatch):
    site = _site(tmp_path, monkeypatch)
    for name in ("onert", "twort"):
        (site / (name + ".py")).write_text(f"__version__ = {name!r}\n")
    from edgeprof_agent import environment

    order = []
    real_start, real_finish = environment._start_probe, environment._finish_probe
    monkeypatch.setattr(environment, "_start_probe", lambda mod: order.append("start " + mod) or real_start(mod))
    monkeypatch.setattr(environment, "_finish_probe",
                        lambda mod, *a: order.append("finish " + mod) or real_finish(mod, *a))
    monkeypatch.setattr(environment, "RUNTIME_MODULES", ("onert", "twort"))
    assert environment.runtimes() == {"onert": {"version": "onert"}, "twort": {"version": "twort"}}
    assert order == ["start onert", "start twort", "finish onert", "finish twort"]


def test_the_serving_agent_keeps_the_children_s_facts_beside_its_zipapp(tmp_path):
    """Run from a zipapp (as the host starts it), facts keep the children's answers (onnxruntime's, and
    onnxruntime_genai's where it is installed) in the workdir; a second agent's facts say the same without starting
    a child."""
    from edgeprof.agentlink.bundle import build_agent

    pyz, _ = build_agent(tmp_path / "cache")
    work = tmp_path / "work"
    work.mkdir()
    agent = work / pyz.name
    agent.write_bytes(pyz.read_bytes())
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); from edgeprof_agent import environment as e; "
            "n = []; real = e._start_probe; e._start_probe = lambda m: n.append(m) or real(m); "
            "print(json.dumps([e.runtimes()['onnxruntime'], n]))")
    runs = [json.loads(subprocess.check_output([sys.executable, "-c", code, str(agent)], text=True))
            for _ in range(2)]
    assert runs[0][1] == [m for m in NEEDS_IMPORT if module_location(m) is not None] and runs[1][1] == []
    assert runs[0][1][0] == "onnxruntime"
    assert runs[0][0] == runs[1][0] == _imported_by_import()["onnxruntime"]
    assert (work / "runtime-facts.json").is_file()
