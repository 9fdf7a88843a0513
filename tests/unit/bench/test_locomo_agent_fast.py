"""The LOCOMO harness's ``agent_fast`` system: the same agent as ``agent`` always asked in
fast mode (``agent`` keeps --mode, by default auto), answered in the same sitting, kept and
resumed under its own name. The agent runs on a scripted DummyLM (control flow only)."""

from __future__ import annotations

from argparse import Namespace
from pathlib import Path
from typing import Any, cast

import dspy
import pytest
from dspy.utils import DummyLM

from apexmem_neo.agent import AgentConfig, MemoryAgent, build_tools
from apexmem_neo.tools import SQLiteQueryBackend
from benchmarks.locomo.data import LocomoQuestion
from benchmarks.locomo.judge import Judge
from benchmarks.locomo.metrics import summarize
from benchmarks.locomo.run import (
    Systems,
    answer_order,
    ask_all,
    construction_shares,
    system_names,
)
from benchmarks.memory import AnswerLog, read_jsonl
from tests.unit.agent.alice import TURN_2, alice_search, alice_store
from tests.unit.bench.test_locomo_ask_all import QUESTIONS, FakeJudge, FakeSystems

FAST_NO = {"answer": "", "evidence_turn_ids": [], "enough_context": False}
FAST_OK = {"answer": "Sakura Sushi", "evidence_turn_ids": [TURN_2], "enough_context": True}
REACT_FINISH = {"next_thought": "done", "next_tool_name": "finish", "next_tool_args": {}}
EXTRACT = {"reasoning": "r", "answer": "Sakura Sushi", "evidence_turn_ids": [TURN_2]}


def test_the_four_systems_are_known_and_a_misspelt_one_stops_the_run() -> None:
    names = system_names("agent,agent_fast,rag,full_context")
    assert names == ["agent", "agent_fast", "rag", "full_context"]
    assert system_names(" agent , agent_fast,agent") == ["agent", "agent_fast"]
    with pytest.raises(SystemExit, match="unknown system agent-fast; known: agent, agent_fast"):
        system_names("agent,agent-fast")
    with pytest.raises(SystemExit, match="names none"):
        system_names(",")


def test_agent_fast_is_the_same_agent_in_fast_mode_whatever_its_mode(tmp_path: Path) -> None:
    store = alice_store(tmp_path / "alice.sqlite")
    try:
        backend, searcher = SQLiteQueryBackend(tmp_path / "alice.sqlite"), alice_search()
        # auto: the fast path says "not enough", ReAct finishes (3 calls); then fast: 1 call
        dummy = DummyLM([FAST_NO, REACT_FINISH, EXTRACT, FAST_NO], adapter=dspy.JSONAdapter())
        tools = build_tools(store, backend, searcher)
        agent = MemoryAgent(dummy, store, tools, backend, searcher, AgentConfig(mode="auto"))
        systems = Systems(agent, cast(Any, None), cast(Any, None), [], Namespace(context_tokens=1))
        q = LocomoQuestion(qid="c:q0", question="Alice's favourite restaurant?", gold="Sakura",
                           category=4)  # fmt: skip
        auto = systems.answer("agent", q, "2024-04-01")
        fast = systems.answer("agent_fast", q, "2024-04-01")
    finally:
        store.close()
    assert (auto["mode"], auto["llm_calls"], auto["answer"]) == ("react", 3, "Sakura Sushi")
    assert (fast["mode"], fast["llm_calls"]) == ("fast", 1)  # no ReAct fallback
    assert len(dummy.history) == 4


def test_the_agent_systems_are_kept_apart_by_a_third_both_ways_round() -> None:
    order = answer_order(["agent", "agent_fast", "rag", "full_context"], QUESTIONS[:2])
    assert [(s, q.qid) for s, q in order] == [
        ("full_context", "c:q0"), ("full_context", "c:q1"),
        ("agent", "c:q0"), ("rag", "c:q0"), ("agent_fast", "c:q0"),
        ("agent_fast", "c:q1"), ("rag", "c:q1"), ("agent", "c:q1"),
    ]  # fmt: skip
    assert [s for s, _ in answer_order(["agent_fast", "agent"], QUESTIONS[:2])] == [
        "agent_fast",
        "agent",
        "agent",
        "agent_fast",
    ]  # fmt: skip  (nothing to put between them: the order given, alternating)
    old = answer_order(["agent", "full_context", "rag"], QUESTIONS[:2])
    assert [s for s, _ in old][2:] == ["agent", "rag", "rag", "agent"]  # unchanged


def test_agent_fast_records_are_kept_and_resumed_under_their_own_name(tmp_path: Path) -> None:
    jsonl = tmp_path / "locomo_t.jsonl"

    def ask(calls: list[str], names: list[str]) -> None:
        log = AnswerLog(jsonl, "system", lambda _: "/tmp/fake.sqlite")
        systems, judge = cast(Systems, FakeSystems(calls)), cast(Judge, FakeJudge(calls))
        ask_all(systems, names, QUESTIONS[:2], "2023-10-22", judge, log)

    first: list[str] = []
    ask(first, ["agent", "agent_fast"])
    assert sum(c.startswith("answer agent_fast") for c in first) == 2
    second: list[str] = []
    ask(second, ["agent", "agent_fast", "rag", "full_context"])
    answered = [c for c in second if c.startswith("answer")]
    assert answered == ["answer full_context c:q0", "answer full_context c:q1",
                        "answer rag c:q0", "answer rag c:q1"]  # fmt: skip
    records = read_jsonl(jsonl)
    assert sorted({r["system"] for r in records}) == ["agent", "agent_fast", "full_context", "rag"]
    assert len(records) == 8  # each (system, question) judged once


def test_both_agent_systems_carry_the_construction_cost() -> None:
    records = [{"system": s, "qid": "c:q0", "category": 4, "correct": True, "f1": 1.0}
               for s in ("agent", "agent_fast", "rag", "full_context")]  # fmt: skip
    summary = summarize(records, construction_shares(400.0))
    amortised = {s: summary[s]["tokens"]["construction_amortised"] for s in summary}
    assert amortised == {"agent": 400.0, "agent_fast": 400.0, "rag": 0.0, "full_context": 0.0}
