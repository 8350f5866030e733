# Two commands on a fresh machine: `make run` serves Dicecup on SQLite,
# `make test` runs lint, type checks and the whole test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Locked dependencies, with hashes (`make lock` regenerates them from
# pyproject.toml): prod.txt for the image, dev.txt (prod + tools) here.
LOCK_PROD := requirements/prod.txt
LOCK_DEV := requirements/dev.txt
UV_COMPILE = $(BIN)/uv pip compile pyproject.toml --universal --generate-hashes --python-version 3.11 \
	--custom-compile-command "make lock" --quiet $(LOCK_ARGS)

.PHONY: run test lint install lock config-doc sdk-types clean

$(STAMP): $(LOCK_DEV) pyproject.toml clients/python/pyproject.toml
	@echo "==> Installing Dicecup and its locked dependencies into $(VENV) (first run: a minute or two)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --require-hashes -r $(LOCK_DEV)
	$(BIN)/pip install --quiet --no-deps -e .
	$(BIN)/pip install --quiet --no-deps -e clients/python
	touch $(STAMP)
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

run: $(STAMP)
	@echo "==> Starting Dicecup: migrating the database, then serving (Ctrl+C stops it)"
	$(BIN)/python -m app serve

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
