#!/usr/bin/env bash
# The generative lane's extras: gen, litert-lm (wheels) and the heavy one, llama-cpp-python (edgeprof[llamacpp]).
# PyPI has only llama-cpp-python's source, so pip
# compiles llama.cpp with CMake (about 25 minutes on 2 cores). The built wheel is kept in a cache folder
# (~/.cache/edgeprof/wheels, or $EDGEPROF_WHEELS) and installed from there on later runs, without compiling.
set -euo pipefail
VENV="${1:-.venv}"
cd "$(dirname "$0")/.."
VERSION=0.3.36
CACHE="${EDGEPROF_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/edgeprof/wheels}"
mkdir -p "$CACHE"
if "$VENV/bin/python" -c "import llama_cpp, litert_lm, sys; sys.exit(llama_cpp.__version__ != '$VERSION')" \
        2>/dev/null; then
    exit 0
fi
if ! ls "$CACHE"/llama_cpp_python-"$VERSION"-*.whl >/dev/null 2>&1; then
    echo "edgeprof gen-deps: compiling llama-cpp-python $VERSION into $CACHE (about 25 min on 2 cores, once)"
    CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
        "$VENV/bin/python" -m pip wheel -q --no-deps -w "$CACHE" "llama-cpp-python==$VERSION"
fi
"$VENV/bin/python" -m pip install -q --find-links "$CACHE" -e ".[gen,llamacpp,litert-lm]" "llama-cpp-python==$VERSION"
echo "edgeprof gen-deps: llama-cpp-python $VERSION installed from $CACHE"
