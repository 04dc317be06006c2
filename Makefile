# The two set-up commands of the README:
#   make demo   — install edgeprof in .venv and profile a bundled model on this machine
#   make test   — install test dependencies (incl. OpenSSH server) and run the test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
MODEL  ?= mobilenet_v2

.PHONY: demo test setup system-deps lint check-agent bench

$(BIN)/edgeprof: pyproject.toml
	@scripts/setup.sh "$(PYTHON)" "$(VENV)"

setup: $(BIN)/edgeprof

demo: setup
	$(BIN)/edgeprof deploy --device local --model $(MODEL)
	$(BIN)/edgeprof results list --limit 5

system-deps:
	@scripts/install-system-deps.sh

test: setup system-deps
	$(BIN)/python -m pytest -q tests

lint: setup
	$(BIN)/ruff check edgeprof models tests benchmarks
	$(BIN)/mypy edgeprof

check-agent: setup
	$(BIN)/vermin -t=3.6- --no-tips --violations agents

bench: setup
	$(BIN)/python benchmarks/harness_overhead.py
