"""Aggregating per-question records: percentiles, accuracy by category, tools, tokens."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.locomo.metrics import percentile, rate, summarize


def rec(system: str, category: int, correct: bool | None, **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "system": system, "category": category, "correct": correct, "f1": 1.0 if correct else 0.0,
        "seconds": 10.0, "tokens": {"total_tokens": 1000}, "tool_calls": 0, "tools": {},
        "tool_output_chars": 0, "evidence_hit": None,
    }  # fmt: skip
    base.update(kw)
    return base


def test_percentile_interpolates() -> None:
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([5], 95) == 5
    assert percentile([], 50) is None
    assert percentile([0, 10], 90) == pytest.approx(9.0)


def test_rate_ignores_none() -> None:
    assert rate([True, False, None, True]) == pytest.approx(2 / 3)
    assert rate([None]) is None


def test_summarize_per_category_and_overall_excludes_adversarial() -> None:
    records = [
        rec("agent", 2, True), rec("agent", 2, False), rec("agent", 4, True),
        rec("agent", 5, False), rec("agent", 1, None),
    ]  # fmt: skip
    s = summarize(records, {"agent": 5000.0})["agent"]
    cats = s["categories"]
    assert cats["temporal"] == {"n": 2, "accuracy": 0.5, "f1": 0.5, "judge_failures": 0}
    assert cats["adversarial"]["accuracy"] == 0.0
    # overall over categories 1-4: 2 right of 4, the judge failure counted WRONG
    assert cats["overall_1_4"]["n"] == 4 and cats["overall_1_4"]["accuracy"] == 0.5
    assert cats["overall_1_4"]["judge_failures"] == 1
    assert s["tokens"]["construction_amortised"] == 1000.0  # 5000 over 5 questions


def test_summarize_tools_latency_evidence() -> None:
    records = [
        rec("agent", 4, True, tool_calls=2, tools={"Search": 1, "GraphQuery": 1}, seconds=10,
            tool_output_chars=400, evidence_hit=True),
        rec("agent", 4, True, tool_calls=0, seconds=20, evidence_hit=False),
        rec("agent", 4, False, tool_calls=4, tools={"Search": 4}, seconds=30),
        rec("rag", 4, True, seconds=2, evidence_hit=True),
    ]  # fmt: skip
    out = summarize(records, {"agent": 0.0})
    agent = out["agent"]
    assert agent["tool_calls"]["median"] == 2 and agent["tool_calls"]["p90"] == pytest.approx(3.6)
    assert agent["tool_calls"]["per_question_by_tool"] == {"GraphQuery": 1 / 3, "Search": 5 / 3}
    assert agent["latency_s"]["p50"] == 20 and agent["latency_s"]["p95"] == pytest.approx(29)
    assert agent["evidence_hit_rate"] == 0.5 and agent["cited_share"] == pytest.approx(2 / 3)
    assert agent["tokens"]["tool_output_est_mean"] == pytest.approx(100 / 3)
    assert out["rag"]["questions"] == 1 and out["rag"]["tokens"]["construction_amortised"] == 0
