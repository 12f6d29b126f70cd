# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SOURCES := src tests bench

.PHONY: setup demo test lint unit clean readme-config

$(BIN)/vidrelay: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

setup: $(BIN)/vidrelay

demo: setup
	$(BIN)/vidrelay demo

lint: setup
	$(BIN)/ruff check $(SOURCES)
	$(BIN)/ruff format --check $(SOURCES)
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint
	$(BIN)/pytest

unit: setup
	$(BIN)/pytest tests/unit

# The README's configuration table, from the settings model (a test fails when they differ).
readme-config: setup
	$(BIN)/python -m entrypoints.settings_doc --write README.md

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
