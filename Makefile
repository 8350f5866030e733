# Two commands on a fresh machine: `make run` serves Dicecup on SQLite,
# `make test` runs lint, type checks and the whole test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/python -m app serve

lint: $(STAMP)
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app tests bench
	$(BIN)/mypy app

test: lint
	$(BIN)/pytest $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
