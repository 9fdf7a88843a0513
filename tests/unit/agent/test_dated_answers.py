"""When-questions answered with the date of the turn the model cites."""

from __future__ import annotations

from typing import Any

import dspy
from dspy.utils import DummyLM

from apexmem_neo.agent import AgentConfig, MemoryAgent, build_tools
from apexmem_neo.agent.dated_answers import TurnDates, evidence_date
from apexmem_neo.agent.timewords import said_times
from apexmem_neo.search import HybridSearch
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools import SQLiteQueryBackend
from tests.unit.agent.alice import TURN_1

LOST = "Lost my job as a banker yesterday, so I'm starting a business."
DATES = {
    "t1": TurnDates("2023-01-20", said_times(LOST, "2023-01-20")),
    "t2": TurnDates("2023-01-29", []),
}
CONTEXT = "[T1] 20 January 2023 Ines: Lost my job yesterday (19 January 2023)\n[T2] 29 January 2023"
WHEN = "When did Ines lose his job?"


def test_the_day_a_turn_was_said_gives_way_to_its_time_words() -> None:
    assert evidence_date(WHEN, "20 January 2023", ["t1"], DATES, CONTEXT) == "19 January 2023"
    assert evidence_date(WHEN, "2023-01-20", ["t1"], DATES, CONTEXT) == "19 January 2023"
    assert evidence_date(WHEN, "yesterday", ["t1"], DATES, CONTEXT) == "19 January 2023"


def test_a_date_the_context_never_shows_is_replaced_by_the_cited_turns() -> None:
    assert evidence_date(WHEN, "2023-01-07", ["t2", "t1"], DATES, CONTEXT) == "29 January 2023"


def test_a_vague_time_keeps_its_words() -> None:
    tattoo = "I got it a few years ago."
    dates = {"t1": TurnDates("2023-02-08", said_times(tattoo, "2023-02-08"))}
    assert evidence_date("When did Ines get her tattoo?", "8 February 2023", ["t1"], dates,
                         "[T1] 8 February 2023") == "a few years ago (around 2020)"  # fmt: skip


def test_an_answer_the_context_supports_is_kept() -> None:
    assert evidence_date(WHEN, "19 January 2023", ["t1"], DATES, CONTEXT) is None
    assert evidence_date(WHEN, "29 January 2023", ["t1"], DATES, CONTEXT) is None  # T2's day
    assert evidence_date(WHEN, "A few years ago", ["t1"], DATES, CONTEXT) is None  # no date
    assert evidence_date(WHEN, "2023-01-07", ["t9"], DATES, CONTEXT) is None  # cites no turn shown
    assert evidence_date("Where did Ines work?", "2023-01-07", ["t1"], DATES, CONTEXT) is None


def test_the_agent_answers_a_when_question_with_its_cited_turns_date(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend, searcher: HybridSearch
) -> None:
    # turn 1 says "I ate there last Saturday" on 2024-01-15; the model answers the turn's day
    reply: dict[str, Any] = {
        "answer": "15 January 2024", "evidence_turn_ids": ["T1"], "enough_context": True,
    }  # fmt: skip
    dummy = DummyLM([reply], adapter=dspy.JSONAdapter())
    config = AgentConfig(mode="fast", prefetch_entities=0)
    agent = MemoryAgent(dummy, store, build_tools(store, backend, searcher), backend, searcher,
                        config)  # fmt: skip
    res = agent.ask("When did Alice eat at Italian Garden?", "2024-04-01")
    assert res.answer == "13 January 2024"
    assert res.trace[0].thought == "answered '15 January 2024'; its cited turn dates it"
    assert [e.turn_id for e in res.evidence] == [TURN_1]
