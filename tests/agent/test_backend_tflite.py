"""The agent's TFLite backend on real LiteRT (ai_edge_litert): dynamic dims resized from the given inputs,
several inputs matched by signature name, XNNPACK off, int8-input models fed quantised values and read back
dequantised, a bad delegate path as one error, and the profile pass saying what it cannot do."""

import importlib.util

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert")
if importlib.util.find_spec("litert_torch") is None:  # looked up, not imported: importing it (torch, jax) at
    pytest.skip("litert_torch is not installed", allow_module_level=True)  # collection took each worker ~10 s

from tflite_fixtures import export_two_inputs  # noqa: E402  (tests/ is on sys.path via its conftest)

from edgeprof_agent.backends.tflite import Backend  # noqa: E402
from edgeprof_agent.protocol import OpError  # noqa: E402


@pytest.fixture(scope="module")
def two_inputs(tmp_path_factory):
    return export_two_inputs(tmp_path_factory.mktemp("tfl"))


def test_dynamic_dims_resized_and_inputs_by_name(two_inputs):
    a = np.random.RandomState(0).rand(1, 9, 3).astype(np.float32)
    b = np.full((1, 9, 4), 2, np.int32)
    be = Backend()
    be.require()
    be.load(str(two_inputs), [("b", b), ("a", a)], {"threads": 1})
    be.run()
    out = be.outputs()
    assert out[0].shape == (1, 9, 4)
    d = be.describe()
    assert d["runtime"] == "tflite" and d["module"] == "ai_edge_litert" and d["version"]
    assert sorted(d["options"]["resized_inputs"]) == ["a", "b"] and d["options"]["xnnpack"] is True
    be2 = Backend()
    be2.load(str(two_inputs), [("a", a), ("b", b)], {"threads": 1, "xnnpack": False})
    be2.run()
    np.testing.assert_allclose(be2.outputs()[0], out[0], rtol=1e-5, atol=1e-6)
    assert be2.describe()["options"]["xnnpack"] is False and be2.describe()["providers"] == ["builtin"]
    prof = be2.profile_ops(5)
    assert prof["available"] is False and "no per-op timings" in prof["reason"]
    assert prof["op_counts"].get("FULLY_CONNECTED") == 1
    be.close()
    be2.close()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # LiteRT's Delegate.__del__ after a failed load
def test_missing_input_and_bad_delegate(two_inputs):
    be = Backend()
    with pytest.raises(OpError) as e:
        be.load(str(two_inputs), [("a", np.zeros((1, 5, 3), np.float32))], {})
    assert e.value.type == "bad_inputs" and "b" in e.value.message
    with pytest.raises(OpError) as e:
        Backend().load(str(two_inputs), [], {"delegate": "/nonexistent/libdelegate.so"})
    assert e.value.type == "load_failed" and "/nonexistent/libdelegate.so" in e.value.message


def test_int8_io_model_is_fed_quantised_and_read_dequantised(tmp_path, two_inputs):
    from ai_edge_quantizer import quantizer, recipe

    from edgeprof.export.resolve import resolve_model
    from edgeprof.export.tflite_export import prepare_tflite

    (tmp_path / "fc.py").write_text(
        "import torch\n\ndef build(seed):\n    torch.manual_seed(seed)\n"
        "    return torch.nn.Sequential(torch.nn.Linear(6, 3)).eval(), {'input': torch.rand(1, 6)}\n")
    art = prepare_tflite(resolve_model(f"{tmp_path / 'fc.py'}:build"), cache_dir=tmp_path / "cache", batch=1)
    q = quantizer.Quantizer(art.path)
    q.load_quantization_recipe(recipe.static_wi8_ai8())
    rs = np.random.RandomState(1)
    samples = [{"input": rs.rand(1, 6).astype(np.float32)} for _ in range(16)]
    calib = q.calibrate({"serving_default": samples})
    out = tmp_path / "int8io.tflite"
    q.quantize(calib, enable_progress_report=False).export_model(str(out), overwrite=True)
    x = samples[3]["input"]  # inside the calibrated ranges
    be = Backend()
    be.load(str(out), [("input", x)], {})
    be.run()
    got = be.outputs()[0]
    assert be.describe()["options"]["quantized_inputs"] == ["input"] and got.dtype == np.float32
    # the same by hand with the interpreter: quantise with the file's (scale, zero point), dequantise the output
    from ai_edge_litert.interpreter import Interpreter

    it = Interpreter(str(out))
    it.allocate_tensors()
    di, do = it.get_input_details()[0], it.get_output_details()[0]
    (si, zi), (so, zo) = di["quantization"], do["quantization"]
    it.set_tensor(di["index"], np.clip(np.round(x / si + zi), -128, 127).astype(np.int8))
    it.invoke()
    want = (it.get_tensor(do["index"]).astype(np.float32) - zo) * np.float32(so)
    np.testing.assert_allclose(got, want, rtol=1e-6)
