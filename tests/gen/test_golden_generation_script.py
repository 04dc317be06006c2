"""tests/gen/golden_generation.py (run by hand to write a new schema's generation golden) still runs: it writes a
result of the current schema that loads, through the generation kind's own `assemble`."""

from __future__ import annotations

import json

import pytest

from edgeprof.records import RESULT_SCHEMA_VERSION, Result

pytestmark = pytest.mark.gen
pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (pip install 'edgeprof[llamacpp]')")


def test_the_golden_generation_script_writes_a_current_result(tmp_path, monkeypatch):
    import golden_generation

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))  # its scratch folder under the test's
    out = tmp_path / "ok_local_generation.json"
    golden_generation.main(out)
    raw = json.loads(out.read_text())
    assert raw["schema_version"] == RESULT_SCHEMA_VERSION
    r = Result.from_dict(raw)
    g = r.generation
    assert g is not None and (g.prompt_tokens, g.tokens, g.depth, len(g.token_ns)) == (32, 16, 0, 3)
    assert raw["settings"]["depth"] == 0 and raw["settings"]["repetitions"] == 3
    assert g.energy is not None and g.energy.decode_mean_w == pytest.approx(3.2768)  # the board tree's INA219
    assert raw["environment"]["runtime"]["options"]["extra_buffers"] is False
