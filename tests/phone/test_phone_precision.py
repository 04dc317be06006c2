"""`edgeprof deploy --device phone --model ds_cnn --precision int8` end to end against the stand-in phone: the bundled
model exported to TFLite and quantised (the boards' export path), pushed by content, measured by the replay
benchmark_model; the delegated-op count is the exported graph's own operator count (read back with LiteRT's
interpreter on this machine, not by the replay's parser). fp16: edgeprof has no fp16 TFLite export (a user's fp16
.tflite runs as given), so `--precision fp16` on a phone is refused in one line before anything is exported or pushed."""

from __future__ import annotations

import json
from pathlib import Path

import phone_tree as tree
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


def test_deploy_int8(adb_client, server_port, phone, tmp_path, capsys):
    inv, out, precision = _inventory(tmp_path, phone, adb_client, server_port), tmp_path / "r.json", "int8"
    assert main(["deploy", "--device", "phone", "--inventory", str(inv), "--model", "ds_cnn", "--precision",
                 precision, "--min-duration", "0.5", "--min-queries", "10", "--warmup", "0", "--quiet",
                 "--no-store", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    r = json.loads(out.read_text())
    assert r["precision"] == precision and r["latency_ms"]["n"] == 10 and r["power"]["source"] == "battery"
    [artifact] = [p for p in default_cache_dir().rglob("*.tflite") if sha256_file(str(p)) == r["artifact"]["sha256"]]
    assert artifact.stat().st_size == r["artifact"]["size_bytes"]
    ops = _operators(artifact)
    [d] = r["phone"]["delegation"]
    assert (d["delegate"], d["ops_total"], d["ops_on_delegate"], d["ops_on_cpu"]) == ("XNNPACK", ops, ops - 1, 1)
    assert f"ops: {ops - 1} of {ops} on CPU (XNNPACK), 1 on the CPU (LiteRT's kernels)" in text.replace("\n", " ")


def test_fp16_is_refused_in_one_line(adb_client, server_port, phone, tmp_path, capsys):
    inv = _inventory(tmp_path, phone, adb_client, server_port)
    assert main(["deploy", "--device", "phone", "--inventory", str(inv), "--model", "ds_cnn", "--precision", "fp16",
                 "--quiet", "--no-store"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--precision fp16 (no fp16 TFLite export" in err[0] and "not supported on phones yet" in err[0]
    assert not (phone.root / "data/local/tmp/edgeprof/artifacts").exists()  # nothing pushed


def test_a_sweeps_fp16_phone_cell_is_a_skip_row(tmp_path, capsys):
    """A sweep's fp16 cell on a phone is a skip row before anything connects (the serial names no phone): the
    sweep's runtime table has no fp16 for tflite (fp32, int8), the same gap deploy's refusal names; fp32 runs."""
    inv = tmp_path / "devices.yaml"
    inv.write_text("version: 1\ndevices:\n  phone:\n    transport: adb\n    serial: '127.0.0.1:1'\n")
    spec = tmp_path / "s.yaml"
    spec.write_text(f"name: fp16\ninventory: {inv}\nmodels: [ds_cnn]\ndevices: [phone]\nruntimes: [tflite]\n"
                    "precisions: [fp32, fp16]\nthreads: [1]\n")
    assert main(["sweep", str(spec), "--dry-run"]) == 0
    rows = [ln for ln in capsys.readouterr().out.splitlines() if "phone/ds_cnn" in ln]
    [fp32] = [ln for ln in rows if "/fp32/" in ln]
    [fp16] = [ln for ln in rows if "/fp16/" in ln]
    assert "not supported" not in fp32 and "fp16 is not supported for tflite" in fp16
