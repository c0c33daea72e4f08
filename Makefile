# The project's whole vocabulary of commands. Each installs what it is missing first.
PYTHON ?= $(shell command -v python3.11 || command -v python3.12 || command -v python3.13 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
export PORT

.PHONY: run test lint format bench soak ci clean lock

# Dependencies install from lock files with hashes (requirements.lock for `run`,
# requirements-dev.lock with the test and bench extras), so a fresh machine gets exactly
# what was tested. After changing dependencies in pyproject.toml: `make lock`, commit both.
define install
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q --require-hashes -r $(1)
	$(PY) -m pip install -q --no-deps -e .
endef

$(VENV)/.installed-run: requirements.lock
	$(call install,requirements.lock)
	@touch $@

$(VENV)/.installed-test: requirements-dev.lock
	$(call install,requirements-dev.lock)
	@touch $@ $(VENV)/.installed-run

# The demo's organisation is where it is late morning now (its simulated tenant's days and
# busy hours follow that zone): a first look finds a busy floor with a morning behind it,
# whatever the hour here. A zone or a service of your own (environment or .env) is kept.
DEMO_ZONE = $(shell python3 -c 'import datetime as d; h = (11 - d.datetime.now(d.timezone.utc).hour + 12) % 24 - 12; print(f"Etc/GMT{-h:+d}")')

run: $(VENV)/.installed-run
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py demo_user
	if [ -z "$$TIME_ZONE$$UPSTREAM_BASE_URL" ] && ! grep -qsE '^(TIME_ZONE|UPSTREAM_BASE_URL)=' .env; then \
	  export TIME_ZONE=$(DEMO_ZONE); echo "  Zone:       $(DEMO_ZONE), where it is late morning now"; fi; \
	exec $(PY) manage.py serve --port $(PORT)

# Parallel workers, a test module to each (its tests stay together and in order): most of
# the suite waits on real time, not the CPU. TEST_WORKERS=0 runs it in one process. Modules
# are handed out in collection order, slowest first (tests/conftest.py), not xdist's
# default of the most tests first, which left a one-test module of minutes to the end.
TEST_WORKERS ?= 4

test: $(VENV)/.installed-test
	bash .ci/system-deps
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

$(VENV)/.installed-bench: $(VENV)/.installed-test  # the bench extra is in requirements-dev.lock
	@touch $@

# Resolve pyproject.toml afresh from PyPI alone (uv reads no pip configuration, so local
# wheel folders and mirrors never reach the lock): every platform's hashes, Python 3.11+.
LOCK := $(VENV)/bin/uv pip compile pyproject.toml --universal --python-version 3.11 \
	--generate-hashes --custom-compile-command "make lock" --quiet
lock:
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q "uv>=0.9,<1"
	$(LOCK) -o requirements.lock
	$(LOCK) --extra test --extra bench -o requirements-dev.lock

# Not part of `test`: several minutes of load (docs/performance.md); tests/bench smoke-runs it.
bench: $(VENV)/.installed-bench
	$(PY) -m bench.run --runs $(or $(RUNS),1)

# Not part of `test` or `bench`: SOAK_MIN minutes (default 30) of a floor's load with a live
# view and a wallboard open, memory and database followed each minute (bench/soak.py).
soak: $(VENV)/.installed-bench
	$(PY) -m bench.soak

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
	-$(VENV)/bin/djlint templates --reformat --quiet  # exits 1 when it changed a file
	node_modules/.bin/biome check --write

ci: lint test

clean:
	rm -rf $(VENV) node_modules staticfiles test-artifacts .test-cache
