"""Per-question records from an agent's trace, error classes, and per-arm aggregates.

A query "succeeded" when it ran without error (an empty result still ran, but is counted as
the error class ``empty result`` in the error table because it usually means a wrong filter).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

from pydantic import BaseModel

from apexmem_neo.agent.models import AgentResult

QUERY_TOOLS: Final = ("GraphQuery", "Text2Cypher")
ERROR_TITLE: Final = re.compile(r"^## Error: (.+)$", re.MULTILINE)
ZERO_ROWS: Final = re.compile(r"^\*\*0 rows\.\*\*", re.MULTILINE)

PARSE: Final = (
    "syntax", "unterminated", "empty query", "malformed", "incomplete call",
    "duplicate table alias", "ambiguous column",
)  # fmt: skip
GUARD: Final = ("refused", "multiple statements", "not a select", "not available on this")
UNSUPPORTED: Final = (
    "unsupported", "positional parameter", "bad order by", "bad group by", "bad using",
    "union column count", "several columns", "without from",
)  # fmt: skip
UNKNOWN_NAME: Final = (
    "unknown table", "no such column", "no such table", "no such function", "unknown function",
    "not defined", "not in the graph", "unknown column", "has no column",
)  # fmt: skip
PARAMS: Final = ("bad param", "parameter", "did not supply a value", "binding")


class CallRecord(BaseModel):
    """One tool call as the agent made it, with what came back, classified."""

    tool: str
    args: dict[str, Any] = {}
    output_head: str = ""
    ok: bool = True
    error_class: str | None = None


class QuestionRecord(BaseModel):
    """One (arm, question) result: the line written to the results JSONL."""

    arm: str
    qid: str
    kind: str
    question: str
    gold: str
    answer_type: str
    answer: str = ""
    correct: bool = False
    error: str | None = None
    calls: list[CallRecord] = []
    tool_calls: int = 0
    llm_calls: int = 0
    tokens: int = 0
    seconds: float = 0.0
    step_errors: list[str] = []


def classify(output: str) -> str | None:
    """The error class of a query tool's markdown output; None when rows came back."""
    if output.startswith("Execution error in"):
        return "bad tool call"
    match = ERROR_TITLE.search(output)
    if match is None:
        return "empty result" if ZERO_ROWS.search(output) else None
    text = (match.group(1) + " " + output[match.end() : match.end() + 400]).lower()
    if "time limit" in text:
        return "timeout"
    for name, words in (("parse error", PARSE), ("guard refusal", GUARD),
                        ("unsupported construct", UNSUPPORTED),
                        ("unknown name", UNKNOWN_NAME), ("parameter error", PARAMS)):  # fmt: skip
        if any(w in text for w in words):
            return name
    return "runtime error"


def call_record(tool: str, args: dict[str, Any], output: str) -> CallRecord:
    cls = classify(output) if tool in QUERY_TOOLS else None
    ok = cls is None or cls == "empty result"
    return CallRecord(tool=tool, args=args, output_head=output[:300], ok=ok, error_class=cls)


def pair_calls(result: AgentResult, outputs: Sequence[tuple[str, str]]) -> list[CallRecord]:
    """The trace's tool steps paired, in order, with the (tool, output) the tools recorded.

    A step whose call never reached the tool (arguments the tool's schema rejected, an
    unknown tool name) has no recorded output and counts as ``bad tool call``.
    """
    steps = [s for s in result.trace if s.phase == "react" and s.tool and s.tool != "finish"]
    calls: list[CallRecord] = []
    j = 0
    for step in steps:
        tool = step.tool or ""
        if j < len(outputs) and outputs[j][0] == tool:
            calls.append(call_record(tool, step.args, outputs[j][1]))
            j += 1
        else:
            calls.append(CallRecord(tool=tool, args=step.args, ok=False,
                                    error_class="bad tool call"))  # fmt: skip
    return calls


def record_from_result(
    arm: str,
    question: Any,
    result: AgentResult,
    outputs: Sequence[tuple[str, str]],
    correct: bool,
) -> QuestionRecord:
    """One question's record from the agent's result, its trace and the recorded outputs."""
    return QuestionRecord(
        arm=arm, qid=question.qid, kind=question.kind, question=question.text,
        gold=question.gold, answer_type=question.answer_type, answer=result.answer,
        correct=correct, error=result.error, calls=pair_calls(result, outputs),
        tool_calls=result.tool_calls, llm_calls=result.llm_calls,
        tokens=result.tokens.get("total_tokens", 0), seconds=result.seconds,
        step_errors=[s.error for s in result.trace if s.error],
    )  # fmt: skip


# ---- aggregation ----


def _queries(rec: QuestionRecord) -> list[CallRecord]:
    return [c for c in rec.calls if c.tool in QUERY_TOOLS]


def _recovery(rec: QuestionRecord) -> tuple[bool, str] | None:
    """(recovered, tool used next) after the first failed query; None if none failed."""
    calls = rec.calls
    first_fail = next((i for i, c in enumerate(calls) if c.tool in QUERY_TOOLS and not c.ok), None)
    if first_fail is None:
        return None
    after = calls[first_fail + 1 :]
    recovered = any(c.tool in QUERY_TOOLS and c.ok for c in after)
    return recovered, after[0].tool if after else "(stopped)"


def _pct(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def aggregate(records: Sequence[QuestionRecord]) -> dict[str, Any]:
    """The per-arm figures of the study (see the package docstring)."""
    queries = [c for r in records for c in _queries(r)]
    with_query = [r for r in records if _queries(r)]
    recoveries = [x for x in (_recovery(r) for r in records) if x is not None]
    correct = [r for r in records if r.correct]
    return {
        "questions": len(records),
        "accuracy_pct": _pct(len(correct), len(records)),
        "queries": len(queries),
        "query_success_pct": _pct(sum(c.ok for c in queries), len(queries)),
        "first_try_success_pct": _pct(sum(_queries(r)[0].ok for r in with_query), len(with_query)),
        "no_query_pct": _pct(len(records) - len(with_query), len(records)),
        "questions_with_error": len(recoveries),
        "recovery_pct": _pct(sum(ok for ok, _ in recoveries), len(recoveries)),
        "next_tool_after_error": dict(Counter(tool for _, tool in recoveries)),
        "recovered_by": dict(Counter(tool for ok, tool in recoveries if ok)),
        "tool_calls_mean": _mean([r.tool_calls for r in records]),
        "tool_calls_to_correct_mean": _mean([r.tool_calls for r in correct]),
        "tokens_mean": _mean([r.tokens for r in records]),
        "latency_p50_s": _quantile([r.seconds for r in records], 0.5),
        "latency_p95_s": _quantile([r.seconds for r in records], 0.95),
        "agent_errors": sum(1 for r in records if r.error),
        "error_classes": dict(Counter(cls for c in queries if (cls := _error_class(c)))),
        "accuracy_by_kind": {
            kind: _pct(sum(r.correct for r in rs), len(rs))
            for kind, rs in _by_kind(records).items()
        },
    }


def _error_class(call: CallRecord) -> str | None:
    """An agent tool's "## Error:" output is classified again from its stored head, so the
    table follows the current classes on old records too; other calls (a bad tool call,
    Text2Cypher's rows or exception) keep the class stored with them."""
    if call.tool == "GraphQuery" and ERROR_TITLE.match(call.output_head):
        return classify(call.output_head)
    return call.error_class


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 2) if values else None


def _by_kind(records: Sequence[QuestionRecord]) -> dict[str, list[QuestionRecord]]:
    out: dict[str, list[QuestionRecord]] = {}
    for r in records:
        out.setdefault(r.kind, []).append(r)
    return dict(sorted(out.items()))
