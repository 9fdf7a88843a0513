#!/usr/bin/env bash
# The whole suite: lint, types, then unit + integration tests against real services.
# Services this script starts are recorded in a file and stopped (by PID) on every exit path;
# servers that were already running are used and left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin

echo "== ruff"; $BIN/ruff check . && $BIN/ruff format --check .
echo "== mypy"; $BIN/mypy

started=$(mktemp)
cleanup() { $BIN/apexmem services down --started-file "$started" || true; rm -f "$started"; }
trap cleanup EXIT

echo "== services"; $BIN/apexmem services up --started-file "$started"
echo "== pytest"; $BIN/pytest tests -q -ra "$@"
