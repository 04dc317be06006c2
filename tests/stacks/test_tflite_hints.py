"""The TFLite backend's errors fit the device: what works on its Python, and tflite-runtime under numpy 2.

Run in the stand-in venvs: JetPack 4.6 (Python 3.6: no LiteRT or tflite-runtime wheel at all), JetPack 5.1
(Python 3.8: no ai-edge-litert) with its TFLite runtime hidden, and the Pi trap (tflite-runtime 2.14, built for
numpy 1, under numpy 2.2.6).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.stacks

SCRIPT = r"""
import json, sys
for name in sys.argv[1:]:
    sys.modules[name] = None  # this runtime is not installed on the device
from edgeprof_agent.backends.tflite import Backend
from edgeprof_agent.protocol import OpError
try:
    Backend().require()
    print(json.dumps({"ok": True}))
except OpError as e:
    print(json.dumps(e.to_dict()))
"""


def require(python: str, *hidden: str) -> dict[str, str]:
    p = subprocess.run([python, "-c", SCRIPT, *hidden], cwd=REPO / "agents", capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    out: dict[str, str] = json.loads(p.stdout)
    return out


def test_python36_says_what_works_there(stack_entry: Callable[[str], dict[str, object]]) -> None:
    err = require(str(stack_entry("jetpack-4.6")["python"]))
    assert err["type"] == "runtime_missing" and "Python 3.6" in err["message"]
    assert err["hint"].startswith("no LiteRT or tflite-runtime wheel exists for Python 3.6")
    assert "--runtime onnxruntime" in err["hint"] and "--runtime tensorrt" in err["hint"]
    assert "ai-edge-litert" not in err["hint"]  # nothing that cannot be installed there
    assert "\n" not in err["message"] + err["hint"]


def test_python38_is_pointed_at_tflite_runtime(stack_entry: Callable[[str], dict[str, object]]) -> None:
    python = str(stack_entry("jetpack-5.1")["python"])
    assert require(python) == {"ok": True}  # tflite-runtime 2.13 is there
    err = require(python, "tflite_runtime", "ai_edge_litert")
    assert err["type"] == "runtime_missing"
    assert err["hint"].startswith("ai-edge-litert needs Python 3.9+: on Python 3.8 install")
    assert "'tflite-runtime<2.15' 'numpy<2'" in err["hint"]


def test_tflite_runtime_under_numpy2_is_explained(stack_entry: Callable[[str], dict[str, object]]) -> None:
    err = require(str(stack_entry("rpi-bookworm-numpy2")["python"]))
    assert err["type"] == "runtime_missing"
    assert err["message"] == ("tflite_runtime 2.14.0 was built for numpy 1.x and cannot run under numpy 2.2.6 "
                              "here")
    assert "pip3 install 'numpy<2'" in err["hint"] and "ai-edge-litert" in err["hint"]
    # the same runtime under the numpy 1 it was built for is accepted
    assert require(str(stack_entry("rpi-bookworm")["python"])) == {"ok": True}
