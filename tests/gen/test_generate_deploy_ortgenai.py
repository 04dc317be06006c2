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
    assert main(["results", "show", r["run_id"], "--db", db]) == 0
    shown = capsys.readouterr().out
    assert "TTFT" in shown and "onnxruntime-genai" in shown
