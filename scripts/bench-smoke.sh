#!/usr/bin/env bash
# Small versions of every issue-7 benchmark, offline, then REPORT.md.
# Starts the services the benchmarks need (the local LLM unless APEXMEM_LM names another model,
# and Neo4j for the SQL-vs-Cypher arms), stops by PID those it started, and records the wall
# time of each step in benchmarks/results/bench_smoke_timing.json so the 45-minute budget is
# measured by the repo, not claimed.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
BENCH="nice $BIN/python -m benchmarks"
TIMING=benchmarks/results/bench_smoke_timing.json

started=$(mktemp)
cleanup() { $BIN/apexmem services down --started-file "$started" || true; rm -f "$started"; }
trap cleanup EXIT

services=(neo4j)
if [ -z "${APEXMEM_LM:-}" ]; then services+=(llm); fi
$BIN/apexmem services up "${services[@]}" --started-file "$started"

steps_json=""
run_step() {  # run_step NAME CMD...: run, time, append to the timing record
    local name=$1; shift
    local t0; t0=$(date +%s.%N)
    "$@"
    local wall; wall=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$t0" "$(date +%s.%N)")
    echo "== $name: ${wall} s"
    steps_json+="${steps_json:+,}{\"step\": \"$name\", \"command\": \"$*\", \"wall_s\": $wall}"
}

begin=$(date -u +%Y-%m-%dT%H:%M:%S)
t_begin=$(date +%s)
# Sizes: the first timed run (2 sessions, 20 questions x 3 systems) spent 4106 s on the LOCOMO
# step alone (35 turns ingested at ~28 s each, then ~60 s per agent or full-context answer and
# ~18 s per RAG answer, judge included), so every step is cut here; this size is not timed yet.
run_step locomo $BENCH.locomo.run --conversation conv-26 --sessions 1 --limit 6 --tag smoke
run_step temporal $BENCH.temporal.run --conversations 1 --attributes 1 --tag smoke
run_step query_languages $BENCH.query_languages.run --limit 8 \
    --out benchmarks/results/query_languages_smoke.json
total=$(( $(date +%s) - t_begin ))
cat > "$TIMING" <<JSON
{"command": "make bench-smoke", "model": "${APEXMEM_LM:-local Qwen2.5-Coder-1.5B-Instruct Q4_K_M}",
 "started": "$begin", "wall_s": $total, "budget_s": 2700, "within_budget": $([ $total -le 2700 ] && echo true || echo false),
 "cores": $(nproc), "load_at_end": "$(cut -d' ' -f1-3 /proc/loadavg)", "steps": [$steps_json]}
JSON
echo "== bench-smoke wall time: ${total} s (budget 2700 s)"
$BIN/python -m benchmarks.report
