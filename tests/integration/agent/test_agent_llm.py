"""The agent's fast path through the local LLM on the Alice case (gold facts, no extraction),
also through a compiled answer program, and the ReAct loop.

Alice's favourite restaurant was Italian Garden from 2024-01-15 and Sakura Sushi from
2024-03-20. The prefetched context is small (one entity, its two facts) so that a slow
CPU-bound local model still answers within the timeout.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from apexmem_neo.agent import AgentConfig, MemoryAgent, build_tools
from apexmem_neo.agent.programs import answer_example, compile_answer_program
from apexmem_neo.llm import make_lm
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools import SQLiteQueryBackend
from tests.unit.agent.alice import TURN_2, alice_store

pytestmark = [pytest.mark.integration, pytest.mark.llm]

MODEL = "openai/qwen2.5-coder-1.5b-instruct"
CONFIG = AgentConfig(mode="fast", prefetch_entities=1, prefetch_turns=0, max_facts=6)


@pytest.fixture
def agent(lm_api_base: str, tmp_path: Path) -> Iterator[MemoryAgent]:
    path = tmp_path / "alice.sqlite"
    store: SQLiteGraphStore = alice_store(path)
    backend = SQLiteQueryBackend(path)
    lm = make_lm(MODEL, lm_api_base, "local", max_tokens=160, timeout=1500)
    yield MemoryAgent(lm, store, build_tools(store, backend), backend, None, CONFIG)
    store.close()


@pytest.mark.timeout(3000)
def test_fast_path_current_favourite(agent: MemoryAgent) -> None:
    res = agent.ask("What is Alice's favourite restaurant now?", "2024-04-01")
    assert res.error is None, res.error
    assert res.mode == "fast" and res.llm_calls >= 1
    assert "sakura sushi" in res.answer.lower(), res.answer
    assert all(e.turn_id.startswith("alice_turn_") for e in res.evidence)


@pytest.mark.timeout(3000)
def test_fast_path_when_it_changed(agent: MemoryAgent) -> None:
    res = agent.ask("When did Alice's favourite restaurant change?", "2024-04-01")
    assert res.error is None, res.error
    answer = res.answer.lower()
    assert any(d in answer for d in ("2024-03-20", "march 20", "20 march")), res.answer
    assert TURN_2 in [e.turn_id for e in res.evidence] or not res.evidence


@pytest.mark.timeout(3000)
def test_react_loop_runs_tools_and_returns_a_traced_answer(
    lm_api_base: str, tmp_path: Path
) -> None:
    # The loop on its own (mode react), two steps at most, EntityLookup and the optional
    # Timeline tool: the small model must pick a tool with arguments the schema enforces,
    # and the result must carry an answer, evidence that names real turns, and a trace.
    path = tmp_path / "alice.sqlite"
    store: SQLiteGraphStore = alice_store(path)
    backend = SQLiteQueryBackend(path)
    names = ("EntityLookup", "Timeline")
    config = CONFIG.model_copy(update={"mode": "react", "max_iters": 2, "tools": names})
    lm = make_lm(MODEL, lm_api_base, "local", max_tokens=200, timeout=1500)
    agent = MemoryAgent(lm, store, build_tools(store, backend, names=names), backend, None, config)
    try:
        res = agent.ask("What was Alice's favourite restaurant on 2024-02-01?", "2024-04-01")
    finally:
        store.close()
    assert res.error is None, res.error
    assert res.mode == "react" and res.answer.strip()
    assert res.time_hints == ['"2024-02-01" = 2024-02-01']
    react = [s for s in res.trace if s.phase == "react"]
    assert react and all(s.tool in (*names, "finish") for s in react)
    assert res.tool_calls == sum(1 for s in react if s.tool in names) >= 1
    assert res.trace[-1].phase == "extract" and all(s.seconds >= 0 for s in res.trace)
    assert res.tokens["total_tokens"] > 0 and res.llm_calls == len(react) + 1
    assert all(e.turn_id.startswith("alice_turn_") for e in res.evidence)


@pytest.mark.timeout(3000)
def test_query_mode_writes_sql_and_answers_from_its_rows(lm_api_base: str, tmp_path: Path) -> None:
    # The query mode on SQLite: the model writes SQL over the compact schema, GraphQuery runs
    # it (rewritten after an error or no rows), and the answer comes from the rows.
    path = tmp_path / "alice.sqlite"
    store: SQLiteGraphStore = alice_store(path)
    backend = SQLiteQueryBackend(path)
    config = CONFIG.model_copy(update={"mode": "query", "tools": ("GraphQuery",),
                                       "max_tool_calls": 2, "prefetch_entities": 0})  # fmt: skip
    lm = make_lm(MODEL, lm_api_base, "local", max_tokens=200, timeout=1500)
    tools = build_tools(store, backend, names=config.tools)
    agent = MemoryAgent(lm, store, tools, backend, None, config)
    try:
        res = agent.ask("What is Alice's favourite restaurant now?", "2024-04-01")
    finally:
        store.close()
    assert res.error is None, res.error
    queries = [s for s in res.trace if s.phase == "query" and s.tool == "GraphQuery"]
    assert res.mode == "query" and 1 <= res.tool_calls == len(queries) <= 2
    assert all(q.args["query"].lstrip().upper().startswith(("SELECT", "WITH")) for q in queries)
    assert res.trace[-1].phase == "extract" and res.llm_calls == len(res.trace)
    assert "sakura sushi" in res.answer.lower(), (res.answer, [q.args for q in queries])


@pytest.mark.timeout(3000)
def test_fast_path_answers_through_a_compiled_program(agent: MemoryAgent, tmp_path: Path) -> None:
    # A program compiled from two other questions with known answers (DSPy LabeledFewShot),
    # saved as JSON and loaded by the agent's config: the local model answers a third
    # question with the two demonstrations in its prompt.
    trained = [
        ("What was Alice's favourite restaurant on 2024-02-01?", "Italian Garden"),
        ("When did Alice's favourite restaurant change?", "2024-03-20"),
    ]
    examples = [answer_example(agent.answer_inputs(q, "2024-04-01"), a) for q, a in trained]
    path = tmp_path / "answer_program.json"
    compile_answer_program(examples, "labeled", demos=2).save(str(path))
    config = CONFIG.model_copy(update={"answer_program": str(path)})
    compiled = MemoryAgent(agent.lm, agent.store, agent.tools, agent.backend, None, config)
    res = compiled.ask("What is Alice's favourite restaurant now?", "2024-04-01")
    assert res.error is None, res.error
    assert res.mode == "fast" and "sakura sushi" in res.answer.lower(), res.answer
    prompt = " ".join(str(m["content"]) for m in agent.lm.history[-1]["messages"])
    assert all(q in prompt for q, _ in trained)
