"""memory_tools: LangChain StructuredTools over one scope of a real SQLite memory, called
through invoke()/ainvoke() as an agent would (no service; ask runs on a scripted DummyLM)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM
from langchain_core.tools import StructuredTool

from apexmem_neo import Memory
from apexmem_neo.errors import InvalidInputError
from apexmem_neo.integrations.langchain import TOOL_NAMES, memory_tools
from apexmem_neo.testing import HashingEmbedder
from tests.unit.agent.alice import TEXT_2, TURN_2, alice_batch

SCOPE = "alice"


def open_memory(tmp_path: Path, **options: Any) -> Memory:
    options.setdefault("lm", None)
    memory = Memory.sqlite(
        tmp_path / "m.sqlite", home=tmp_path / "home", embedder=HashingEmbedder(), **options
    )
    memory.store.write(alice_batch(scope=SCOPE))
    memory.index()
    return memory


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    with open_memory(tmp_path) as memory:
        yield memory


def tools(memory: Memory, scope: str = SCOPE) -> dict[str, StructuredTool]:
    return {tool.name: tool for tool in memory_tools(memory, scope)}


def test_the_tools_have_typed_arguments_and_descriptions(memory: Memory) -> None:
    built = tools(memory)
    assert list(built) == ["memory_search", "memory_history", "memory_current", "memory_as_of"]
    assert set(built["memory_search"].args) == {"query", "k"}
    assert set(built["memory_history"].args) == {"entity", "property"}
    assert set(built["memory_as_of"].args) == {"entity", "property", "date"}
    assert built["memory_search"].args["k"]["type"] == "integer"
    for tool in built.values():
        assert tool.description and "\n" not in tool.description
        schema = tool.tool_call_schema.model_json_schema()
        assert all(p.get("description") for p in schema["properties"].values())


def test_search_finds_the_turns_of_the_scope(memory: Memory) -> None:
    out = tools(memory)["memory_search"].invoke({"query": "Sakura Sushi", "k": 3})
    assert out.startswith("Results for 'Sakura Sushi':")
    assert "Turns:" in out and TEXT_2 in out


def test_search_in_an_empty_scope_names_the_scopes_that_hold_rows(memory: Memory) -> None:
    out = tools(memory, "nobody")["memory_search"].invoke({"query": "sushi"})
    assert "scope 'nobody' holds nothing; scopes: alice" in out


def test_history_current_and_as_of(memory: Memory) -> None:
    built = tools(memory)
    asked = {"entity": "Alice", "property": "favorite restaurant"}
    history = built["memory_history"].invoke(asked)
    assert history.splitlines()[:3] == [
        "Alice · favourite_restaurant, oldest first:",
        "- 'Italian Garden' from 2024-01-15T00:00:00",
        "- 'Sakura Sushi' from 2024-03-20T00:00:00",
    ]
    assert "'Italian Garden' -> 'Sakura Sushi'" in history
    now = built["memory_current"].invoke(asked)
    assert now == "Alice · favorite restaurant now: 'Sakura Sushi' from 2024-03-20T00:00:00"
    then = built["memory_as_of"].invoke({**asked, "date": "2024-02-01"})
    assert then.startswith("Alice · favorite restaurant on 2024-02-01: 'Italian Garden'")
    before = built["memory_as_of"].invoke({**asked, "date": "2023-01-01"})
    assert before.endswith("no value known.")


def test_a_caller_error_comes_back_as_the_tools_text(memory: Memory) -> None:
    built = tools(memory)
    out = built["memory_current"].invoke({"entity": "Zed", "property": "city"})
    assert "Zed" in out and "Alice" in out  # the unknown name and the scope's nearest names
    bad = built["memory_as_of"].invoke({"entity": "Alice", "property": "x", "date": "soon"})
    assert "not an ISO 8601 date" in bad


def test_arguments_are_checked_against_their_types(memory: Memory) -> None:
    with pytest.raises(ValueError, match="k"):
        tools(memory)["memory_search"].invoke({"query": "x", "k": 0})


def test_the_tools_run_from_ainvoke(memory: Memory) -> None:
    asked = {"entity": "Alice", "property": "favourite_restaurant"}
    out = asyncio.run(tools(memory)["memory_current"].ainvoke(asked))
    assert "'Sakura Sushi'" in out


def test_names_choose_tools_and_a_bad_scope_or_name_is_refused(memory: Memory) -> None:
    chosen = memory_tools(memory, SCOPE, names=["memory_history"])
    assert [tool.name for tool in chosen] == ["memory_history"]
    with pytest.raises(ValueError, match="unknown memory tools"):
        memory_tools(memory, SCOPE, names=["memory_write"])
    with pytest.raises(InvalidInputError, match="not a valid scope"):
        memory_tools(memory, "two words")


def test_search_is_left_out_without_a_search_index(tmp_path: Path) -> None:
    with Memory.sqlite(tmp_path / "n.sqlite", home=tmp_path, lm=None, search=None) as memory:
        names = [tool.name for tool in memory_tools(memory, SCOPE)]
    assert "memory_search" not in names and "memory_ask" not in names


def test_ask_answers_with_the_evidence_on_a_scripted_model(tmp_path: Path) -> None:
    answer = {"answer": "Sakura Sushi", "evidence_turn_ids": [TURN_2], "enough_context": True}
    lm = DummyLM([answer], adapter=dspy.JSONAdapter())
    with open_memory(tmp_path, lm=lm) as memory:
        built = tools(memory)
        assert list(built) == list(TOOL_NAMES)
        out = built["memory_ask"].invoke(
            {"question": "What is Alice's favourite restaurant?", "date": "2024-04-01"}
        )
    assert out.splitlines()[0] == "Sakura Sushi"
    assert "Evidence:" in out and TEXT_2 in out
