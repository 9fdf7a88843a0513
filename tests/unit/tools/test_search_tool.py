"""Search tool: the four groups as markdown, errors as text."""

from __future__ import annotations

from apexmem_neo.search.engine import SearchResults
from apexmem_neo.tools.search_tool import run_search, search_tool
from tests.unit.agent.alice import ALICE, TURN_2, alice_search
from tests.unit.tools.results import error_title


def test_search_shows_four_groups_with_ids() -> None:
    out = search_tool(alice_search())("Sakura Sushi favourite restaurant")
    for heading in ("## Entities", "## Properties", "## Events / evidence", "## Turns"):
        assert heading in str(out)
    turns = str(out).split("## Turns")[1]
    assert f"`{TURN_2}`" in turns and "Alice" in turns
    assert f"`{ALICE}`" in str(out).split("## Properties")[0]


def test_empty_query_is_an_error_block() -> None:
    assert error_title(run_search(alice_search(), " ")) == "Empty query"


class Broken:
    def search(self, query: str, k: int = 10) -> SearchResults:
        raise RuntimeError("index closed")


def test_failure_is_reported_not_raised() -> None:
    out = run_search(Broken(), "x")
    assert error_title(out).startswith("Search failed") and "index closed" in str(out)


def test_tool_name_and_doc() -> None:
    tool = search_tool(alice_search(), k=2)
    assert tool.__name__ == "Search" and "four groups" in (tool.__doc__ or "")
