"""MemoryAgent with a scripted DummyLM: fast path, ReAct loop, budgets and parse errors."""

from __future__ import annotations

import re
from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM

from apexmem_neo.agent import AgentConfig, MemoryAgent, build_tools
from apexmem_neo.agent.agent import is_non_answer
from apexmem_neo.agent.react_loop import repeated_call_note
from apexmem_neo.errors import ApexMemError
from apexmem_neo.search import HybridSearch
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools import SQLiteQueryBackend
from tests.unit.agent.alice import TEXT_2, TURN_2


def lm(answers: list[dict[str, Any]]) -> DummyLM:
    return DummyLM(answers, adapter=dspy.JSONAdapter())


def agent(
    store: SQLiteGraphStore,
    backend: SQLiteQueryBackend,
    searcher: HybridSearch | None,
    answers: list[dict[str, Any]],
    **config: Any,
) -> MemoryAgent:
    tools = build_tools(store, backend, searcher)
    return MemoryAgent(lm(answers), store, tools, backend, searcher, AgentConfig(**config))


FAST_OK = {"answer": "Sakura Sushi", "evidence_turn_ids": [TURN_2], "enough_context": True}
FAST_NO = {"answer": "", "evidence_turn_ids": [], "enough_context": False}


def step(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"next_thought": f"use {tool}", "next_tool_name": tool, "next_tool_args": args}


def test_fast_path_answers_in_one_call(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend, searcher: HybridSearch
) -> None:
    a = agent(store, backend, searcher, [FAST_OK])
    res = a.ask("What is Alice's favourite restaurant?", "2024-04-01")
    assert res.mode == "fast" and res.enough_context is True
    assert res.answer == "Sakura Sushi"
    assert [e.turn_id for e in res.evidence] == [TURN_2]
    assert res.evidence[0].text == f"Alice: {TEXT_2}"
    assert res.llm_calls == 1 and len(res.trace) == 1 and res.trace[0].phase == "fast"
    assert res.error is None and res.seconds >= 0


def test_prefetched_context_reaches_the_model(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend, searcher: HybridSearch
) -> None:
    dummy = lm([FAST_OK])
    tools = build_tools(store, backend, searcher)
    MemoryAgent(dummy, store, tools, backend, searcher).ask("Alice's favourite restaurant now?")
    prompt = str(dummy.history[-1]["messages"])
    assert re.search(r"\[T\d+\] 20 March 2024 Alice: I have a new favourite", prompt)
    assert "last Saturday (13 January 2024)" in prompt
    assert "favourite_restaurant now: Sakura Sushi (since 2024-03-20)" in prompt
    assert TURN_2 not in prompt  # the long id is shown as a short label


def test_computed_lines_lead_only_questions_about_time(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend, searcher: HybridSearch
) -> None:
    dummy = lm([FAST_OK])
    tools = build_tools(store, backend, searcher)
    MemoryAgent(dummy, store, tools, backend, searcher).ask("Which restaurant does Alice like?")
    assert "Computed for this question" not in str(dummy.history[-1]["messages"])


def test_the_entities_style_shows_timelines(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend, searcher: HybridSearch
) -> None:
    dummy = lm([FAST_OK])
    tools = build_tools(store, backend, searcher)
    config = AgentConfig(context_style="entities")
    MemoryAgent(dummy, store, tools, backend, searcher, config).ask("Alice favourite restaurant?")
    prompt = str(dummy.history[-1]["messages"])
    assert re.search(r"2024-01-15 to 2024-03-20: Italian Garden \(turn T\d+\)", prompt)
    assert re.search(r"2024-03-20 to now: Sakura Sushi \(turn T\d+\)", prompt)


def test_a_cited_turn_label_is_mapped_back_to_its_turn(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend, searcher: HybridSearch
) -> None:
    probe = lm([FAST_OK])
    tools = build_tools(store, backend, searcher)
    MemoryAgent(probe, store, tools, backend, searcher).ask("Alice favourite restaurant?")
    found = re.search(r"\[(T\d+)\] 20 March 2024 Alice", str(probe.history[-1]["messages"]))
    assert found is not None
    cites_label = {**FAST_OK, "evidence_turn_ids": [found.group(1).lower()]}
    res = agent(store, backend, searcher, [cites_label]).ask("Alice favourite restaurant?")
    assert [e.turn_id for e in res.evidence] == [TURN_2]
    assert res.evidence[0].text == f"Alice: {TEXT_2}"


def test_auto_falls_back_to_react_when_context_is_not_enough(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend, searcher: HybridSearch
) -> None:
    answers = [
        FAST_NO,
        step("EntityLookup", {"query": "Alice", "k": 1}),
        step("finish", {}),
        {"reasoning": "changed on 2024-03-20", "answer": "2024-03-20",
         "evidence_turn_ids": [TURN_2, "made_up_turn"]},
    ]  # fmt: skip
    res = agent(store, backend, searcher, answers).ask(
        "When did Alice's favourite restaurant change?", "2024-04-01"
    )
    assert res.mode == "react" and res.answer == "2024-03-20"
    assert [e.turn_id for e in res.evidence] == [TURN_2]  # invented ids are dropped
    assert [s.phase for s in res.trace] == ["fast", "react", "react", "extract"]
    lookup = res.trace[1]
    assert lookup.tool == "EntityLookup" and lookup.args == {"query": "Alice", "k": 1}
    assert lookup.output_chars > 0 and lookup.thought == "use EntityLookup"
    assert res.tool_calls == 1 and res.llm_calls == 4


def test_react_mode_skips_fast_path_and_uses_graph_query(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    sql = "SELECT value_json, t_from FROM facts WHERE property = 'favourite_restaurant'"
    answers = [
        step("GraphQuery", {"query": sql, "language": "sql"}),
        step("finish", {}),
        {"reasoning": "r", "answer": "Sakura Sushi", "evidence_turn_ids": []},
    ]
    res = agent(store, backend, None, answers).ask("Favourite restaurant?", mode="react")
    assert res.mode == "react" and res.answer == "Sakura Sushi"
    assert res.trace[0].phase == "react" and res.trace[0].output_chars > 0
    assert res.llm_calls == 3


def test_tool_budget_stops_the_loop(store: SQLiteGraphStore, backend: SQLiteQueryBackend) -> None:
    answers = [
        step("EntityLookup", {"query": "Alice"}),
        step("EntityLookup", {"query": "Bob"}),
        {"reasoning": "r", "answer": "Sakura Sushi", "evidence_turn_ids": []},
    ]
    res = agent(store, backend, None, answers, max_tool_calls=1).ask("x?", mode="react")
    assert res.tool_calls == 1 and res.answer == "Sakura Sushi"
    assert res.trace[1].output_chars == len("Tool budget exhausted: no more tool calls; "
                                            "answer with what you have.")  # fmt: skip


def test_an_identical_repeated_call_ends_the_loop_without_running_again(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    query = {"query": "SELECT name FROM entities", "language": "sql"}
    answers = [
        step("GraphQuery", query),
        step("GraphQuery", query),
        {"reasoning": "r", "answer": "Alice", "evidence_turn_ids": []},
    ]
    res = agent(store, backend, None, answers, max_iters=4).ask("x?", mode="react")
    first, again, extract = res.trace
    assert first.output_chars > 0 and again.output_chars == len(repeated_call_note(0))
    assert extract.phase == "extract" and res.answer == "Alice"
    assert res.tool_calls == 2


def test_max_iters_bounds_the_loop(store: SQLiteGraphStore, backend: SQLiteQueryBackend) -> None:
    answers = [
        step("EntityLookup", {"query": "Alice"}),
        {"reasoning": "r", "answer": "A", "evidence_turn_ids": []},
    ]
    res = agent(store, backend, None, answers, max_iters=1).ask("x?", mode="react")
    assert [s.phase for s in res.trace] == ["react", "extract"] and res.answer == "A"


def test_unparseable_step_ends_the_loop_and_is_traced(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    extract = {"reasoning": "r", "answer": "A", "evidence_turn_ids": []}
    dummy = DummyLM({"Nope": step("Nope", {}), "trajectory": extract}, adapter=dspy.JSONAdapter())
    tools = build_tools(store, backend)
    res = MemoryAgent(dummy, store, tools, backend).ask("Nope?", mode="react")
    assert res.trace[0].error is not None and "parse" in res.trace[0].error
    assert res.trace[-1].phase == "extract"


def test_extract_parse_error_is_reported_not_raised(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    broken = {"reasoning": "no answer field"}
    answers = [step("finish", {}), broken, broken, broken]
    res = agent(store, backend, None, answers).ask("x?", mode="react")
    assert res.error is not None and res.error.startswith("final extract failed")
    assert res.answer == "" and res.trace[-1].phase == "extract" and res.trace[-1].error


def test_fast_parse_error_in_fast_mode_is_reported(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    broken = {"answer": "x"}
    res = agent(store, backend, None, [broken, broken, broken]).ask("x?", mode="fast")
    assert res.mode == "fast" and res.error is not None and res.enough_context is False


def test_time_words_are_given_as_dates(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    dummy = lm([FAST_OK])
    a = MemoryAgent(dummy, store, build_tools(store, backend), backend)
    res = a.ask("Where did Alice eat last month?", "2024-03-20")
    assert res.time_hints == ['"last month" = 2024-02-01 to 2024-02-29']
    assert "2024-02-01 to 2024-02-29" in str(dummy.history[-1]["messages"])


def test_build_tools_by_name(store: SQLiteGraphStore, backend: SQLiteQueryBackend) -> None:
    assert list(build_tools(store)) == ["EntityLookup"]
    assert list(build_tools(store, backend)) == ["SchemaViewer", "EntityLookup", "GraphQuery"]
    assert list(build_tools(store, backend, names=["GraphQuery"])) == ["GraphQuery"]
    with pytest.raises(ApexMemError, match="unknown tool"):
        build_tools(store, names=["Shell"])


def test_loop_budget_is_small_for_a_model_served_here() -> None:
    from apexmem_neo.agent.models import AgentConfig, max_iters_for

    assert max_iters_for("http://127.0.0.1:8080/v1") == 4 == AgentConfig().max_iters
    assert max_iters_for("http://localhost:11434") == 4
    assert max_iters_for("https://api.openai.com/v1") == 12
    assert max_iters_for(None) == 12


def test_auto_keeps_the_fast_answer_when_the_loop_finds_none(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend, searcher: HybridSearch
) -> None:
    unsure = {"answer": "Sakura Sushi", "evidence_turn_ids": [TURN_2], "enough_context": False}
    answers = [
        unsure,
        step("finish", {}),
        {"reasoning": "nothing found", "answer": "No answer provided", "evidence_turn_ids": []},
    ]
    res = agent(store, backend, searcher, answers).ask("What is Alice's favourite restaurant?")
    assert res.answer == "Sakura Sushi" and res.mode == "fast"
    assert [e.turn_id for e in res.evidence] == [TURN_2]
    assert [s.phase for s in res.trace] == ["fast", "react", "extract"]  # the loop did run


@pytest.mark.parametrize(
    ("answer", "non"),
    [("", True), ("No answer provided.", True), ("unknown", True), ("N/A", True),
     ("Not mentioned in the conversation", False), ("Seattle", False), ("0", False)],
)  # fmt: skip
def test_non_answers(answer: str, non: bool) -> None:
    assert is_non_answer(answer) is non
