#!/usr/bin/env bash
# Create the virtual environment and install edgeprof with everything the demo and the tests need.
# torch is pinned (torch==2.13.0, CPU build): an unpinned torch pulls a multi-GB CUDA build.
set -euo pipefail
PYTHON="${1:-python3}"
VENV="${2:-.venv}"
cd "$(dirname "$0")/.."
if [ ! -x "$VENV/bin/python" ]; then
    echo "edgeprof setup: creating $VENV with $PYTHON"
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
echo "edgeprof setup: installing edgeprof[torch,dev,tflite,quant,lab,gen] (torch==2.13.0 CPU, LiteRT, procrastinate, onnxruntime-genai + gguf) into $VENV"
"$VENV/bin/python" -m pip install -q -e ".[torch,dev,tflite,quant,lab,gen]"
touch "$VENV/bin/edgeprof"
echo "edgeprof setup: done ($("$VENV/bin/edgeprof" --version))"
