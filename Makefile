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

test: $(VENV)/.installed-test
	bash .ci/system-deps
	$(PY) -m pytest -q $(PYTEST_ARGS)

$(VENV)/.installed-bench: pyproject.toml $(VENV)/.installed-test
	$(PY) -m pip install -q -e '.[test,bench]'
	@touch $@

# Not part of `test`: several minutes of load (docs/performance.md); tests/bench smoke-runs it.
bench: $(VENV)/.installed-bench
	$(PY) -m bench.run

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .

format: $(VENV)/.installed-test
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

ci: lint test

clean:
	rm -rf $(VENV) staticfiles test-artifacts .test-cache
