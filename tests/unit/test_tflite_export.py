"""torch → TFLite with real litert-torch and ai-edge-quantizer: truthful input specs (int64 narrowed to int32,
declared names and ranges), the check against torch, int8 with float I/O, and the cache."""

from pathlib import Path

import pytest

pytest.importorskip("litert_torch")
pytest.importorskip("ai_edge_quantizer")

from edgeprof.export.resolve import resolve_model  # noqa: E402
from edgeprof.export.tflite_export import prepare_tflite, read_tflite  # noqa: E402

BUILDER = '''
import torch


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 8)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, ids, scale):
        return self.fc(self.emb(ids).mean(1) * scale)


def build(seed):
    torch.manual_seed(seed)
    return Tiny().eval(), {"ids": torch.tensor([[0, 49, 3, 4]]), "scale": torch.ones(1, 8)}
'''


@pytest.mark.slow
def test_builder_export_int64_narrowed_then_int8(tmp_path):
    f = tmp_path / "tiny.py"
    f.write_text(BUILDER)
    src = resolve_model(f"{f}:build")
    msgs = []
    a = prepare_tflite(src, cache_dir=tmp_path / "cache", batch=2, seed=0, progress=msgs.append)
    assert a.format == "tflite" and a.precision == "fp32" and not a.cache_hit
    by = {s.name: s for s in a.inputs}
    assert set(by) == {"ids", "scale"}
    assert by["ids"].dtype == "int32" and by["ids"].shape == (2, 4) and (by["ids"].low, by["ids"].high) == (0, 50)
    assert a.export_options.narrowed_inputs == {"ids": "int64 -> int32"}
    assert a.export_check["ok"] and a.export_check["max_abs_error"] < 1e-5
    specs, outputs, facts = read_tflite(Path(a.path))
    assert {s.name: s.dtype for s in specs} == {"ids": "int32", "scale": "float32"}
    assert facts["op_counts"] and not facts["quantized_inputs"]
    again = prepare_tflite(src, cache_dir=tmp_path / "cache", batch=2, seed=0)
    assert again.cache_hit and again.sha256 == a.sha256

    q = prepare_tflite(src, cache_dir=tmp_path / "cache", batch=2, seed=0, precision="int8")
    assert q.precision == "int8" and q.export_options.fp32_sha256 == a.sha256
    qspecs, _, qfacts = read_tflite(Path(q.path))
    assert {s.name: s.dtype for s in qspecs} == {"ids": "int32", "scale": "float32"}  # float I/O kept
    assert "QUANTIZE" in qfacts["op_counts"] or "DEQUANTIZE" in qfacts["op_counts"]
    assert q.size_bytes < a.size_bytes * 1.5


def test_precision_and_format_errors(tmp_path):
    from edgeprof.errors import ModelError

    onnx_file = tmp_path / "m.onnx"
    onnx_file.write_bytes(b"x")
    with pytest.raises(ModelError, match="run as fp32, fp16, int8 here"):
        prepare_tflite(resolve_model("ds_cnn"), cache_dir=tmp_path, precision="bf16")
    with pytest.raises(ModelError, match="does not convert ONNX to TFLite"):
        prepare_tflite(resolve_model(str(onnx_file)), cache_dir=tmp_path)
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"not a flatbuffer" * 10)
    with pytest.raises(ModelError, match="not a valid TFLite model"):
        prepare_tflite(resolve_model(str(bad)), cache_dir=tmp_path)
