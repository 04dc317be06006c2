"""The onnxruntime backend on the onnxruntime the JetPack 4.6 stack really has (1.10): no native crash.

Reading the OrtValues from IOBinding.get_outputs() after clear_binding_outputs() reads freed memory on
onnxruntime 1.10-1.18 (SIGSEGV). The agent's backend runs here in the stand-in venv's Python 3.6, as on a Nano.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from onnxfiles import CLASSES, INPUT_SHAPE, tiny_cnn
from stack_profiles import PROFILE_BY_NAME

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.stacks

SCRIPT = r"""
import sys, numpy as np
from edgeprof_agent.backends.ort import Backend
x = np.random.RandomState(0).standard_normal(%r).astype(np.float32)
for i in range(20):  # the freed memory is reused soon, but not always at once: load several sessions
    b = Backend()
    b.load(sys.argv[1], {"input": x}, {"threads": 1})
    b.run()
    out = b.outputs()
    b.close()
print("ok", b.describe()["version"], out[0].shape)
"""


@pytest.mark.parametrize("stack", ["jetpack-4.6", "jetpack-5.1", "jetpack-6"])
def test_backend_loads_and_runs_without_a_native_crash(stack: str, stack_entry: Callable[[str], dict[str, object]],
                                                       tmp_path: Path) -> None:
    entry = stack_entry(stack)
    onnx_max = PROFILE_BY_NAME[stack].onnx_max
    assert onnx_max is not None
    model = tiny_cnn(tmp_path / "m.onnx", ir_version=min(onnx_max[0], 7), opset=13)
    p = subprocess.run([str(entry["python"]), "-X", "faulthandler", "-c", SCRIPT % (INPUT_SHAPE,), str(model)],
                       cwd=REPO / "agents", capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"exit {p.returncode} on {stack}: {p.stderr[-3000:]}"
    version = dict(entry["profile"]["expected"])["onnxruntime"]  # type: ignore[index]
    assert p.stdout.split() == ["ok", version, "(1,", f"{CLASSES})"]
