"""The one-shot text2sql arm over the gold graph in SQLite, with a scripted DummyLM: a query
that answers, a query that fails (no answer call), a fenced reply, a write the guard refuses,
and an LM that gives nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dspy
import pytest
from dspy.teleprompt import LabeledFewShot
from dspy.utils import DummyLM

from apexmem_neo.tools import QueryResult, SQLiteQueryBackend
from apexmem_neo.tools.compact_schema import EXAMPLE_QUERIES
from benchmarks.query_languages.arms import sqlite_gold
from benchmarks.query_languages.generate import load_gold
from benchmarks.query_languages.metrics import aggregate, failure_class
from benchmarks.query_languages.questions import Question, Spec
from benchmarks.query_languages.text2sql import (
    TOOL,
    Text2SQL,
    Text2SQLArm,
    extract_sql,
    records_text,
)

FACT = next(f for f in load_gold().facts if f.property == "city")
NAME = next(e.name for e in load_gold().entities if e.entity_id == FACT.entity_id)
QUESTION = Question(
    qid="q_t2s", kind="as_of", text=f"What was {NAME}'s city on {FACT.t_from[:10]}?",
    answer_type="name", spec=Spec(op="as_of"), gold=str(FACT.value),
)  # fmt: skip
GOOD_SQL = (
    "SELECT f.value_json, f.t_from FROM facts f JOIN entities e ON e.entity_id = f.entity_id "
    f"WHERE e.name = '{NAME}' AND f.property = 'city' AND f.t_from <= '{FACT.t_from[:10]}"
    "T23:59:59' ORDER BY f.t_from DESC LIMIT 1"
)


@pytest.fixture(scope="module")
def backend(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SQLiteQueryBackend]:
    path: Path = tmp_path_factory.mktemp("t2s") / "gold.sqlite"
    store = sqlite_gold(path, load_gold())
    yield SQLiteQueryBackend(path)
    store.close()


def arm_with(backend: SQLiteQueryBackend, answers: list[dict[str, Any]]) -> Text2SQLArm:
    lm = DummyLM(answers, adapter=dspy.JSONAdapter())
    return Text2SQLArm(lm, backend, backend.schema())


def test_a_query_that_runs_then_an_answer_from_its_rows(backend: SQLiteQueryBackend) -> None:
    arm = arm_with(backend, [{"sql_query": GOOD_SQL}, {"answer": f"It was {FACT.value}."}])
    record = arm.ask(QUESTION)
    assert record.arm == "text2sql" and record.correct and record.error is None
    assert record.llm_calls == 2 and record.tool_calls == 1
    [call] = record.calls
    assert (call.tool, call.ok, call.error_class) == (TOOL, True, None)
    assert call.args == {"query": GOOD_SQL}
    assert (
        call.output_head == f"1 rows\n<Record value_json='\"{FACT.value}\"' t_from='{FACT.t_from}'>"
    )
    write, answer = ("\n".join(m["content"] for m in h["messages"]) for h in arm.lm.history)
    assert "facts(fact_id, entity_id" in write and EXAMPLE_QUERIES["sql"] in write
    assert "(Today is 2025-01-01.)" in write
    assert "Answer the user question using the provided context." in answer
    assert f"<Record value_json='\"{FACT.value}\"'" in answer
    figures = aggregate([record])
    assert figures["query_success_pct"] == 100.0 and figures["failure_classes"] == {}


def test_a_failed_query_gets_no_answer_call(backend: SQLiteQueryBackend) -> None:
    arm = arm_with(backend, [{"sql_query": "SELECT nam FROM entities"}])
    record = arm.ask(QUESTION)
    assert record.answer == "" and not record.correct and record.llm_calls == 1
    assert record.error == "ToolError: SQLite error: no such column: nam"
    [call] = record.calls
    assert not call.ok and call.error_class == "unknown name"
    assert call.args == {"query": "SELECT nam FROM entities"}
    assert failure_class(record) == "unknown label/table/property"
    assert aggregate([record])["error_classes"] == {"unknown name": 1}


def test_a_write_is_refused_by_the_guard(backend: SQLiteQueryBackend) -> None:
    record = arm_with(backend, [{"sql_query": "DELETE FROM facts"}]).ask(QUESTION)
    [call] = record.calls
    assert not call.ok and call.error_class == "guard refusal"
    assert failure_class(record) == "refused by the guard"


def test_a_fenced_reply_is_unwrapped_and_zero_rows_still_get_an_answer(
    backend: SQLiteQueryBackend,
) -> None:
    empty = "SELECT name FROM entities WHERE name = 'Nobody'"
    arm = arm_with(backend, [{"sql_query": f"```sql\n{empty}\n```"}, {"answer": "unknown"}])
    record = arm.ask(QUESTION)
    assert record.calls[0].args == {"query": empty} and record.llm_calls == 2
    assert record.calls[0].ok and record.calls[0].error_class == "empty result"
    assert extract_sql("  SELECT 1  ") == "SELECT 1"


def test_an_lm_failure_is_recorded_not_raised(backend: SQLiteQueryBackend) -> None:
    record = arm_with(backend, []).ask(QUESTION)  # DummyLM has nothing to say
    assert record.error and not record.correct
    assert record.calls[0].tool == TOOL and not record.calls[0].ok
    assert record.calls[0].error_class == "llm error" and failure_class(record) == "no query"


def test_the_program_is_a_compilable_dspy_module(backend: SQLiteQueryBackend) -> None:
    program = Text2SQL(backend, "schema")
    assert [name for name, _ in program.named_predictors()] == ["write_sql", "answer"]
    lm = DummyLM([{"sql_query": GOOD_SQL}, {"answer": str(FACT.value)}])
    with dspy.context(lm=lm):
        prediction = program(question="q")
    assert prediction.rows == 1 and prediction.query_error is None
    assert prediction.answer == str(FACT.value)


def test_records_text_matches_neo4j_records() -> None:
    result = QueryResult(("name", "n", "d"), (("Oslo", 3, None),))
    assert records_text(result) == "<Record name='Oslo' n=3 d=None>"


def test_labelled_demos_compile_into_both_steps(
    backend: SQLiteQueryBackend, tmp_path: Path
) -> None:
    demo = dspy.Example(question="q", sql_schema="s", sql_query=GOOD_SQL,
                        context="<Record a=1>", answer="1").with_inputs("question")  # fmt: skip
    compiled = LabeledFewShot(k=1).compile(Text2SQL(backend, "schema"), trainset=[demo])
    assert [len(p.demos) for _, p in compiled.named_predictors()] == [1, 1]
    compiled.save(str(tmp_path / "text2sql.json"))
    loaded = Text2SQL(backend, "schema")
    loaded.load(str(tmp_path / "text2sql.json"))
    assert loaded.write_sql.demos[0]["sql_query"] == GOOD_SQL
