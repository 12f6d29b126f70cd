# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SOURCES := src tests bench docker

.PHONY: setup demo test lint unit clean readme-config lock

# What a real deployment needs (the extractors: yt-dlp's extras and Deno) and the test tools. The
# stamp names the extras, so a venv made before they changed is brought up to date by any target.
EXTRAS := dev,extractors
comma := ,
INSTALLED := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[$(EXTRAS)]'
	touch $@

setup: $(INSTALLED)

demo: setup
	$(BIN)/vidrelay demo

lint: setup
	$(BIN)/ruff check $(SOURCES)
	$(BIN)/ruff format --check $(SOURCES)
	$(BIN)/mypy
	$(BIN)/lint-imports

# Two workers, one test file each at a time (a file's module-scoped bot and its order stay
# together): most of the suite's wall time is bots, servers and yt-dlp waiting on real clocks,
# not CPU, so two files at once take about half the time on a 2-core machine.
test: lint
	$(BIN)/pytest -n 2 --dist loadfile

unit: setup
	$(BIN)/pytest tests/unit

# The README's configuration table, from the settings model (a test fails when they differ).
readme-config: setup
	$(BIN)/python -m entrypoints.settings_doc --write README.md

# requirements.lock: the image's runtime dependencies, pinned with hashes, resolved against PyPI
# only (no machine-local pip configuration). Run after changing the dependencies in pyproject.toml.
lock: setup
	env -u PIP_FIND_LINKS -u PIP_INDEX_URL -u PIP_EXTRA_INDEX_URL PIP_CONFIG_FILE=/dev/null \
	  CUSTOM_COMPILE_COMMAND="make lock" $(BIN)/pip-compile --quiet --generate-hashes --strip-extras \
	  --extra postgres --extra extractors --no-emit-index-url --no-emit-find-links \
	  --output-file requirements.lock pyproject.toml

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
