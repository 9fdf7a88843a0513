"""REPORT.md from result JSONs: sections, provenance, renderers and the generic fallback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.locomo.render import plots
from benchmarks.report import build_report, demote, generic_markdown, main
from tests.unit.bench.test_locomo_metrics import rec


def locomo_result() -> dict[str, Any]:
    from benchmarks.locomo.metrics import summarize

    records = [rec("agent", 2, True, tool_calls=1, tools={"Search": 1}, evidence_hit=True),
               rec("agent", 4, False), rec("rag", 2, False), rec("rag", 4, True)]  # fmt: skip
    return {
        "benchmark": "locomo", "command": ".venv/bin/python -m benchmarks.locomo.run --limit 2",
        "model": "openai/qwen-test", "judge_model": "openai/judge-test",
        "started_at": "2026-01-01T00:00:00", "load_avg_1_5_15": [1.0, 2.0, 3.0],
        "setup": {"conversation": "conv-26", "sessions": [1], "turns": 18, "store": "sqlite",
                  "question_date": "2023-10-22T09:55:00"},
        "questions": 2, "summary": summarize(records, {"agent": 100.0}),
        "notes": ["full_context: the last 18 of 18 turns fit"],
    }  # fmt: skip


def temporal_result() -> dict[str, Any]:
    block = {"n": 1, "accuracy": 1.0, "exact": 0.0}
    mode = {"by_kind": {"current": block}, "overall": block, "latency_s": {"p50": 3, "p95": 4},
            "tokens_mean": 10}  # fmt: skip
    return {
        "benchmark": "temporal", "command": "cmd-temporal", "model": "m", "judge_model": "j",
        "setup": {"conversations": 1, "seed": 7, "turns": 6}, "questions": 1,
        "overwrite": {"facts_overwritten": 2, "facts_total": 6, "turns_dropped": 2},
        "summary": {"append_only": mode, "overwrite": mode},
    }  # fmt: skip


def test_report_has_each_section_with_its_command_and_figures(tmp_path: Path) -> None:
    result = locomo_result()
    result["plots"] = plots(result, tmp_path, "locomo")
    (tmp_path / "locomo.json").write_text(json.dumps(result))
    (tmp_path / "temporal.json").write_text(json.dumps(temporal_result()))
    (tmp_path / "query_languages.json").write_text(json.dumps({"x": 1}))  # not the study's shape
    (tmp_path / "search_speed.json").write_text(json.dumps({"command": "cmd-search"}))
    text = build_report(tmp_path, tmp_path / "REPORT.md")
    assert "## LOCOMO QA" in text and "## Append-only vs overwrite" in text
    assert "`.venv/bin/python -m benchmarks.locomo.run --limit 2`" in text
    assert "model `openai/qwen-test`, judge_model `openai/judge-test`" in text
    assert "| agent | - | 100.0% (F1 1.00, n=1) | - | 0.0% (F1 0.00, n=1) |" in text
    assert "![locomo_accuracy.png](locomo_accuracy.png)" in text
    assert (tmp_path / "locomo_accuracy.png").stat().st_size > 1000
    assert "| current | 100% / 0% (n=1) | 100% / 0% (n=1) |" in text
    assert "## SQL vs Cypher" in text and "renderer failed" in text  # shown, not dropped
    assert "- `search_speed.json`: `cmd-search`" in text


def test_report_without_results_says_what_to_run(tmp_path: Path) -> None:
    assert main(["--results", str(tmp_path)]) == 0
    assert "make bench-smoke" in (tmp_path / "REPORT.md").read_text()


def test_generic_markdown_and_demote() -> None:
    text = generic_markdown({"questions": 3, "arms": {"a": {"acc": 0.5, "n": 2}, "b": {"n": 1}}})
    assert "- questions: 3" in text
    assert "| a | 0.5 | 2 |" in text and "| b | - | 1 |" in text
    assert demote("# T\ntext\n## U") == "### T\ntext\n#### U"


def test_context_recall_gets_its_own_table(tmp_path: Path) -> None:
    result = {
        "benchmark": "locomo_context_recall", "command": "cmd-recall",
        "setup": {"conversation": "conv-26", "turns": 419, "prefetch_entities": 2,
                  "prefetch_turns": 8, "rag_k": 10, "full_context_turns": 129},
        "questions": {"1-4": 149, "5": 0},
        "context_recall": {"1-4": {"agent": 0.852, "rag": 0.879, "full_context": 0.309},
                           "5": {}},
    }  # fmt: skip
    (tmp_path / "context_recall_conv-26.json").write_text(json.dumps(result))
    text = build_report(tmp_path, tmp_path / "REPORT.md")
    assert "## LOCOMO context recall (no LLM)" in text and "`cmd-recall`" in text
    assert "| 1-4 | 149 | 85.2% | 87.9% | 30.9% |" in text
    assert "| 5 | 0 | - | - | - |" in text
    assert "Other result files" not in text


def test_bench_smoke_timing_gets_its_steps_and_budget(tmp_path: Path) -> None:
    timing = {
        "command": "make bench-smoke", "model": "local test model",
        "started": "2026-12-03T11:40:25",
        "wall_s": 1982, "budget_s": 2700, "within_budget": True, "cores": 2,
        "load_at_end": [1.65, 1.95, 1.98],
        "steps": [{"step": "locomo", "wall_s": 645, "command": "python -m benchmarks.locomo.run"}],
    }  # fmt: skip
    (tmp_path / "bench_smoke_timing.json").write_text(json.dumps(timing))
    text = build_report(tmp_path, tmp_path / "REPORT.md")
    assert "## make bench-smoke wall time" in text
    assert "**1982 s** in all, within the 2700 s budget" in text
    assert "| locomo | 645 | `python -m benchmarks.locomo.run` |" in text
    assert "Other result files" not in text
