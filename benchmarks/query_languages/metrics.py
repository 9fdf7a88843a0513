"""Per-question records from an agent's trace, error classes, and per-arm aggregates.

A query "succeeded" when it ran without error (an empty result still ran, but is counted as
the error class ``empty result`` in the error table because it usually means a wrong filter).

Two tables of errors: ``error_classes`` counts queries by what went wrong with each;
``failure_classes`` (the error taxonomy) gives every wrongly answered question one class,
by these rules, in this order:

* no query: no query reached the database (none written, the tool call malformed, or the
  LLM call that should write it failed);
* no query ran: the class of the last failed query, as syntax (a parse error or a construct
  the tool does not support), unknown label/table/property, refused by the guard, timeout,
  or query error, other (a runtime or parameter error);
* a query ran and the last one's first rows hold the gold answer: rows held the answer (the
  query was right; the answer step misread it);
* otherwise the shape of the queries that ran is judged (read as text with the values of
  their parameters):
  wrong join or direction: a Cypher pattern walks a relationship against the schema's
  direction, a SQL join equates different id columns (``f.fact_id = e.entity_id``), or a
  join question never reached the company's ``headquarters_city``;
  wrong temporal logic: the question names a date that no query contains, or asks about a
  value in time (now, on a date, since when, how long) and no query touches a time column;
* no row matched: the last query that ran returned no row (a filter on a wrong value or
  format, a condition that cannot hold);
* otherwise wrong answer, other.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final, Literal

from pydantic import BaseModel

from apexmem_neo.agent.models import AgentResult
from apexmem_neo.query.graph_mapping import GRAPH_RELATIONSHIPS
from apexmem_neo.tools.result import ERROR_HEADING

QUERY_TOOLS: Final = ("GraphQuery", "Text2Cypher", "Text2SQL")
Program = Literal["compiled", "zero-shot"]
PROGRAMS: Final[tuple[Program, ...]] = ("compiled", "zero-shot")
ERROR_TITLE: Final = re.compile(rf"^{re.escape(ERROR_HEADING)} (.+)$", re.MULTILINE)
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
    model: str = ""
    """The LiteLLM model id that answered; empty in records written before it was kept."""
    program: Program = "zero-shot"
    """``compiled``: the arm carried its few-shot demos from the train split; ``zero-shot``:
    none (as every record written before demos existed)."""
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
    started_at: float = 0.0
    """Unix time the question was asked at (0: not recorded), so a report can tell whether
    two arms ran at the same time."""
    load_at_start: float | None = None
    """The machine's one-minute load average when the question was asked."""
    failure: str | None = None
    """The taxonomy class, stored with a kept answer whose question, gold and rows were left
    out (``kept``); None: computed from the record."""


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


def classify_exception(exc: Exception) -> str:
    """The error class of a failed one-shot pipeline run (text2cypher, text2sql), in the
    agent arms' terms."""
    text = f"{type(exc).__name__} {exc}".lower()
    if "refusing to execute" in text:
        return "guard refusal"
    if "syntax" in text or "invalid input" in text:
        return "parse error"
    if "timeout" in text or "timed out" in text:
        return "timeout"
    if "unknown function" in text or "not defined" in text:
        return "unknown name"
    if any(w in text for w in ("llmgeneration", "adapterparseerror", "connection")):
        return "llm error"
    return "runtime error"


OUTPUT_HEAD_CHARS: Final = 300


def rows_head(count: int, rows: str) -> str:
    """A one-shot arm's call output as recorded: its row count, then the rows' first
    characters (the taxonomy looks for the gold answer in them)."""
    return f"{count} rows\n{rows}"[:OUTPUT_HEAD_CHARS]


def call_record(tool: str, args: dict[str, Any], output: str) -> CallRecord:
    cls = classify(output) if tool in QUERY_TOOLS else None
    ok = cls is None or cls == "empty result"
    head = result_part(output)[:OUTPUT_HEAD_CHARS]
    return CallRecord(tool=tool, args=args, output_head=head, ok=ok, error_class=cls)


def result_part(output: str) -> str:
    """GraphQuery's output from its row count on: the shim's translation, which comes first
    and can fill the recorded head, is left out (the rows matter to the taxonomy)."""
    if output.startswith("Ran as"):
        start = output.find("\n**")
        if start >= 0:
            return output[start + 1 :]
    return output


def pair_calls(result: AgentResult, outputs: Sequence[tuple[str, str]]) -> list[CallRecord]:
    """The trace's tool steps paired, in order, with the (tool, output) the tools recorded.

    A step whose call never reached the tool (arguments the tool's schema rejected, an
    unknown tool name) has no recorded output and counts as ``bad tool call``.
    """
    steps = [s for s in result.trace
             if s.phase in ("react", "query") and s.tool and s.tool != "finish"]  # fmt: skip
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


def query_calls(rec: QuestionRecord) -> list[CallRecord]:
    """The question's calls of a query tool, in order."""
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
    queries = [c for r in records for c in query_calls(r)]
    with_query = [r for r in records if query_calls(r)]
    recoveries = [x for x in (_recovery(r) for r in records) if x is not None]
    correct = [r for r in records if r.correct]
    return {
        "questions": len(records),
        "accuracy_pct": _pct(len(correct), len(records)),
        "queries": len(queries),
        "query_success_pct": _pct(sum(c.ok for c in queries), len(queries)),
        "first_try_success_pct": _pct(
            sum(query_calls(r)[0].ok for r in with_query), len(with_query)
        ),
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
        "error_classes": dict(Counter(cls for c in queries if (cls := error_class(c)))),
        "failure_classes": failure_counts(records),
        "accuracy_by_kind": {
            kind: _pct(sum(r.correct for r in rs), len(rs)) for kind, rs in by_kind(records).items()
        },
    }


def error_class(call: CallRecord) -> str | None:
    """A query tool's error block is classified again from its stored head, so the
    table follows the current classes on old records too; other calls (a bad tool call,
    Text2Cypher's rows or exception) keep the class stored with them."""
    if call.tool in ("GraphQuery", "Text2SQL") and ERROR_TITLE.match(call.output_head):
        return classify(call.output_head)
    return call.error_class


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 2) if values else None


def by_kind(records: Sequence[QuestionRecord]) -> dict[str, list[QuestionRecord]]:
    """The records grouped by question kind, kinds in alphabetical order."""
    out: dict[str, list[QuestionRecord]] = {}
    for r in records:
        out.setdefault(r.kind, []).append(r)
    return dict(sorted(out.items()))


# ---- the error taxonomy (see the module docstring) ----

FAILURE_CLASSES: Final = (
    "no query", "syntax", "unknown label/table/property", "refused by the guard", "timeout",
    "query error, other", "rows held the answer", "wrong join or direction",
    "wrong temporal logic", "no row matched", "wrong answer, other",
)  # fmt: skip
FAILED_QUERY: Final = {
    "parse error": "syntax",
    "unsupported construct": "syntax",
    "unknown name": "unknown label/table/property",
    "guard refusal": "refused by the guard",
    "timeout": "timeout",
}
"""A failed query's error class -> its taxonomy class; any other is "query error, other"."""
NOT_RUN: Final = ("bad tool call", "llm error")
"""Error classes of a call whose query never reached the database."""
TIMED_KINDS: Final = ("entity_lookup", "as_of", "when_changed", "temporal_arithmetic")
"""Kinds that ask for a value in time, which no query can find without a time column."""
TIME_COLUMN: Final = re.compile(r"\b(t_from|t_to|anchor_datetime)\b", re.IGNORECASE)
ISO_DAY: Final = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
SQL_ID_JOIN: Final = re.compile(r"\b\w+\.(\w+_id)\s*=\s*\w+\.(\w+_id)\b", re.IGNORECASE)
NODE: Final = r"\(\s*(\w*)\s*(?::\s*(\w+))?[^()]*\)"
HOP: Final = re.compile(
    NODE + r"\s*(<?)-\s*\[\s*\w*\s*:\s*(\w+)[^\]]*\]\s*-(>?)\s*(?=" + NODE + ")"
)
LABELLED: Final = re.compile(r"\(\s*(\w+)\s*:\s*(\w+)")
DIRECTIONS: Final = frozenset((a, rel, b) for a, rel, b, _ in GRAPH_RELATIONSHIPS)


def _reversed_hop(query: str) -> bool:
    """True when a Cypher pattern walks a known relationship from its end label to its start
    label; hops whose labels are unknown (unlabelled variables) are not judged."""
    labels = {var: label for var, label in LABELLED.findall(query)}
    for match in HOP.finditer(query):
        var1, label1, left, rel, right, var2, label2 = match.groups()
        a = label1 or labels.get(var1, "")
        b = label2 or labels.get(var2, "")
        if left and not right:
            a, b = b, a
        elif left == right:  # undirected (or both arrows): no direction to judge
            continue
        if (a, rel, b) not in DIRECTIONS and (b, rel, a) in DIRECTIONS:
            return True
    return False


def rows_hold_gold(rec: QuestionRecord, queries: list[CallRecord]) -> bool:
    """True when the last query that ran returned the gold answer in its first rows (a
    date may carry its time of day): the query was right and the answer step misread it."""
    last = next((c for c in reversed(queries) if c.ok and c.error_class is None), None)
    if last is None or not rec.gold.strip():
        return False
    rows = last.output_head.partition("\n")[2].lower()  # past the row count
    after = r"(?![\w-])" if rec.answer_type != "date" else r"(?![\d-])"
    return re.search(rf"(?<![\w-]){re.escape(rec.gold.strip().lower())}{after}", rows) is not None


def _wrong_join(rec: QuestionRecord, texts: list[str]) -> bool:
    if any(_reversed_hop(t) for t in texts):
        return True
    if any(a.lower() != b.lower() for t in texts for a, b in SQL_ID_JOIN.findall(t)):
        return True
    return rec.kind == "join" and not any("headquarters_city" in t for t in texts)


def _wrong_time(rec: QuestionRecord, texts: list[str]) -> bool:
    days = ISO_DAY.findall(rec.question)
    if days and not any(d in t for d in days for t in texts):
        return True
    return rec.kind in TIMED_KINDS and not any(TIME_COLUMN.search(t) for t in texts)


def _query_text(call: CallRecord) -> str:
    """The query with the values of its parameters (a date may be passed as one)."""
    params = call.args.get("params") or {}
    values = params.values() if isinstance(params, dict) else [params]
    return " ".join([str(call.args.get("query", "")), *(str(v) for v in values)])


def failure_class(rec: QuestionRecord) -> str | None:
    """The taxonomy class of a wrongly answered question (None when it is correct)."""
    if rec.correct:
        return None
    if rec.failure is not None:
        return rec.failure
    queries = [c for c in query_calls(rec) if error_class(c) not in NOT_RUN]
    if not queries:
        return "no query"
    ran = [_query_text(c) for c in queries if c.ok]
    if not ran:
        return FAILED_QUERY.get(error_class(queries[-1]) or "", "query error, other")
    if rows_hold_gold(rec, queries):
        return "rows held the answer"
    if _wrong_join(rec, ran):
        return "wrong join or direction"
    if _wrong_time(rec, ran):
        return "wrong temporal logic"
    if error_class([c for c in queries if c.ok][-1]) == "empty result":
        return "no row matched"
    return "wrong answer, other"


def failure_counts(records: Sequence[QuestionRecord]) -> dict[str, int]:
    """Wrongly answered questions per taxonomy class, in ``FAILURE_CLASSES`` order."""
    counts = Counter(c for r in records if (c := failure_class(r)))
    return {c: counts[c] for c in FAILURE_CLASSES if counts[c]}
