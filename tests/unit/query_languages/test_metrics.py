"""Error classes, and the per-question record and per-arm figures from a scripted agent's
trace (DummyLM over the gold graph in SQLite: a bad query, a recovery, an answer)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM

from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools import SQLiteQueryBackend
from apexmem_neo.tools.graph_query import run_graph_query
from benchmarks.query_languages.arms import (
    AGENT_CONFIG,
    EXAMPLE_QUERIES,
    AgentArm,
    agent_arm,
    compact_schema,
    sqlite_gold,
)
from benchmarks.query_languages.generate import load_gold
from benchmarks.query_languages.metrics import (
    CallRecord,
    QuestionRecord,
    aggregate,
    classify,
)
from benchmarks.query_languages.questions import Question, Spec

GOLD_FACT = next(f for f in load_gold().facts if f.dtype == "str")
WHEN = GOLD_FACT.t_from[:10]
QUESTION = Question(
    qid="q_test", kind="as_of", text=f"What was {GOLD_FACT.entity_id}'s {GOLD_FACT.property}?",
    answer_type="name", spec=Spec(op="as_of"), gold=str(GOLD_FACT.value),
)  # fmt: skip
GOOD_SQL = (
    f"SELECT value_json FROM facts WHERE entity_id = '{GOLD_FACT.entity_id}' AND property = "
    f"'{GOLD_FACT.property}' AND t_from <= '{WHEN}T23:59:59' ORDER BY t_from DESC LIMIT 1"
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tuple[SQLiteGraphStore, SQLiteQueryBackend]]:
    s = sqlite_gold(tmp_path / "gold.sqlite", load_gold())
    yield s, SQLiteQueryBackend(tmp_path / "gold.sqlite")
    s.close()


def step(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"next_thought": f"use {tool}", "next_tool_name": tool, "next_tool_args": args}


def scripted_arm(
    store: tuple[SQLiteGraphStore, SQLiteQueryBackend], answers: list[Any]
) -> AgentArm:
    lm = DummyLM(answers, adapter=dspy.JSONAdapter())
    config = AGENT_CONFIG.model_copy(update={"tools": ("SchemaViewer", "GraphQuery"),
                                             "max_iters": 5, "max_tool_calls": 5})  # fmt: skip
    return agent_arm("sqlite-sql", lm, store[0], store[1], "sql", config)


def test_classify_tool_outputs() -> None:
    assert classify("**1 row.**\n\n| a |\n|---|\n| x |") is None
    assert classify("**0 rows.**\nColumns: a. No row matched.") == "empty result"
    assert classify("## Error: SQL syntax error\n\nnear FROM") == "parse error"
    assert classify("## Error: SQLite error\n\nno such column: name2") == "unknown name"
    assert classify("## Error: Not in the graph\n\nno node has a property `x`") == "unknown name"
    # the SQL shim's own titles (seen as "runtime error" in the study's first large run)
    assert classify("## Error: Unknown column\n\n't2' has no column 'value_json'") == (
        "unknown name"
    )
    assert classify("## Error: Duplicate table alias\n\nthe alias 'e' is used twice.") == (
        "parse error"
    )
    assert classify("## Error: Write refused\n\nonly reads") == "guard refusal"
    assert classify("## Error: Time limit\n\nstopped") == "timeout"
    assert classify("## Error: Unsupported SQL in the SQL-compat shim\n\nx") == (
        "unsupported construct"
    )
    assert classify("## Error: Cypher error\n\nType mismatch (Neo.ClientError.X)") == (
        "runtime error"
    )


def test_record_from_a_scripted_agent_with_a_recovery(
    store: tuple[SQLiteGraphStore, SQLiteQueryBackend],
) -> None:
    answers = [
        step("GraphQuery", {"query": "SELECT nam FROM entities", "language": "sql"}),
        step("SchemaViewer", {}),
        step("GraphQuery", {"query": GOOD_SQL, "language": "sql"}),
        step("finish", {}),
        {"reasoning": "r", "answer": str(GOLD_FACT.value), "evidence_turn_ids": []},
    ]
    arm = scripted_arm(store, answers)
    record = arm.ask(QUESTION)
    prompt = str(arm.agent.lm.history[0]["messages"])
    assert "Memory schema (SQL tables):" in prompt and "facts(fact_id, entity_id" in prompt
    assert record.correct and record.error is None and record.tool_calls == 3
    assert [c.tool for c in record.calls] == ["GraphQuery", "SchemaViewer", "GraphQuery"]
    assert [c.ok for c in record.calls] == [False, True, True]
    assert record.calls[0].error_class == "unknown name"
    assert str(GOLD_FACT.value) in record.calls[2].output_head
    figures = aggregate([record])
    assert figures["query_success_pct"] == 50.0 and figures["first_try_success_pct"] == 0.0
    assert figures["recovery_pct"] == 100.0
    assert figures["next_tool_after_error"] == {"SchemaViewer": 1}
    assert figures["error_classes"] == {"unknown name": 1} and figures["accuracy_pct"] == 100.0


def test_the_error_table_classifies_stored_outputs_again() -> None:
    """A record written before a class learnt a title is counted under the current class."""
    old = CallRecord(
        tool="GraphQuery", args={"query": "SELECT x FROM t"}, ok=False,
        output_head="## Error: Unknown column\n\n't' has no column 'x'",
        error_class="runtime error",
    )  # fmt: skip
    stuck = CallRecord(tool="GraphQuery", args={}, output_head="", ok=False,
                       error_class="bad tool call")  # fmt: skip
    t2c = CallRecord(tool="Text2Cypher", args={"query": "MATCH (n) RETURN n"}, ok=True,
                     output_head="[]", error_class="empty result")  # fmt: skip
    record = QuestionRecord(
        arm="neo4j-sql", qid="q", kind="join", question="?", gold="x", answer_type="name",
        calls=[old, stuck, t2c],
    )  # fmt: skip
    assert aggregate([record])["error_classes"] == {
        "unknown name": 1, "bad tool call": 1, "empty result": 1,
    }  # fmt: skip


def test_rejected_arguments_count_as_a_bad_call(
    store: tuple[SQLiteGraphStore, SQLiteQueryBackend],
) -> None:
    answers = [
        step("GraphQuery", {"sql": GOOD_SQL}),
        step("finish", {}),
        {"reasoning": "r", "answer": "I do not know", "evidence_turn_ids": []},
    ]
    record = scripted_arm(store, answers).ask(QUESTION)
    assert not record.correct
    assert [(c.tool, c.ok, c.error_class) for c in record.calls] == [
        ("GraphQuery", False, "bad tool call")
    ]


def test_aggregate_over_several_records() -> None:
    def rec(qid: str, correct: bool, oks: list[bool], seconds: float) -> QuestionRecord:
        calls = [CallRecord(tool="GraphQuery", ok=ok, error_class=None if ok else "parse error")
                 for ok in oks]  # fmt: skip
        return QuestionRecord(arm="a", qid=qid, kind="join", question="?", gold="x",
                              answer_type="name", correct=correct, calls=calls,
                              tool_calls=len(oks), tokens=100, seconds=seconds)  # fmt: skip

    figures = aggregate([rec("1", True, [True], 10), rec("2", False, [False, False], 30),
                         rec("3", False, [], 20)])  # fmt: skip
    assert figures["questions"] == 3 and figures["accuracy_pct"] == 33.3
    assert figures["queries"] == 3 and figures["query_success_pct"] == 33.3
    assert figures["first_try_success_pct"] == 50.0 and figures["no_query_pct"] == 33.3
    assert figures["recovery_pct"] == 0.0 and figures["error_classes"] == {"parse error": 2}
    assert figures["latency_p50_s"] == 20 and figures["tool_calls_to_correct_mean"] == 1
    assert figures["accuracy_by_kind"] == {"join": 33.3}


def test_compact_schema_in_both_languages(
    store: tuple[SQLiteGraphStore, SQLiteQueryBackend],
) -> None:
    info = store[1].schema()
    sql = compact_schema(info, "sql")
    assert sql.startswith("Memory schema (SQL tables):") and "value_json" in sql
    assert "sessions(" not in sql and "facts(fact_id, entity_id" in sql
    assert compact_schema(info, "cypher").startswith("Memory schema (Cypher labels):")
    assert EXAMPLE_QUERIES["sql"] in sql and EXAMPLE_QUERIES["cypher"] in compact_schema(
        info, "cypher"
    )


def test_the_sql_example_query_runs_on_the_gold_graph(
    store: tuple[SQLiteGraphStore, SQLiteQueryBackend],
) -> None:
    name = (
        store[0]
        .connection.execute(
            "SELECT e.name FROM entities e JOIN facts f ON f.entity_id = e.entity_id LIMIT 1"
        )
        .fetchone()[0]
    )
    answer = run_graph_query(store[1], EXAMPLE_QUERIES["sql"].replace("Alice", name), "sql")
    assert not answer.startswith("## Error") and "0 rows" not in answer, answer
