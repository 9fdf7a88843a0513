# Two commands for a fresh machine: `make demo` and `make test` (see README.md).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

# LiteLLM must not fetch its cost map, and no model hub is reachable: load weights offline.
export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1

.PHONY: install browser demo doctor test lint typecheck unit services-up services-down clean bench bench-smoke report

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -e '.[dev,all]'
	touch $@

install: $(VENV)/.installed

## the main job on the embedded default: ingest a sample conversation, answer three questions
## (starts the local LLM unless APEXMEM_LM names another model)
demo: install
	@if [ -z "$$APEXMEM_LM" ]; then $(BIN)/apexmem services up llm; fi
	$(BIN)/apexmem demo

## start Neo4j, Elasticsearch and the LLM and prove each with a timed round trip
doctor: install
	$(BIN)/apexmem doctor

## Debian's chromium for the /ui browser test (tests/integration/server/test_ui_browser.py);
## a no-op when it is installed, else apt-get as root
browser:
	command -v chromium >/dev/null || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium)

## ruff, mypy, then every test against real services (started here, stopped at the end)
test: install browser
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

## benchmarks (issue 7) on the local model by default (APEXMEM_LM for any LiteLLM model);
## results, plots and REPORT.md go to benchmarks/results/. Runs resume where they stopped.
BENCH := nice $(BIN)/python -m benchmarks
LOCOMO_CONVS ?= conv-26

## small versions of every benchmark, offline, then the report (target: under 45 min on 2 cores;
## each step's wall time lands in benchmarks/results/bench_smoke_timing.json)
bench-smoke: install
	bash scripts/bench-smoke.sh

## the full versions, then the report (hours on the local model; LOCOMO_CONVS="conv-26 conv-30";
## LOCOMO's file from APEXMEM_LOCOMO_DATA=PATH/locomo10.json)
bench: install
	for conv in $(LOCOMO_CONVS); do $(BENCH).locomo.run --conversation $$conv --tag $$conv || exit 1; done
	$(BENCH).temporal.run --conversations 10
	$(BENCH).query_languages.run --private-neo4j --out benchmarks/results/query_languages.json
	$(BIN)/python -m benchmarks.report

## REPORT.md from whatever results are present
report: install
	$(BIN)/python -m benchmarks.report

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
