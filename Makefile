# Two commands for a fresh machine: `make demo` and `make test` (see README.md).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

# LiteLLM must not fetch its cost map, and no model hub is reachable: load weights offline.
export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1

.PHONY: install demo test lint typecheck unit services-up services-down clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

## the main job on the embedded default
demo: install
	$(BIN)/apexmem doctor

## ruff, mypy, then every test against real services (started here, stopped at the end)
test: install
	bash scripts/run-tests.sh

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

unit: install
	$(BIN)/pytest tests/unit -q

services-up: install
	$(BIN)/apexmem services up

services-down: install
	$(BIN)/apexmem services down

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
