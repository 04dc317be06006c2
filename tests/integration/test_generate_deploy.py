"""`edgeprof deploy` of a generative model on this machine (the generation kind, session/generation.py): llama_tiny
on llama.cpp Q4_0 through the CLI's main() with a scratch SQLite database, `results show` reading it back, the
`generation` section of --json, and each bad input ending in one line before anything is measured. The
onnxruntime-genai deploy builds the model with its model builder (15-25 s): tests/gen/test_generate_deploy_ortgenai.py."""

import json
import shutil
from pathlib import Path

import pytest

from edgeprof.cli.main import main

SMALL = ["--prompt-tokens", "32", "--gen-tokens", "8", "--repetitions", "2", "--threads", "1", "--quiet"]


def run_cli(args, capsys):
    code = main(args)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def one_line(err):
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, err
    return lines[0]


def test_llama_cpp_q4_0_deploy_is_stored_and_read_back(tmp_path, capsys):
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")
    db = str(tmp_path / "r.sqlite")
    out_json = tmp_path / "r.json"
    code, out, err = run_cli(["deploy", "--device", "local", "--model", "llama_tiny", "--runtime", "llama.cpp",
                              "--precision", "q4_0", "--db", db, "--json", str(out_json), *SMALL], capsys)
    assert code == 0, err
    assert "TTFT" in out and "decode" in out and "ITL p50" in out and "peak RSS" in out
    r = json.loads(out_json.read_text())
    assert (r["status"], r["runtime"], r["precision"], r["model"]) == ("ok", "llama.cpp", "q4_0", "llama_tiny")
    assert r["latency_ms"] is None and r["samples_ms"] == []
    assert r["threads"] == 1 and r["environment"]["runtime"]["options"]["threads"] == 1
    g = r["generation"]
    assert (g["prompt_tokens"], g["tokens"], g["depth"], g["repetitions"]) == (32, 8, 0, 2)
    for key in ("ttft_ms", "prefill_ms", "prefill_tps", "decode_tps", "itl_ms", "tpot_ms", "peak_rss_bytes",
                "definitions"):
        assert key in g, sorted(g)
    assert len(g["windows_ns"]) == 2 and len(g["token_ns"]) == 2
    assert r["memory_mb"]["peak_rss"] > 0 and r["artifact"]["format"] == "gguf"
    # extra buffers off on x86-64 (the AMX crash with quantised weights), recorded with the runtime
    assert r["environment"]["runtime"]["options"]["extra_buffers"] is False
    assert (r["settings"]["prompt_tokens"], r["settings"]["gen_tokens"], r["settings"]["repetitions"]) == (32, 8, 2)
    assert r["settings"]["depth"] is None  # not given: llama-bench's 0, as the generation section says
    code, shown, err = run_cli(["results", "show", r["run_id"], "--db", db], capsys)
    assert code == 0, err
    assert "TTFT" in shown and "decode" in shown and r["run_id"] in shown
    code, shown_json, err = run_cli(["results", "show", r["run_id"], "--db", db, "--json"], capsys)
    assert code == 0, err
    back = json.loads(shown_json)
    assert back["generation"]["decode_tps"] == g["decode_tps"]


@pytest.mark.parametrize("args, words", [
    (["--model", "llama_tiny", "--gen-tokens", "0"], "--gen-tokens 0: must be >= 1"),
    (["--model", "llama_tiny", "--depth", "4000"], "past the context of llama_tiny (4096 tokens)"),
    (["--model", "llama_tiny", "--runtime", "tflite"], "--runtime tflite: llama_tiny is a generative model"),
    (["--model", "llama_tiny", "--runtime", "llama.cpp", "--precision", "int4"], "llama.cpp takes f16, q8_0, q4_0"),
    (["--model", "llama_tiny", "--min-duration", "2"], "--min-duration: for a generative model's server scenario, "
     "not single-stream"),
    (["--model", "llama_tiny", "--warmup", "2"], "--warmup: applies to a forward pass, not to the generative model "
     "llama_tiny"),
    (["--model", "llama_tiny", "--scenario", "offline"], "--scenario offline: a generative model runs "
     "single-stream, server, sustained"),
    (["--model", "llama_tiny", "--runtime", "llama.cpp", "--providers", "cuda"],
     "--providers cuda: llama.cpp takes no execution providers"),
    (["--model", "llama_tiny", "--runtime", "onnxruntime-genai", "--providers", "DmlExecutionProvider"],
     "--providers DmlExecutionProvider: DmlExecutionProvider has no onnxruntime-genai mapping here"),
    (["--model", "mobilenet_v2", "--precision", "q4_0"], "--precision q4_0: for generative models only"),
    (["--model", "mobilenet_v2", "--runtime", "onnxruntime", "--prompt-tokens", "8"],
     "--prompt-tokens: for generative models only"),
])
def test_bad_generation_flags_end_in_one_line(args, words, tmp_path, capsys):
    code, out, err = run_cli(["deploy", "--device", "local", *args, "--db", str(tmp_path / "r.sqlite")], capsys)
    assert code == 2 and words in one_line(err), err
    assert not (tmp_path / "r.sqlite").exists()  # refused before the store opened


def test_a_folder_without_a_tokenizer_and_a_bad_gguf_end_in_detects_line(tmp_path, capsys):
    from edgeprof.generative.build import hf_folder

    src = Path(hf_folder("llama_tiny", cache_dir=tmp_path / "cache").path).parent
    folder = tmp_path / "no tokenizer"
    shutil.copytree(src, folder)
    (folder / "tokenizer.json").unlink()
    code, _out, err = run_cli(["deploy", "--device", "local", "--model", str(folder), "--no-store"], capsys)
    assert code == 2 and str(folder) in one_line(err) and "tokenizer" in err, err
    bad = tmp_path / "page.gguf"
    bad.write_bytes(b"<html>not a model</html>")
    code, _out, err = run_cli(["deploy", "--device", "local", "--model", str(bad), "--no-store"], capsys)
    assert code == 2 and "is not a GGUF file" in one_line(err), err


def test_a_runtime_the_device_lacks_is_refused_before_the_push(tmp_path, capsys, monkeypatch):
    """A llama_cpp that does not import on the device (a stub ahead of it on the agent's import path, as a broken
    install is): the facts say so and the deploy stops in one line before the model is built or pushed."""
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "llama_cpp.py").write_text("raise ImportError('libllama.so: cannot open shared object file')\n")
    import os

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(stub), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    code, _out, err = run_cli(["deploy", "--device", "local", "--model", "llama_tiny", "--runtime", "llama.cpp",
                               "--db", str(tmp_path / "r.sqlite"), "--quiet"], capsys)
    line = one_line(err)
    assert code != 0 and "has no llama.cpp" in line and "libllama.so" in line, err
    assert not list((tmp_path / "cache").rglob("*.gguf"))  # nothing built


def test_onnxruntime_genai_on_cuda_here_is_one_line_and_nothing_is_built_or_stored(tmp_path, capsys, monkeypatch):
    """deploy --providers cuda of llama_tiny on onnxruntime-genai int4 on this machine: the facts read this CPU
    wheel's is_cuda_available() (False), so the HOST's capability check refuses it in one line naming the module's
    lack of CUDA (and the GPU's, where the facts show none) before the model is built or pushed: exit != 0, no
    model built, nothing added to the agent's artifacts, no result stored."""
    og = pytest.importorskip("onnxruntime_genai")
    if og.is_cuda_available():
        pytest.skip("this machine's onnxruntime-genai has CUDA: the refusal is for a build without it")
    from edgeprof_agent.gpus import nvidia_gpus
    from edgeprof_agent.sysfs import SysfsRoot

    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    artifacts = Path("~/.cache/edgeprof/artifacts").expanduser()  # local's workdir (records/device.local_device)
    pushed = sorted(artifacts.iterdir()) if artifacts.is_dir() else []
    db = str(tmp_path / "r.sqlite")
    code, _out, err = run_cli(["deploy", "--device", "local", "--model", "llama_tiny", "--runtime",
                               "onnxruntime-genai", "--precision", "int4", "--providers", "cuda", "--db", db,
                               *SMALL], capsys)
    line = one_line(err)
    assert code != 0, err
    lacks = f"onnxruntime-genai {og.__version__} has no CUDA (is_cuda_available() is False)"
    if nvidia_gpus(SysfsRoot("/")):
        want = f"device local: --providers cuda: local's {lacks} — install onnxruntime-genai-cuda on the device"
    else:
        want = f"device local: --providers cuda: local has no NVIDIA GPU, and its {lacks} — leave --providers out"
    assert want in line, err
    assert "here has no CUDA" not in line  # the host's refusal, not the agent's after a push
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").rglob("*.onnx"))  # nothing built
    assert (sorted(artifacts.iterdir()) if artifacts.is_dir() else []) == pushed  # nothing pushed
    code, out, err = run_cli(["results", "list", "--db", db, "--json"], capsys)
    assert code == 0 and json.loads(out) == [], (out, err)  # nothing stored


def test_litert_lm_for_a_bundled_model_without_its_module_is_one_line_before_anything_is_built(
        tmp_path, capsys, monkeypatch):
    """deploy --device local --model llama_tiny --runtime litert-lm where litert_lm fails to import on the device
    (a stub ahead of it on the agent's PYTHONPATH, so the test holds whether litert-lm-api is installed here or
    not): one line naming the import error, and no .litertlm built."""
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "litert_lm.py").write_text("raise ImportError('liblitert-lm.so: cannot open shared object file')\n")
    import os

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(stub), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    code, _out, err = run_cli(["deploy", "--device", "local", "--model", "llama_tiny", "--runtime", "litert-lm",
                               "--prompt-tokens", "8", "--gen-tokens", "4", "--db", str(tmp_path / "r.sqlite"),
                               "--quiet"], capsys)
    line = one_line(err)
    assert code != 0, err
    assert ("device local: litert-lm: not installed on this device (litert_lm is not importable there: "
            "ImportError: liblitert-lm.so: cannot open shared object file)") in line, err
    assert not list((tmp_path / "cache").rglob("*.litertlm"))  # nothing built


def test_litert_lm_on_a_board_without_it_is_one_line_before_anything_is_pushed(tmp_path, capsys, monkeypatch):
    """deploy --device local --model tiny.litertlm (a user's file whose vocabulary and KV cache the host reads:
    tests/litertlm_fixtures.py) where litert_lm fails to import on the device (a stub ahead of it on the agent's
    PYTHONPATH, as above): the file passes the host's reading, and the capability check on the agent's facts says
    what the device lacks in one line."""
    pytest.importorskip("litert_lm_builder")
    pytest.importorskip("ai_edge_litert")
    import os

    from litertlm_fixtures import litertlm

    (tmp_path / "m").mkdir()
    model = litertlm(tmp_path / "m", name="tiny.litertlm")
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "litert_lm.py").write_text("raise ImportError('liblitert-lm.so: cannot open shared object file')\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(stub), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("EDGEPROF_CACHE", str(tmp_path / "cache"))
    code, _out, err = run_cli(["deploy", "--device", "local", "--model", str(model), "--prompt-tokens", "8",
                               "--gen-tokens", "4", "--db", str(tmp_path / "r.sqlite"), "--quiet"], capsys)
    line = one_line(err)
    assert code != 0 and "device local: litert-lm: not installed on this device (litert_lm is not importable" in line


def test_the_phone_measurer_refuses_what_litert_lm_cannot_take_in_one_line():
    """A phone measures generation with LiteRT-LM's litert_lm_main (tests/phone/test_phone_litertlm.py runs it):
    without it in devices.yaml, or for a model that is not a .litertlm, it says so in one line."""
    from edgeprof.records import Device, RunSpec
    from edgeprof.records.device import BenchmarkModel, PhoneConfig
    from edgeprof.session import refusal

    phone = Device(name="pixel", kind="adb")
    spec = RunSpec(device="pixel", model="llama_tiny", runtime="llama.cpp", precision="q4_0")
    assert refusal(phone, spec) == (
        "device pixel: no litert_lm_main: a phone measures generative models with LiteRT-LM's litert_lm_main; set "
        "litert_lm_main: in devices.yaml (LiteRT-LM's android_arm64 litert_lm_main, from its GitHub releases: "
        "docs/phones.md)")
    phone.phone = PhoneConfig(litert_lm_main=BenchmarkModel(phone_path="/data/local/tmp/litert_lm_main"))
    assert refusal(phone, spec) == ("runtime llama.cpp: a phone runs generative models on LiteRT-LM (litert_lm_main), "
                                    "from a .litertlm file (--runtime litert-lm)")


def test_a_user_gguf_is_measured_at_its_own_precision(tmp_path, capsys):
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")
    from edgeprof.generative.build import gguf_file, hf_folder

    src = Path(hf_folder("llama_tiny", cache_dir=tmp_path / "cache").path).parent
    gguf = Path(gguf_file(src, "q8_0", cache_dir=tmp_path / "cache", name="llama_tiny").path)
    mine = tmp_path / "my model.gguf"
    shutil.copy(gguf, mine)
    code, _out, err = run_cli(["deploy", "--device", "local", "--model", str(mine), "--precision", "q4_0",
                               "--no-store"], capsys)
    assert code == 2 and "holds q8_0 weights" in one_line(err), err
    code, out, err = run_cli(["deploy", "--device", "local", "--model", str(mine), "--no-store", "--json", "-",
                              *SMALL], capsys)
    assert code == 0, err
    r = json.loads(out)
    assert (r["runtime"], r["precision"], r["artifact"]["format"]) == ("llama.cpp", "q8_0", "gguf")
    assert r["artifact"]["size_bytes"] == mine.stat().st_size and r["generation"]["tokens"] == 8
