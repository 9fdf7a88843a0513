"""The agent's query mode: write a GraphQuery query, run it, rewrite it on failure, answer.

Where the ReAct loop lets the model pick a tool at every step, this loop fixes the steps a
text-to-query agent takes, so that a small model spends its tokens on the query itself:

1. ``write``: the question, its date and time hints, the context (the schema first) and
   the earlier attempts -> one query in the configured language;
2. GraphQuery runs it (read-only, bounded, scoped as in every mode);
3. on an error or zero rows, while the tool budget lasts, ``write`` again with the failed
   attempts shown (a query it already sent ends the loop: the tools are read-only);
4. ``answer``: the question and the last query's rows -> the answer and cited turns; when
   the last query still failed or found no row, the answer is ``NOT_IN_MEMORY`` without a
   model call (asked from nothing, the small model made an answer up).

Both steps are ``dspy.Predict`` over a signature, so ``AgentConfig.query_program`` can give
them compiled few-shot demos (DSPy's ``save``/``load``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import dspy

from apexmem_neo.agent.models import AgentConfig, TraceStep
from apexmem_neo.agent.react_loop import LoopOutcome, timed
from apexmem_neo.agent.signatures import (
    EVIDENCE_DESC,
    MAX_ANSWER_CHARS,
    MAX_EVIDENCE_TURNS,
    QUESTION_DATE_DESC,
)
from apexmem_neo.errors import ApexMemError
from apexmem_neo.llm.failures import raise_if_fatal
from apexmem_neo.llm.programs import load_compiled
from apexmem_neo.tools.result import Tool, ToolResult

QUERY_TOOL: Final = "GraphQuery"
NO_ATTEMPTS: Final = "none"
MAX_ATTEMPT_CHARS: Final = 400
"""How much of a failed attempt's output the next ``write`` sees: the error's title and fix."""


class WriteQuery(dspy.Signature):  # type: ignore[misc]
    """Write one read-only query that answers the question over the memory schema in the
    context. Return the columns that hold the answer: a fact's value is its value_json, the
    time it began is its t_from. Facts are never overwritten: a property's value at a time is
    its fact with the latest t_from up to that time. Use the explicit dates given for the
    question's time words. If earlier attempts failed or returned no rows, write a different
    query that fixes what went wrong."""

    context: str = dspy.InputField(desc="the memory schema, then what a first lookup found")
    language: str = dspy.InputField(desc="the query language: sql or cypher")
    question_date: str = dspy.InputField(desc=QUESTION_DATE_DESC)
    time_hints: str = dspy.InputField(desc="time words of the question as explicit dates")
    attempts: str = dspy.InputField(desc="earlier queries for this question and what they gave")
    question: str = dspy.InputField()
    query: str = dspy.OutputField(desc="one query in the given language, nothing else")


ROWS_ANSWER_DESC = (
    "the value, name or number asked for; for a when-question only the date (YYYY-MM-DD) "
    "of the row it asks about, never its value"
)


class AnswerFromRows(dspy.Signature):  # type: ignore[misc]
    """Answer the question from the rows the query returned. Rows of a property's facts,
    oldest first: its value at a time is the row with the latest t_from up to that time, its
    value now is the last row's, and it changed on the t_from of each later row. Give the
    short answer the question asks for: a name, a value or a number, or a date (YYYY-MM-DD)
    only when it asks when. Cite the turn ids in the rows that the answer rests on, if any."""

    # the question comes last, as in the fast path: read right before answering, it kept the
    # local model from answering a when-question with the value of the row it dated
    query: str = dspy.InputField(desc="the query that was run")
    rows: str = dspy.InputField(desc="what the query returned")
    question_date: str = dspy.InputField(desc=QUESTION_DATE_DESC)
    question: str = dspy.InputField()
    answer: str = dspy.OutputField(desc=ROWS_ANSWER_DESC, max_length=MAX_ANSWER_CHARS)
    evidence_turn_ids: list[str] = dspy.OutputField(
        desc=EVIDENCE_DESC, max_length=MAX_EVIDENCE_TURNS
    )


class QueryProgram(dspy.Module):  # type: ignore[misc]
    """The loop's two predictors (``write``, ``answer``); the loop drives them."""

    def __init__(self) -> None:
        super().__init__()
        self.write = dspy.Predict(WriteQuery)
        self.answer = dspy.Predict(AnswerFromRows)

    def forward(self, **inputs: Any) -> dspy.Prediction:  # one attempt, for compiling
        return self.write(**inputs)


NOT_IN_MEMORY = "not found in memory"
"""The query mode's answer when its last query failed or found no row: no model call."""


def failed(result: ToolResult) -> bool:
    """True when GraphQuery's result is an error or holds no row: worth another query."""
    return not result.ok or result.rows == 0


def attempt_text(number: int, query: str, output: str) -> str:
    return f"{number}. {query}\n-> {output[:MAX_ATTEMPT_CHARS]}"


@dataclass
class QueryLoop:
    """One question through write -> GraphQuery -> (rewrite) -> answer; see the module doc."""

    tools: Mapping[str, Tool]
    config: AgentConfig
    language: str

    def __post_init__(self) -> None:
        if QUERY_TOOL not in self.tools:
            raise ApexMemError("the query mode needs the GraphQuery tool (a query backend)")
        self.program = QueryProgram()
        if self.config.query_program is not None:
            load_compiled(self.program, self.config.query_program)

    def run(self, inputs: Mapping[str, Any], tracker: Any, first_step: int = 0) -> LoopOutcome:
        out = LoopOutcome(first_step=first_step)
        attempts: list[str] = []
        query, result = "", ToolResult()
        while out.tool_calls < self.config.max_tool_calls:
            step = out.new_step("query")
            written = self._timed(step, tracker, lambda: self._write(inputs, attempts))
            if written is None or written in out.calls_seen:
                break  # an unparseable reply, or a query already sent: no new information
            query, result = written, self._run(step, written, out)
            if not failed(result):
                break
            attempts.append(attempt_text(len(attempts) + 1, query, self._observed(result)))
        if not query:
            out.error = "no query was written"
        elif failed(result):  # asked from an error or no rows, the small model made one up
            out.answer = NOT_IN_MEMORY
        else:
            self._answer(inputs, query, self._observed(result), tracker, out)
        return out

    def _timed(self, step: TraceStep, tracker: Any, call: Callable[[], Any]) -> Any:
        """``call()`` with its seconds and tokens on ``step``; a failure is the step's error."""
        with timed(step, tracker):
            try:
                return call()
            except Exception as exc:  # a reply the adapter cannot parse: recorded, not raised
                raise_if_fatal(exc)  # a dead or unauthorised model stops the question
                step.error = f"{type(exc).__name__}: {exc}"[:800]
                return None

    def _write(self, inputs: Mapping[str, Any], attempts: list[str]) -> str:
        shown = "\n".join(attempts) or NO_ATTEMPTS
        pred = self.program.write(**inputs, language=self.language, attempts=shown)
        return strip_fence(str(pred.query))

    def _run(self, step: TraceStep, query: str, out: LoopOutcome) -> ToolResult:
        step.tool, step.args = QUERY_TOOL, {"query": query}
        out.tool_calls += 1
        out.calls_seen[query] = len(out.steps) - 1
        t0 = time.perf_counter()
        result = self.tools[QUERY_TOOL](query=query)
        step.seconds = round(step.seconds + time.perf_counter() - t0, 3)
        step.output_chars = len(result.render())
        return result

    def _observed(self, result: ToolResult) -> str:
        """The text of ``result`` the model reads, cut to the observation limit."""
        return result.render()[: self.config.max_observation_chars]

    def _answer(
        self,
        inputs: Mapping[str, Any],
        query: str,
        rows: str,
        tracker: Any,
        out: LoopOutcome,
    ) -> None:
        step = out.new_step("extract")
        pred = self._timed(step, tracker, lambda: self.program.answer(
            question_date=inputs["question_date"], question=inputs["question"],
            query=query, rows=rows,
        ))  # fmt: skip
        if pred is None:
            out.error = f"final answer failed: {step.error}"
            return
        out.answer = str(pred.answer)
        out.turn_ids = [str(t) for t in (pred.evidence_turn_ids or [])]
        step.output_chars = len(out.answer)


def strip_fence(text: str) -> str:
    """The query inside a code fence if the model wrapped it in one, stripped."""
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else body.strip("`")
        body = body.rsplit("```", 1)[0]
    return body.strip()
