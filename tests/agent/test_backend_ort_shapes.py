"""An output whose shape changes from one inference to the next under onnxruntime's pre-allocated buffer (a
length drawn at random, as a VITS voice's stochastic durations draw it; or read from the inputs' values, as a
detector's box count): the run moves that output to onnxruntime's own allocation once, says so in a late warning,
and every later inference runs — never the "computed output shape" error the pre-allocated buffer raised."""

import numpy as np
from onnx_fixtures import changing_length_model  # tests/ is on sys.path via its conftest

from edgeprof_agent.backends.ort import Backend


def _load(tmp_path, random, x):
    b = Backend(workdir=str(tmp_path))
    b.require()
    b.load(changing_length_model(tmp_path / "m.onnx", random=random), [("x", x)], {})
    return b


def test_a_length_drawn_at_random_moves_the_output_to_the_runtime_once(tmp_path):
    b = _load(tmp_path, True, np.zeros((1, 256), np.float32))
    assert not b.late_warnings
    lengths = set()
    for _ in range(30):
        b.run()
        lengths.add(b.outputs()[0].shape[1])
    assert len(lengths) > 5  # it did change, and every run ran
    (w,) = b.late_warnings
    assert w["code"] == "output_shape_changes" and w["message"].startswith("output(s) y changed shape")
    assert ", then {2," in w["message"]


def test_a_length_read_from_new_inputs_runs_as_the_accuracy_pass_feeds_them(tmp_path):
    rng = np.random.RandomState(0)
    b = _load(tmp_path, False, rng.rand(1, 256).astype(np.float32))
    first = b.outputs()[0].shape
    b.run()
    assert b.outputs()[0].shape == first and not b.late_warnings  # fixed inputs: one shape, pre-allocated
    x = np.zeros((1, 256), np.float32)
    x[0, :7] = 1.0
    b.set_inputs([("x", x)])
    b.run()
    assert b.outputs()[0].shape == (2, 7) and [w["code"] for w in b.late_warnings] == ["output_shape_changes"]
