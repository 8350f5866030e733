# Two commands on a fresh machine: `make run` serves Dicecup on SQLite,
# `make test` runs lint, type checks and the whole test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# What the server needs (`make run`, `make backup`): the locked runtime
# dependencies only; the server runs from this source tree.
SERVER_STAMP := $(VENV)/.installed-server
# Everything else too (`make test`, `make lint`, ...): the development tools,
# this project and the Python client as editable installs.
STAMP := $(VENV)/.installed
# Locked dependencies, with hashes (`make lock` regenerates them from
# pyproject.toml): prod.txt for the server and the image, dev.txt (prod + tools).
LOCK_PROD := requirements/prod.txt
LOCK_DEV := requirements/dev.txt
PIP := $(BIN)/pip --disable-pip-version-check
# setuptools announces every editable install with a warning banner: nothing is wrong.
QUIET_EDITABLE := PYTHONWARNINGS="ignore:Editable installation"
UV_COMPILE = $(BIN)/uv pip compile pyproject.toml --universal --generate-hashes --python-version 3.11 \
	--custom-compile-command "make lock" --quiet $(LOCK_ARGS)

.PHONY: run test lint install backup lock config-doc sdk-types clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(SERVER_STAMP): $(LOCK_PROD) | $(BIN)/python
	@echo "==> Installing what the server needs ($(LOCK_PROD), locked) into $(VENV): once, about half a minute"
	$(PIP) install --require-hashes --progress-bar on -r $(LOCK_PROD)
	touch $(SERVER_STAMP)
	@echo "==> Installed into $(VENV)"

$(STAMP): $(LOCK_DEV) pyproject.toml clients/python/pyproject.toml | $(BIN)/python
	@echo "==> Installing the development tools ($(LOCK_DEV), locked) into $(VENV): once, about a minute"
	$(PIP) install --require-hashes --progress-bar on -r $(LOCK_DEV)
	$(QUIET_EDITABLE) $(PIP) install --quiet --no-deps -e . -e clients/python
	touch $(SERVER_STAMP) $(STAMP)
	@echo "==> Installed into $(VENV)"

# clients/js's dev dependencies (ws, typescript) for its tests, where npm is
# (without it tests/clients/test_js_client.py skips; under DICECUP_TEST_STRICT=1 it fails).
JS_STAMP := clients/js/node_modules/.installed
$(JS_STAMP): clients/js/package.json clients/js/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix clients/js --no-audit --no-fund --loglevel=error && touch $(JS_STAMP); \
	else echo "npm not found: the JavaScript client's tests will skip"; fi

install: $(STAMP) $(JS_STAMP)

# Regenerate the lock files after a change to pyproject.toml's dependencies
# (LOCK_ARGS=--upgrade moves every pin to the newest release allowed).
lock: $(STAMP)
	$(BIN)/pip install --quiet 'uv>=0.5'
	$(UV_COMPILE) -o $(LOCK_PROD)
	$(UV_COMPILE) --extra dev -o $(LOCK_DEV)
	$(BIN)/pip install --quiet --require-hashes -r $(LOCK_DEV)
	touch $(STAMP)

# docs/configuration.md from app/config.py's Settings
config-doc: $(STAMP)
	$(BIN)/python -m app config-doc --output docs/configuration.md

# The SDKs' constants and types from the server's documents (GET /api/protocol.json
# and /openapi.json, built in process): clients/js/src/generated/ and
# clients/python/dicecup_client/generated/. Checked in; `make lint` fails when stale.
sdk-types: $(STAMP)
	$(BIN)/python -m tools.sdk_types

run: $(SERVER_STAMP)
	@echo "==> Starting Dicecup: migrating the database, then serving (Ctrl+C stops it)"
	$(BIN)/python -m app serve

# An online backup of the SQLite database (the server may run meanwhile) into
# backups/, named by the time; `.venv/bin/python -m app restore FILE --force`
# puts one back with every server stopped. PostgreSQL: README.md, Backups.
BACKUP ?= backups/dicecup-$(shell date +%Y-%m-%d-%H%M%S).db
backup: $(SERVER_STAMP)
	$(BIN)/python -m app backup $(BACKUP)

lint: $(STAMP)
	$(BIN)/ruff check app tests bench clients/python tools
	$(BIN)/ruff format --check app tests bench clients/python tools
	$(BIN)/mypy app tools/sdk_types
	$(BIN)/mypy --strict clients/python/dicecup_client
	$(BIN)/python -m tools.sdk_types --check

# On every core (at most 4 workers; pytest-xdist), a test file per worker at a
# time: its module fixtures (live servers, a browser) are set up once.
# PYTEST_ARGS="-n 0" runs it in one process.
test: lint $(JS_STAMP)
	$(BIN)/pytest -n auto --maxprocesses 4 --dist loadfile $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
