"""The one-shot text-to-SQL arm: the SQL counterpart of ``text2cypher``.

question -> SQL (one LLM call over the compact SQL schema, which carries the worked example)
-> the project's SQLite query backend (its read-only guard and the limits the agent arms'
GraphQuery uses) -> rows -> answer (a second LLM call). No retry, no tool loop.

The answer step mirrors neo4j-graphrag's GraphRAG, so that the two one-shot arms differ only
in the query language: the same instruction, the rows as context in the form its
Text2CypherRetriever hands them over (one ``<Record column=value ...>`` line per row), the
same question text with the day it is asked, an answer call even for zero rows, and none
when the query fails. Both steps are ``dspy.Predict`` over a signature, so the program can
be compiled (few-shot demos) like any DSPy module (``text2sql_program`` loads the one
``compile`` wrote); the LM and adapter come from ``dspy.context`` at call time.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, Final

import dspy
from dspy.utils.callback import BaseCallback

from apexmem_neo.agent.react_loop import token_total
from apexmem_neo.llm import SchemaJSONAdapter
from apexmem_neo.llm.programs import load_compiled
from apexmem_neo.query.backend import SchemaInfo
from apexmem_neo.tools import QueryBackend, QueryLimits, QueryResult, ToolError
from apexmem_neo.tools.compact_schema import compact_schema
from apexmem_neo.tools.result import error_block
from benchmarks.query_languages.judge import is_correct
from benchmarks.query_languages.metrics import (
    CallRecord,
    QuestionRecord,
    classify,
    classify_exception,
    rows_head,
)
from benchmarks.query_languages.questions import Question, dated_text

ARM: Final = "text2sql"
TOOL: Final = "Text2SQL"
LIMITS: Final = QueryLimits()
"""GraphQuery's default limits, which the agent arms' tool runs with."""
FENCED: Final = re.compile(r"```(?:[a-zA-Z]+\n)?(.*?)```", re.DOTALL)


class WriteSQL(dspy.Signature):  # type: ignore[misc]
    """Generate a SQL statement for querying a SQLite database from a user input.
    Do not use any tables or columns not included in the schema.
    Do not include triple backticks or any additional text except the generated SQL
    statement."""

    sql_schema: str = dspy.InputField(desc="the database schema")
    question: str = dspy.InputField(desc="the user input")
    sql_query: str = dspy.OutputField(desc="one SQL SELECT statement")


class AnswerFromContext(dspy.Signature):  # type: ignore[misc]
    """Answer the user question using the provided context."""

    context: str = dspy.InputField()
    question: str = dspy.InputField()
    answer: str = dspy.OutputField()


def extract_sql(text: str) -> str:
    """The statement inside the first code fence, if any, else the whole reply, stripped."""
    match = FENCED.search(text or "")
    return (match.group(1) if match else text or "").strip()


def records_text(result: QueryResult) -> str:
    """The rows one per line as neo4j's ``Record`` prints them, which is the context
    neo4j-graphrag's GraphRAG gives its answer call."""
    lines = []
    for row in result.rows:
        fields = " ".join(f"{c}={v!r}" for c, v in zip(result.columns, row, strict=True))
        lines.append(f"<Record {fields}>")
    return "\n".join(lines)


def run_sql(backend: QueryBackend, sql: str, limits: QueryLimits) -> QueryResult:
    """``backend.run`` in SQL; any failure comes back as a ``ToolError``, as GraphQuery's do."""
    try:
        return backend.run(sql, "sql", {}, limits)
    except ToolError:
        raise
    except Exception as exc:
        raise ToolError("Query failed", f"{type(exc).__name__}: {exc}") from exc


class Text2SQL(dspy.Module):  # type: ignore[misc]
    """question -> SQL -> rows -> answer over ``backend``; the prediction carries
    ``sql_query``, ``rows`` (None when the query failed), ``context`` (the rows as the answer
    step read them), ``query_error`` (the ``ToolError`` that stopped the query, or None) and
    ``answer`` (empty when the query failed)."""

    def __init__(
        self, backend: QueryBackend, sql_schema: str, limits: QueryLimits = LIMITS
    ) -> None:
        super().__init__()
        self.backend = backend
        self.sql_schema = sql_schema
        self.limits = limits
        self.write_sql = dspy.Predict(WriteSQL)
        self.answer = dspy.Predict(AnswerFromContext)

    def forward(self, question: str) -> dspy.Prediction:
        reply = self.write_sql(sql_schema=self.sql_schema, question=question).sql_query
        sql = extract_sql(str(reply))
        try:
            result = run_sql(self.backend, sql, self.limits)
        except ToolError as exc:
            return dspy.Prediction(sql_query=sql, rows=None, context="", query_error=exc,
                                   answer="")  # fmt: skip
        context = records_text(result)
        answer = self.answer(context=context, question=question).answer
        return dspy.Prediction(sql_query=sql, rows=len(result.rows), context=context,
                               query_error=None, answer=str(answer))  # fmt: skip


def text2sql_program(
    backend: QueryBackend, schema: SchemaInfo, compiled: Path | None = None
) -> Text2SQL:
    """The arm's program over ``backend`` with the compact SQL schema: zero-shot, or with the
    demos compiled at ``compiled`` (a file for other instructions is refused)."""
    program = Text2SQL(backend, compact_schema(schema, "sql"))
    if compiled is not None:
        load_compiled(program, compiled)
    return program


class LMCallCounter(BaseCallback):  # type: ignore[misc]
    """Counts LM calls (retries and adapter fallbacks included)."""

    def __init__(self) -> None:
        self.calls = 0

    def on_lm_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        self.calls += 1


def sql_call(prediction: dspy.Prediction) -> CallRecord:
    """The record of the one query, classified like the agent arms' GraphQuery output."""
    args = {"query": prediction.sql_query}
    if prediction.query_error is not None:
        failed = error_block(prediction.query_error)
        return CallRecord(tool=TOOL, args=args, output_head=failed[:300], ok=False,
                          error_class=classify(failed))  # fmt: skip
    rows = int(prediction.rows)
    return CallRecord(tool=TOOL, args=args, output_head=rows_head(rows, prediction.context),
                      ok=True, error_class=None if rows else "empty result")  # fmt: skip


def error_line(failed: ToolError) -> str:
    """A query's ``ToolError`` as one line, as the text2cypher arm records its errors."""
    return f"ToolError: {failed.title}: {' '.join(failed.detail.split())}"


class Text2SQLArm:
    """The text2sql arm over ``backend`` (the gold graph in SQLite); ``ask`` never raises."""

    name = ARM

    def __init__(
        self,
        lm: Any,
        backend: QueryBackend,
        schema: SchemaInfo,
        adapter: Any | None = None,
        program: Text2SQL | None = None,
    ) -> None:
        self.lm = lm
        self.adapter = adapter if adapter is not None else SchemaJSONAdapter()
        self.program = program or text2sql_program(backend, schema)

    def ask(self, question: Question) -> QuestionRecord:
        counter, t0 = LMCallCounter(), time.perf_counter()
        answer, error = "", None
        with (
            dspy.context(lm=self.lm, adapter=self.adapter, callbacks=[counter]),
            dspy.track_usage() as tracker,
        ):
            try:
                prediction = self.program(question=dated_text(question))
                answer, call = str(prediction.answer), sql_call(prediction)
                if prediction.query_error is not None:
                    error = error_line(prediction.query_error)
            except Exception as exc:  # every failure of the pipeline is a result of this arm
                error = f"{type(exc).__name__}: {exc}"[:800]
                call = CallRecord(tool=TOOL, output_head=error[:300], ok=False,
                                  error_class=classify_exception(exc))  # fmt: skip
            tokens = token_total(tracker).get("total_tokens", 0)
        return QuestionRecord(
            arm=ARM, qid=question.qid, kind=question.kind, question=question.text,
            gold=question.gold, answer_type=question.answer_type, answer=answer,
            correct=is_correct(answer, question.gold, question.answer_type),
            error=error[:800] if error else None, calls=[call], tool_calls=1,
            llm_calls=counter.calls, tokens=tokens, seconds=round(time.perf_counter() - t0, 3),
        )  # fmt: skip
