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
from apexmem_neo.tools.compact_schema import EXAMPLE_QUERIES, compact_schema
from apexmem_neo.tools.graph_query import run_graph_query
from apexmem_neo.tools.result import ERROR_HEADING as ERR
from benchmarks.query_languages.arms import AGENT_CONFIG, AgentArm, agent_arm, sqlite_gold
from benchmarks.query_languages.generate import load_gold
from benchmarks.query_languages.metrics import (
    FAILURE_CLASSES,
    CallRecord,
    QuestionRecord,
    aggregate,
    call_record,
    classify,
    failure_class,
    failure_counts,
    rows_head,
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


def scripted_arm(
    store: tuple[SQLiteGraphStore, SQLiteQueryBackend], answers: list[Any]
) -> AgentArm:
    lm = DummyLM(answers, adapter=dspy.JSONAdapter())
    return agent_arm("sqlite-sql", lm, store[0], store[1], "sql", AGENT_CONFIG)


def test_classify_tool_outputs() -> None:
    assert classify("**1 row.**\n\n| a |\n|---|\n| x |") is None
    assert classify("**0 rows.**\nColumns: a. No row matched.") == "empty result"
    assert classify(f"{ERR} SQL syntax error\n\nnear FROM") == "parse error"
    assert classify(f"{ERR} SQLite error\n\nno such column: name2") == "unknown name"
    assert classify(f"{ERR} Not in the graph\n\nno node has a property `x`") == "unknown name"
    # the SQL shim's own titles (seen as "runtime error" in the study's first large run)
    assert classify(f"{ERR} Unknown column\n\n't2' has no column 'value_json'") == ("unknown name")
    assert classify(f"{ERR} Duplicate table alias\n\nthe alias 'e' is used twice.") == (
        "parse error"
    )
    assert classify(f"{ERR} Write refused\n\nonly reads") == "guard refusal"
    assert classify(f"{ERR} Time limit\n\nstopped") == "timeout"
    assert classify(f"{ERR} Unsupported SQL in the SQL-compat shim\n\nx") == (
        "unsupported construct"
    )
    assert classify(f"{ERR} Cypher error\n\nType mismatch (Neo.ClientError.X)") == ("runtime error")


def test_record_from_a_scripted_agent_with_a_recovery(
    store: tuple[SQLiteGraphStore, SQLiteQueryBackend],
) -> None:
    answers = [
        {"query": "SELECT nam FROM entities"},
        {"query": GOOD_SQL},
        {"answer": str(GOLD_FACT.value), "evidence_turn_ids": []},
    ]
    arm = scripted_arm(store, answers)
    record = arm.ask(QUESTION)
    prompt = str(arm.agent.lm.history[0]["messages"])
    assert "Memory schema (SQL tables):" in prompt and "facts(fact_id, entity_id" in prompt
    assert record.correct and record.error is None and record.tool_calls == 2
    assert [c.tool for c in record.calls] == ["GraphQuery", "GraphQuery"]
    assert [c.ok for c in record.calls] == [False, True]
    assert record.calls[0].error_class == "unknown name"
    assert str(GOLD_FACT.value) in record.calls[1].output_head
    figures = aggregate([record])
    assert figures["query_success_pct"] == 50.0 and figures["first_try_success_pct"] == 0.0
    assert figures["recovery_pct"] == 100.0
    assert figures["next_tool_after_error"] == {"GraphQuery": 1}
    assert figures["error_classes"] == {"unknown name": 1} and figures["accuracy_pct"] == 100.0


def test_the_error_table_classifies_stored_outputs_again() -> None:
    """A record written before a class learnt a title is counted under the current class."""
    old = CallRecord(
        tool="GraphQuery", args={"query": "SELECT x FROM t"}, ok=False,
        output_head=f"{ERR} Unknown column\n\n't' has no column 'x'",
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


def test_a_reply_without_a_query_counts_as_no_query(
    store: tuple[SQLiteGraphStore, SQLiteQueryBackend],
) -> None:
    record = scripted_arm(store, [{"sql": GOOD_SQL}]).ask(QUESTION)
    assert not record.correct and record.calls == [] and record.error == "no query was written"
    assert record.step_errors and aggregate([record])["no_query_pct"] == 100.0


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
    assert answer.ok and answer.rows, answer


def wrong(kind: str, *calls: CallRecord, question: str = "What is X's city now?") -> QuestionRecord:
    return QuestionRecord(arm="a", qid="q", kind=kind, question=question, gold="x",
                          answer_type="name", calls=list(calls))  # fmt: skip


def ran(query: str, tool: str = "GraphQuery") -> CallRecord:
    return CallRecord(tool=tool, args={"query": query}, output_head="**1 row.**", ok=True)


def failed(output: str) -> CallRecord:
    return CallRecord(tool="GraphQuery", args={"query": "x"}, output_head=output, ok=False,
                      error_class=classify(output))  # fmt: skip


TIMED_SQL = "SELECT value_json FROM facts WHERE property = 'city' ORDER BY t_from DESC LIMIT 1"


def test_taxonomy_when_no_query_ran() -> None:
    bad_call = CallRecord(tool="GraphQuery", ok=False, error_class="bad tool call")
    llm = CallRecord(tool="Text2Cypher", ok=False, error_class="llm error")
    assert failure_class(wrong("as_of")) == "no query"
    assert failure_class(wrong("as_of", bad_call, llm)) == "no query"
    assert failure_class(wrong("as_of", failed(f"{ERR} SQL syntax error\n\nx"))) == "syntax"
    assert failure_class(wrong("as_of", failed(f"{ERR} Unsupported SQL\n\nx"))) == "syntax"
    assert failure_class(wrong("as_of", failed(f"{ERR} SQLite error\n\nno such table: t"))) == (
        "unknown label/table/property"
    )
    assert failure_class(wrong("as_of", failed(f"{ERR} Write refused\n\nx"))) == (
        "refused by the guard"
    )
    last = failed(f"{ERR} Time limit\n\nstopped")
    assert failure_class(wrong("as_of", failed(f"{ERR} SQLite error\n\nno such column: a"),
                               last)) == "timeout"  # fmt: skip
    assert failure_class(wrong("as_of", failed(f"{ERR} Cypher error\n\nType mismatch"))) == (
        "query error, other"
    )
    t2c = CallRecord(tool="Text2Cypher", ok=False, error_class="parse error")
    assert failure_class(wrong("as_of", t2c)) == "syntax"


def test_taxonomy_of_a_query_that_ran_by_its_shape() -> None:
    reverse = "MATCH (e:Entity {name: 'X'})-[:ABOUT]->(f:Fact) RETURN f.value_json, f.t_from"
    bound = "MATCH (f:Fact), (e:Entity) MATCH (e)-[:ABOUT]->(f) RETURN f.t_from"
    forward = "MATCH (e:Entity {name: 'X'})<-[:ABOUT]-(f:Fact) RETURN f.value_json, f.t_from"
    mixed_ids = "SELECT f.t_from FROM facts f JOIN entities e ON f.fact_id = e.entity_id"
    assert failure_class(wrong("entity_lookup", ran(reverse))) == "wrong join or direction"
    assert failure_class(wrong("entity_lookup", ran(bound))) == "wrong join or direction"
    assert failure_class(wrong("entity_lookup", ran(forward))) == "wrong answer, other"
    assert failure_class(wrong("entity_lookup", ran(mixed_ids))) == "wrong join or direction"
    join_q = "In which city is the headquarters of the company X worked for on 2021-03-04?"
    one_hop = "SELECT value_json FROM facts WHERE property = 'employer'"
    assert failure_class(wrong("join", ran(one_hop), question=join_q)) == (
        "wrong join or direction"
    )
    two_hops = "SELECT value_json FROM facts WHERE property IN ('employer', 'headquarters_city')"
    assert failure_class(wrong("join", ran(two_hops), question=join_q)) == "wrong temporal logic"
    dated = two_hops + " AND t_from <= '2021-03-04'"
    assert failure_class(wrong("join", ran(dated), question=join_q)) == "wrong answer, other"
    by_param = ran(two_hops + " AND t_from <= $day")
    by_param.args["params"] = {"day": "2021-03-04"}
    assert failure_class(wrong("join", by_param, question=join_q)) == "wrong answer, other"
    untimed = "SELECT value_json FROM facts WHERE property = 'city'"
    assert failure_class(wrong("entity_lookup", ran(untimed))) == "wrong temporal logic"
    assert failure_class(wrong("aggregate", ran(untimed))) == "wrong answer, other"
    assert failure_class(wrong("entity_lookup", failed(f"{ERR} x\n\ny"), ran(TIMED_SQL))) == (
        "wrong answer, other"
    )


def test_taxonomy_counts_wrong_answers_only_in_class_order() -> None:
    right = wrong("as_of").model_copy(update={"correct": True})
    assert failure_class(right) is None
    records = [right, wrong("as_of"), wrong("entity_lookup", ran(TIMED_SQL)), wrong("as_of")]
    assert failure_counts(records) == {"no query": 2, "wrong answer, other": 1}
    assert list(aggregate(records)["failure_classes"]) == ["no query", "wrong answer, other"]
    assert set(failure_counts(records)) <= set(FAILURE_CLASSES)


def test_rows_holding_the_gold_mean_the_answer_step_misread_them() -> None:
    table = "**1 row.**\n\n| answer |\n|---|\n| 2024-09-24T00:00:00 |"
    dated = CallRecord(tool="GraphQuery", args={"query": TIMED_SQL}, output_head=table, ok=True)
    rec = wrong("when_changed", dated).model_copy(update={"gold": "2024-09-24",
                                                          "answer_type": "date"})  # fmt: skip
    assert failure_class(rec) == "rows held the answer"
    other = rec.model_copy(update={"gold": "2024-09-2"})
    assert failure_class(other) != "rows held the answer"
    shim = call_record("GraphQuery", {"query": TIMED_SQL},
                       "Ran as cypher:\n```cypher\n" + "M" * 400 + "\n```\n\n" + table)  # fmt: skip
    assert shim.output_head.startswith("**1 row.**") and "2024-09-24" in shim.output_head
    assert rows_head(2, "<Record answer='Lima'>\n<Record answer='Oslo'>").startswith("2 rows\n")


def test_a_last_query_without_rows_is_no_row_matched() -> None:
    empty = CallRecord(tool="GraphQuery", args={"query": TIMED_SQL}, ok=True,
                       output_head="**0 rows.**\nColumns: answer. No row matched.",
                       error_class="empty result")  # fmt: skip
    assert failure_class(wrong("entity_lookup", empty)) == "no row matched"
    broken = failed(f"{ERR} Unterminated quote\n\na ' quote is never closed.")
    assert failure_class(wrong("entity_lookup", empty, broken)) == "no row matched"
