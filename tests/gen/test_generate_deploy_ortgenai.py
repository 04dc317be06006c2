"""`edgeprof deploy --model llama_tiny --runtime onnxruntime-genai --precision int4` through the CLI's main(): the
model builder's int4 folder (15-25 s the first time, cached), pushed file by file, measured by the agent's
`generate`, stored and read back by `results show`."""

import json

import pytest

from edgeprof.cli.main import main

pytestmark = pytest.mark.gen


def test_onnxruntime_genai_int4_deploy_is_stored_and_read_back(tmp_path, capsys):
    pytest.importorskip("onnxruntime_genai")
    db = str(tmp_path / "r.sqlite")
    code = main(["deploy", "--device", "local", "--model", "llama_tiny", "--runtime", "onnxruntime-genai",
                 "--precision", "int4", "--prompt-tokens", "64", "--gen-tokens", "16", "--repetitions", "2",
                 "--db", db, "--json", "-", "--quiet"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    r = json.loads(cap.out)
    assert (r["runtime"], r["precision"], r["artifact"]["format"]) == ("onnxruntime-genai", "int4", "ortgenai")
    g = r["generation"]
    assert (g["prompt_tokens"], g["tokens"], g["repetitions"]) == (64, 16, 2)
    assert g["decode_tps"]["mean"] > 0 and g["ttft_ms"]["mean"] > 0
    assert "provider" not in r["environment"]["runtime"]["options"]  # not asked: genai_config.json's (the CPU)
    assert r["environment"]["runtime"]["options"]["device_type"] == "CPU"
    assert main(["results", "show", r["run_id"], "--db", db]) == 0
    shown = capsys.readouterr().out
    assert "TTFT" in shown and "onnxruntime-genai" in shown


def test_the_provider_asked_is_stored_in_the_runtime_options(tmp_path, capsys):
    """--providers CPUExecutionProvider (onnxruntime's name) is onnxruntime-genai's provider cpu: the agent ran the
    model on it, and the stored result says so (results show --json: environment.runtime.options)."""
    pytest.importorskip("onnxruntime_genai")
    db = str(tmp_path / "r.sqlite")
    code = main(["deploy", "--device", "local", "--model", "llama_tiny", "--runtime", "onnxruntime-genai",
                 "--precision", "int4", "--providers", "CPUExecutionProvider", "--prompt-tokens", "16",
                 "--gen-tokens", "4", "--repetitions", "1", "--db", db, "--json", "-", "--quiet"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    run_id = json.loads(cap.out)["run_id"]
    assert main(["results", "show", run_id, "--db", db, "--json"]) == 0
    options = json.loads(capsys.readouterr().out)["environment"]["runtime"]["options"]
    assert (options["provider"], options["device_type"]) == ("cpu", "CPU")
