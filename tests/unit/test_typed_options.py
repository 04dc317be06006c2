"""Typed export and runtime options (schema 12, edgeprof/records/options.py): each kind of artifact's export options
is its own record, the runtime's description is RuntimeFacts, a key no field names is refused in one line, the
user's options a backend echoed unread are `passthrough` (plain values only), and a schema 11 row migrates step
by step (schema.py _migrate_11_to_12)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from edgeprof.errors import StoreError
from edgeprof.records import (
    Artifact,
    GenerativeBuild,
    OnnxExportOptions,
    Result,
    RuntimeFacts,
    RuntimeOptions,
    TfliteExportOptions,
)
from edgeprof.records.options import export_options_from_dict, extended

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "results"


def v11(name: str) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads((GOLDEN / "v11" / f"{name}.json").read_text())
    return raw


def test_each_kind_of_artifact_loads_as_its_record_and_refuses_a_key_it_does_not_name() -> None:
    assert isinstance(export_options_from_dict({"kind": "onnx", "opset": 18}), OnnxExportOptions)
    assert isinstance(export_options_from_dict({"kind": "tflite", "litert_torch": "0.10.0"}), TfliteExportOptions)
    g = export_options_from_dict({"kind": "gguf", "file_type": "MOSTLY_Q4_0", "pure": True})
    assert isinstance(g, GenerativeBuild) and g.kind == "gguf" and g.to_dict() == {
        "kind": "gguf", "file_type": "MOSTLY_Q4_0", "pure": True}  # a key not recorded stays absent
    with pytest.raises(StoreError, match="'artifact.export_options' has unknown field\\(s\\) 'litert_torch'"):
        export_options_from_dict({"kind": "onnx", "litert_torch": "0.10.0"})  # a TFLite exporter's, not ONNX's
    with pytest.raises(StoreError, match="has kind 'pt', not one of"):
        export_options_from_dict({"kind": "pt"})


def test_a_conversion_extends_the_fp32_options_of_its_kind_only() -> None:
    fp32 = OnnxExportOptions(exporter="dynamo", opset=18, seed=0)
    int8 = extended(fp32, OnnxExportOptions, fp32_sha256="ab" * 32, precision="int8", calibration_samples=8)
    assert (int8.exporter, int8.opset, int8.precision, int8.calibration_samples) == ("dynamo", 18, "int8", 8)
    assert fp32.precision is None  # the fp32 artifact's record is not changed
    with pytest.raises(TypeError):
        extended(fp32, TfliteExportOptions, precision="int8")


def test_an_export_cache_entry_written_before_schema_12_still_loads() -> None:
    """meta.json of an older cache entry holds the artifact as schema 11 wrote it: no kind, versions under the
    distribution's name."""
    raw = v11("ok_phone_ds_cnn")["artifact"]
    art = Artifact.from_dict(raw)
    opts = art.export_options
    assert isinstance(opts, TfliteExportOptions) and opts.litert_torch == raw["export_options"]["litert-torch"]
    assert opts.op_counts == raw["export_options"]["op_counts"] and Artifact.from_dict(art.to_dict()) == art


def test_a_phones_runtime_is_its_tool_apart_and_a_boards_keeps_its_options() -> None:
    phone = Result.from_dict(v11("ok_phone_ds_cnn")).environment.runtime
    assert isinstance(phone, RuntimeFacts) and phone.runtime == "tflite" and phone.phone is not None
    assert phone.phone.tool == "benchmark_model" and phone.phone.delegate == "xnnpack" and phone.options is None
    board = Result.from_dict(v11("ok_local_ds_cnn")).environment.runtime
    assert board is not None and board.options is not None and board.options.passthrough is None
    assert board.options.graph_optimization_level == "all" and "CPUExecutionProvider" in (board.providers or [])


def test_what_a_backend_echoes_unread_is_passthrough_and_plain() -> None:
    """The null runtime reports every runtime option it was given: its own (service_ms) are named, the others are
    the user's, kept under passthrough; a value that is not plain is kept as its JSON text."""
    facts = RuntimeFacts.of_backend({"runtime": "null", "version": "-", "providers": [],
                                     "options": {"threads": 2, "service_ms": 1.5, "note": "night run",
                                                 "levels": [1, 2]}})
    o = facts.options
    assert o is not None and (o.threads, o.service_ms) == (2, 1.5)
    assert o.passthrough == {"note": "night run", "levels": "[1, 2]"}
    assert RuntimeFacts.from_dict(json.loads(json.dumps(facts.to_dict()))) == facts
    with pytest.raises(StoreError, match="passthrough' holds 'deep', not a plain value"):
        RuntimeOptions.from_dict({"passthrough": {"deep": {"a": 1}}})
    with pytest.raises(StoreError, match="'environment.runtime.options' has unknown field\\(s\\) 'note'"):
        RuntimeOptions.from_dict({"note": "a key no field names, stored outside passthrough"})


def test_a_schema_11_row_with_a_null_runtimes_options_migrates_them_to_passthrough() -> None:
    raw = v11("ok_local_ds_cnn")
    raw["environment"]["runtime"] = {"runtime": "null", "version": "-", "providers": [],
                                     "options": {"service_ms": 2, "service": "sleep", "tag": "x"}}
    r = Result.from_dict(raw)
    rt = r.environment.runtime
    assert rt is not None and rt.options is not None and rt.options.passthrough == {"tag": "x"}
    assert (rt.options.service_ms, rt.options.service) == (2, "sleep")
    assert r.to_dict()["environment"]["runtime"]["options"] == {"service_ms": 2, "service": "sleep",
                                                                "passthrough": {"tag": "x"}}


def test_a_sweep_row_without_a_runtime_or_export_options_keeps_none() -> None:
    r = Result.from_dict(v11("skipped_sweep_row"))
    assert r.environment.runtime is None and r.environment.export_options is None
    assert r.to_dict()["environment"]["runtime"] is None
