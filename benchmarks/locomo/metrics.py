"""Aggregating per-question records into a run's figures (pure functions, no I/O).

A record is one (system, question): ``correct`` (judge verdict, None when the judge failed),
``f1``, ``category``, ``seconds``, ``tokens`` (prompt/completion/total), ``tool_calls``,
``tools`` (calls by tool name), ``tool_output_chars`` and ``evidence_hit`` (None when the
system cited nothing).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from benchmarks.locomo.data import CATEGORY_NAMES, PAPER_CATEGORIES

CHARS_PER_TOKEN = 4.0  # tool output is measured in characters; tokens are estimated


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in [0, 100]); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def rate(flags: Iterable[bool | None]) -> float | None:
    """Share of True among the non-None flags; None when there are none."""
    known = [f for f in flags if f is not None]
    return sum(known) / len(known) if known else None


def accuracy(records: Sequence[dict[str, Any]]) -> float | None:
    """Judge accuracy; a failed judgement (None) counts as WRONG, so nothing is hidden."""
    return sum(1 for r in records if r.get("correct") is True) / len(records) if records else None


def _block(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    f1s = [float(r.get("f1", 0.0)) for r in records]
    return {
        "n": len(records),
        "accuracy": accuracy(records),
        "f1": sum(f1s) / len(f1s) if f1s else None,
        "judge_failures": sum(1 for r in records if r.get("correct") is None),
    }


def by_category(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per category (named), the paper's overall over 1-4, and adversarial apart."""
    out: dict[str, Any] = {}
    for number, name in CATEGORY_NAMES.items():
        chosen = [r for r in records if r["category"] == number]
        if chosen:
            out[name] = _block(chosen)
    out["overall_1_4"] = _block([r for r in records if r["category"] in PAPER_CATEGORIES])
    return out


def tool_use(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    calls = [float(r.get("tool_calls", 0)) for r in records]
    by_tool: Counter[str] = Counter()
    for r in records:
        by_tool.update(r.get("tools", {}))
    n = len(records) or 1
    return {
        "median": percentile(calls, 50),
        "p90": percentile(calls, 90),
        "mean": sum(calls) / n,
        "per_question_by_tool": {k: v / n for k, v in sorted(by_tool.items())},
    }


def token_use(records: Sequence[dict[str, Any]], construction_tokens: float) -> dict[str, Any]:
    """Tokens per question: construction amortised over the questions, the answering LLM
    calls (measured), and the tool output fed back to the model (estimated from chars)."""
    n = len(records) or 1
    loop = [float(r.get("tokens", {}).get("total_tokens", 0)) for r in records]
    tool_out = [float(r.get("tool_output_chars", 0)) / CHARS_PER_TOKEN for r in records]
    return {
        "construction_amortised": construction_tokens / n,
        "answering_mean": sum(loop) / n,
        "answering_median": percentile(loop, 50),
        "tool_output_est_mean": sum(tool_out) / n,
    }


def latency(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    seconds = [float(r.get("seconds", 0.0)) for r in records]
    return {"p50": percentile(seconds, 50), "p95": percentile(seconds, 95), "n": len(seconds)}


def summarize(
    records: Sequence[dict[str, Any]], construction_tokens: dict[str, float]
) -> dict[str, Any]:
    """Per system: accuracy/F1 by category, tools, tokens, latency, evidence hit rate.

    ``construction_tokens`` maps a system to the construction tokens it depends on (0 for a
    baseline that reads the raw conversation)."""
    systems: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        systems[r["system"]].append(r)
    return {
        name: {
            "questions": len(rows),
            "categories": by_category(rows),
            "tool_calls": tool_use(rows),
            "tokens": token_use(rows, construction_tokens.get(name, 0.0)),
            "latency_s": latency(rows),
            "evidence_hit_rate": rate(r.get("evidence_hit") for r in rows),
            "cited_share": rate(r.get("evidence_hit") is not None for r in rows),
            "errors": sum(1 for r in rows if r.get("error")),
        }
        for name, rows in systems.items()
    }
