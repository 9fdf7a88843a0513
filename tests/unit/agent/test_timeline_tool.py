"""The optional Timeline tool: history with read-time intervals, changes, as-of; errors as text."""

from __future__ import annotations

import pytest
from dspy.utils import DummyLM

from apexmem_neo.agent import AgentConfig, MemoryAgent, build_tools
from apexmem_neo.errors import ApexMemError
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools import SQLiteQueryBackend
from apexmem_neo.tools.timeline import timeline
from tests.unit.agent.alice import ALICE
from tests.unit.agent.test_agent import lm, step


def test_history_changes_and_as_of_by_name(store: SQLiteGraphStore) -> None:
    out = timeline(store, "Alice", "favourite_restaurant", as_of="2024-02-01")
    assert "| 2024-01-15T00:00:00 | 2024-03-20T00:00:00 | Italian Garden |" in str(out)
    assert "| 2024-03-20T00:00:00 | now | Sakura Sushi |" in str(out)
    assert "Changed 1 time(s):\n- 2024-03-20T00:00:00: Italian Garden -> Sakura Sushi" in str(out)
    assert out.text.endswith("Value on 2024-02-01: Italian Garden")


def test_entity_by_id_and_before_any_fact(store: SQLiteGraphStore) -> None:
    out = timeline(store, ALICE, "favourite_restaurant", as_of="2023-05-01")
    assert out.text.endswith("Value on 2023-05-01: nothing recorded yet")


def test_errors_are_text_the_agent_can_act_on(store: SQLiteGraphStore) -> None:
    assert "No entity matches 'Zed'" in str(timeline(store, "Zed", "city"))
    unknown = timeline(store, "Alice", "favorite_food")
    assert "no facts for property 'favorite_food'" in str(unknown)
    assert "Its properties: favourite_restaurant." in str(unknown)
    bad = timeline(store, "Alice", "favourite_restaurant", as_of="last Tuesday-ish")
    assert bad.text.endswith("as_of 'last Tuesday-ish' is not a date; use YYYY-MM-DD.")


def test_timeline_is_optional_and_named_in_the_tool_set(
    store: SQLiteGraphStore, backend: SQLiteQueryBackend
) -> None:
    assert "Timeline" not in build_tools(store, backend)  # the paper's four by default
    tools = build_tools(store, backend, names=["Timeline", "EntityLookup"])
    assert list(tools) == ["Timeline", "EntityLookup"]
    assert tools["Timeline"].__doc__ and "as_of" in tools["Timeline"].__doc__
    with pytest.raises(ApexMemError, match="Timelines"):
        build_tools(store, backend, names=["Timelines"])


def test_react_loop_calls_timeline(store: SQLiteGraphStore, backend: SQLiteQueryBackend) -> None:
    answers = [
        step("Timeline", {"entity": "Alice", "property": "favourite_restaurant",
                          "as_of": "2024-02-01"}),
        step("finish", {}),
        {"reasoning": "r", "answer": "Italian Garden", "evidence_turn_ids": []},
    ]  # fmt: skip
    tools = build_tools(store, backend, names=["Timeline"])
    dummy: DummyLM = lm(answers)
    res = MemoryAgent(dummy, store, tools, backend, None, AgentConfig(tools=("Timeline",))).ask(
        "Favourite restaurant on 2024-02-01?", mode="react"
    )
    assert res.answer == "Italian Garden" and res.tool_calls == 1
    assert res.trace[0].tool == "Timeline" and res.trace[0].output_chars > 0
