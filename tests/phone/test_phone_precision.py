"""`edgeprof deploy --device phone --model ds_cnn --precision int8|fp16` end to end against the stand-in phone: the
bundled model exported to TFLite and quantised (int8) or its weights cast to float16 behind DEQUANTIZE (fp16; the
boards' export path), pushed by content, measured by the replay benchmark_model; the delegated-op count is the
exported graph's own operator count (read back with LiteRT's interpreter on this machine, not by the replay's
parser)."""

from __future__ import annotations

import json
from pathlib import Path

import phone_tree as tree
import pytest
from phone_adbd import serial

from edgeprof.cli.main import main
from edgeprof.export.artifact_cache import default_cache_dir
from edgeprof.transport.adb import sha256_file


def _operators(path: Path) -> int:
    from ai_edge_litert.interpreter import Interpreter

    return len(Interpreter(model_path=str(path))._get_ops_details())


def _inventory(tmp_path: Path, phone, adb_client: str, server_port: int) -> Path:  # type: ignore[no-untyped-def]
    inv = tmp_path / "devices.yaml"
    inv.write_text(f"version: 1\ndevices:\n  phone:\n    transport: adb\n    serial: '{serial(phone)}'\n"
                   f"    adb: {adb_client}\n    adb_server_port: {server_port}\n"
                   f"    benchmark_model: '{tree.benchmark_model_script()}'\n")
    return inv


@pytest.mark.parametrize("precision", ["int8", "fp16"])
def test_deploy_int8_and_fp16(precision, adb_client, server_port, phone, tmp_path, capsys):
    inv, out = _inventory(tmp_path, phone, adb_client, server_port), tmp_path / "r.json"
    assert main(["deploy", "--device", "phone", "--inventory", str(inv), "--model", "ds_cnn", "--precision",
                 precision, "--min-duration", "0.5", "--min-queries", "10", "--warmup", "0", "--quiet",
                 "--no-store", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    r = json.loads(out.read_text())
    assert r["precision"] == precision and r["latency_ms"]["n"] == 10 and r["power"]["source"] == "battery"
    # the pushed file (a cold cache may hold a copy of the same bytes, e.g. the converter's: any one will do)
    same = [p for p in default_cache_dir().rglob("*.tflite") if sha256_file(str(p)) == r["artifact"]["sha256"]]
    assert same, r["artifact"]
    artifact = same[0]
    assert artifact.stat().st_size == r["artifact"]["size_bytes"]
    ops = _operators(artifact)
    [d] = r["phone"]["delegation"]
    assert (d["delegate"], d["ops_total"], d["ops_on_delegate"], d["ops_on_cpu"]) == ("XNNPACK", ops, ops - 1, 1)
    assert f"ops: {ops - 1} of {ops} on CPU (XNNPACK), 1 on the CPU (LiteRT's kernels)" in text.replace("\n", " ")
    if precision == "fp16":  # the pushed file's weights are float16 behind DEQUANTIZE
        from ai_edge_litert.interpreter import Interpreter

        names = [op["op_name"] for op in Interpreter(model_path=str(artifact))._get_ops_details()]
        assert "DEQUANTIZE" in names, names
        assert [w["code"] for w in r["warnings"]].count("precision_emulated") == 1  # XNNPACK computes in float32
    else:
        assert "precision_emulated" not in [w["code"] for w in r["warnings"]]


def test_a_sweeps_fp16_phone_cell_is_planned_like_fp32(tmp_path, capsys):
    """A sweep's fp16 tflite cell on a phone is a cell to run, like fp32 (the dry run connects to nothing: the
    serial names no phone); an onnxruntime cell stays a skip row with the phone's reason."""
    inv = tmp_path / "devices.yaml"
    inv.write_text("version: 1\ndevices:\n  phone:\n    transport: adb\n    serial: '127.0.0.1:1'\n")
    spec = tmp_path / "s.yaml"
    spec.write_text(f"name: fp16\ninventory: {inv}\nmodels: [ds_cnn]\ndevices: [phone]\nruntimes: [tflite]\n"
                    "precisions: [fp32, fp16]\nthreads: [1]\ninclude:\n  - {model: ds_cnn, runtime: onnxruntime, precision: fp32, threads: 1}\n")
    assert main(["sweep", str(spec), "--dry-run"]) == 0
    rows = [ln for ln in capsys.readouterr().out.splitlines() if "phone/ds_cnn" in ln]
    [fp32] = [ln for ln in rows if "/tflite/fp32/" in ln]
    [fp16] = [ln for ln in rows if "/tflite/fp16/" in ln]
    assert "not supported" not in fp32 and "not supported" not in fp16 and "skip" not in fp16, rows
    [ort] = [ln for ln in rows if "/onnxruntime/" in ln]
    assert "a phone runs LiteRT (tflite) through benchmark_model" in ort, rows
