# The project's whole vocabulary of commands. Each installs what it is missing first.
PYTHON ?= $(shell command -v python3.11 || command -v python3.12 || command -v python3.13 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
export PORT

.PHONY: run test lint format bench ci clean

$(VENV)/.installed-run: pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	@touch $@

$(VENV)/.installed-test: pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	@touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py demo_user
	exec $(PY) manage.py serve --port $(PORT)

# Parallel workers, a test module to each (its tests stay together and in order): most of
# the suite waits on real time, not the CPU. TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= 3

test: $(VENV)/.installed-test
	bash .ci/system-deps
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

$(VENV)/.installed-bench: pyproject.toml $(VENV)/.installed-test
	$(PY) -m pip install -q -e '.[test,bench]'
	@touch $@

# Not part of `test`: several minutes of load (docs/performance.md); tests/bench smoke-runs it.
bench: $(VENV)/.installed-bench
	$(PY) -m bench.run

# Biome, pinned in package.json and package-lock.json: the templates' scripts' formatter
# and linter (no Node packages reach the browser; static/vendor/ is left as shipped).
# `npm install --no-save` installs what the lock file pins, checked against its hashes
# (npm ci refuses a lock that, as here, holds only this platform's Biome binary).
node_modules/.installed: package.json package-lock.json
	npm install --no-save --no-audit --no-fund --loglevel=error
	@touch $@

lint: $(VENV)/.installed-test node_modules/.installed
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/djlint templates --check
	$(VENV)/bin/djlint templates --lint
	node_modules/.bin/biome ci

format: $(VENV)/.installed-test node_modules/.installed
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/djlint templates --reformat --quiet
	node_modules/.bin/biome check --write

ci: lint test

clean:
	rm -rf $(VENV) node_modules staticfiles test-artifacts .test-cache
