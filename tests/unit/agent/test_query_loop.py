"""The agent's query mode with a scripted DummyLM over the Alice store: write, run, rewrite
on an error or no rows, answer from the rows; its budget, repeats and compiled demos."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM

from apexmem_neo.agent import AgentConfig, MemoryAgent, build_tools
from apexmem_neo.agent.query_loop import NOT_IN_MEMORY, QueryProgram, failed, strip_fence
from apexmem_neo.errors import ApexMemError, ToolError
from apexmem_neo.query.backend import QueryLimits
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools import SQLiteQueryBackend
from apexmem_neo.tools.compact_schema import EXAMPLE_QUERIES, SchemaLink, linked_query
from apexmem_neo.tools.result import ERROR_HEADING, ToolResult

GOOD = (
    "SELECT f.value_json, f.t_from FROM facts f WHERE f.property = 'favourite_restaurant' "
    "ORDER BY f.t_from DESC LIMIT 1"
)
EMPTY = "SELECT value_json FROM facts WHERE property = 'favorite_food'"
BROKEN = "SELECT value_json FROM factz"
ANSWER = {"answer": "Sakura Sushi", "evidence_turn_ids": []}


class RecordingLM(DummyLM):  # type: ignore[misc]
    """DummyLM that keeps every prompt it was sent (DummyLM itself keeps only replies)."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        super().__init__(answers, adapter=dspy.JSONAdapter())
        self.prompts: list[str] = []

    def __call__(self, prompt: Any = None, messages: Any = None, **kwargs: Any) -> Any:
        self.prompts.append("\n".join(str(m.get("content", "")) for m in messages or []))
        return super().__call__(prompt=prompt, messages=messages, **kwargs)


def query_agent(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend, lm: DummyLM, **config: Any
) -> MemoryAgent:
    tools = build_tools(store, backend, None, ("GraphQuery",))
    settings = AgentConfig(mode="query", prefetch_entities=0, prefetch_turns=0, **config)
    return MemoryAgent(lm, store, tools, backend, None, settings)


def test_a_good_first_query_is_answered_from_its_rows(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    lm = RecordingLM([{"query": f"```sql\n{GOOD}\n```"}, ANSWER])
    res = query_agent(store, backend, lm).ask("Alice's favourite restaurant now?", "2024-06-01")
    assert res.mode == "query" and res.answer == "Sakura Sushi" and res.error is None
    assert [s.phase for s in res.trace] == ["query", "extract"]
    assert res.trace[0].tool == "GraphQuery" and res.trace[0].args == {"query": GOOD}
    assert res.tool_calls == 1 and res.llm_calls == 2
    write, answer = lm.prompts
    assert "Memory schema (SQL tables):" in write and "facts(" in write  # the compact schema
    assert "Sakura Sushi" in answer and GOOD in answer  # the rows and the query reach it


def test_an_error_and_an_empty_result_are_rewritten_with_the_attempts_shown(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    lm = RecordingLM([{"query": BROKEN}, {"query": EMPTY}, {"query": GOOD}, ANSWER])
    res = query_agent(store, backend, lm).ask("Favourite restaurant?", "2024-06-01")
    assert res.answer == "Sakura Sushi" and res.tool_calls == 3
    assert [s.args["query"] for s in res.trace if s.phase == "query"] == [BROKEN, EMPTY, GOOD]
    assert "1. " + BROKEN in lm.prompts[1] and ERROR_HEADING in lm.prompts[1]
    assert "2. " + EMPTY in lm.prompts[2] and "**0 rows.**" in lm.prompts[2]


def test_the_budget_bounds_the_rewrites_and_no_rows_are_not_answered_by_the_model(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    lm = RecordingLM([{"query": BROKEN}, {"query": EMPTY}])
    res = query_agent(store, backend, lm, max_tool_calls=2).ask("Favourite food?")
    assert res.tool_calls == 2 and res.answer == NOT_IN_MEMORY and res.llm_calls == 2
    assert [s.phase for s in res.trace] == ["query", "query"]  # no answer step on 0 rows


def test_a_repeated_query_is_not_run_again(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    lm = RecordingLM([{"query": EMPTY}, {"query": EMPTY}])
    res = query_agent(store, backend, lm).ask("Favourite food?")
    assert res.tool_calls == 1 and [s.phase for s in res.trace] == ["query", "query"]
    assert res.trace[1].tool is None and res.answer == NOT_IN_MEMORY


def test_an_unparseable_first_reply_is_an_error_in_the_result(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    lm = DummyLM([{"nothing": "here"}], adapter=dspy.JSONAdapter())
    res = query_agent(store, backend, lm).ask("Favourite food?")
    assert res.error == "no query was written" and res.trace[0].error


def test_cypher_is_asked_for_when_configured(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    lm = RecordingLM([{"query": "MATCH (n) RETURN n"}, ANSWER])
    query_agent(store, backend, lm, query_language="cypher").ask("x?")
    assert "Memory schema (Cypher labels):" in lm.prompts[0]


def test_compiled_demos_load_and_a_stale_file_is_refused(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend, tmp_path: Path
) -> None:
    program = QueryProgram()
    program.write.demos = [dspy.Example(question="Where is Bob now?", query=GOOD)]
    path = tmp_path / "query.json"
    program.save(str(path))
    lm = RecordingLM([{"query": GOOD}, ANSWER])
    query_agent(store, backend, lm, query_program=str(path)).ask("x?")
    assert "Where is Bob now?" in lm.prompts[0]
    stale = path.read_text().replace("Write one read-only query", "Write a query")
    path.write_text(stale)
    with pytest.raises(ApexMemError, match="another prompt"):
        query_agent(store, backend, lm, query_program=str(path))


def test_the_query_mode_needs_graph_query(store: SQLiteGraphStore) -> None:
    with pytest.raises(ApexMemError, match="GraphQuery"):
        MemoryAgent(DummyLM([]), store, {}, None, None, AgentConfig(mode="query"))


@pytest.mark.parametrize(
    ("result", "worth_retry"),
    [(ToolResult.failure(ToolError("Query failed", "no such table")), True),
     (ToolResult("**0 rows.**\nColumns: a.", rows=0), True),
     (ToolResult("Ran as cypher:\n```\nX\n```\n\n**0 rows.**", rows=0), True),
     (ToolResult("**1 row.**\n\n| a |", rows=1), False)],
)  # fmt: skip
def test_failed_results(result: ToolResult, worth_retry: bool) -> None:
    assert failed(result) is worth_retry


def test_strip_fence() -> None:
    assert strip_fence("```sql\nSELECT 1\n```") == "SELECT 1"
    assert strip_fence("  MATCH (n) RETURN n ") == "MATCH (n) RETURN n"


def test_the_worked_example_is_written_for_the_questions_entity_and_property(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    lm = RecordingLM([{"query": GOOD}, ANSWER])
    query_agent(store, backend, lm).ask("What is Alice's favourite restaurant now?")
    example = linked_query(SchemaLink("Alice", "favourite_restaurant"), "sql")
    assert (
        f"Example (Alice's favourite_restaurant over time, oldest first): {example}"
        in (lm.prompts[0])
    )
    found = backend.run(example, "sql", {}, QueryLimits())  # the example runs as written
    assert [row[0] for row in found.rows] == ['"Italian Garden"', '"Sakura Sushi"']


def test_a_question_naming_no_known_entity_gets_the_generic_example(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    lm = RecordingLM([{"query": GOOD}, ANSWER])
    query_agent(store, backend, lm).ask("What is the weather like?")
    assert EXAMPLE_QUERIES["sql"] in lm.prompts[0] and "over time" not in lm.prompts[0]


def test_linked_queries_quote_names_in_both_languages() -> None:
    link = SchemaLink("Conan O'Brien", "lives_in")
    assert "e.name = 'Conan O''Brien' AND f.property = 'lives_in'" in linked_query(link, "sql")
    assert "{name: 'Conan O\\'Brien'}" in linked_query(link, "cypher")


def test_a_dated_question_gets_the_example_of_the_value_on_its_day(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    lm = RecordingLM([{"query": GOOD}, ANSWER])
    question = "What was Alice's favourite restaurant on 2024-02-01?"
    query_agent(store, backend, lm).ask(question, "2024-06-01")
    example = linked_query(SchemaLink("Alice", "favourite_restaurant", "2024-02-01"), "sql")
    assert f"Example (Alice's favourite_restaurant on 2024-02-01): {example}" in lm.prompts[0]
    found = backend.run(example, "sql", {}, QueryLimits())
    assert [row[0] for row in found.rows] == ['"Italian Garden"']
    cypher = linked_query(SchemaLink("Alice", "lives_in", "2024-02-01"), "cypher")
    assert cypher.endswith("AND f.t_from <= '2024-02-01T23:59:59' RETURN f.value_json, "
                           "f.t_from, f.t_to ORDER BY f.t_from DESC LIMIT 1")  # fmt: skip
