"""Turn metadata on Neo4j: stored on the Turn node, read back, and filtered on in listings
(every key equal, JSON types apart, keyset paged, within a session) and in search.

The Neo4j server is shared: every test uses its own scope and search namespace and deletes
only its own scope's nodes."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from apexmem_neo import Memory
from apexmem_neo.ontology.metadata import Metadata, matches
from apexmem_neo.store.columns import COLUMNS
from apexmem_neo.store.pages import every_item
from apexmem_neo.testing import HashingEmbedder
from tests.unit.store.test_contract_metadata import TRICKY, WANTED

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

CHAT: list[Any] = [
    {"role": "user", "content": "I ordered a flat white", "metadata": {"channel": "web", "n": 1}},
    {"role": "assistant", "content": "Noted, a flat white", "metadata": {"channel": "app"}},
    {"role": "user", "content": "And a croissant", "metadata": {"channel": "web", "n": True}},
    {"role": "user", "content": "One more", "metadata": {"channel": "web", "n": 1.0}},
    "No metadata here",
]


@pytest.fixture
def scope() -> str:
    return f"meta-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def memory(neo4j_driver: Driver, tmp_path: Path, scope: str) -> Iterator[Memory]:
    """A Neo4j memory holding ``CHAT`` in session "chat" of ``scope``."""
    memory = Memory.neo4j(
        neo4j_driver, embedder=HashingEmbedder(), lm=None, home=tmp_path / "home",
        index_name=f"md{uuid.uuid4().hex[:8]}",
    )  # fmt: skip
    try:
        memory.add(CHAT, scope=scope, session="chat", at="2024-05-01", extract=False)
        yield memory
    finally:
        if memory.search_index is not None:
            memory.search_index.index.drop()
        neo4j_driver.execute_query("MATCH (n) WHERE n.scope = $scope DETACH DELETE n", scope=scope)
        memory.close()


def test_metadata_is_stored_on_the_turn_node_and_read_back(
    memory: Memory, scope: str, neo4j_driver: Driver
) -> None:
    turns = memory.turns(scope).items
    assert [t.metadata for t in turns] == [
        {"channel": "web", "n": 1},
        {"channel": "app"},
        {"channel": "web", "n": True},
        {"channel": "web", "n": 1.0},
        {},
    ]
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (t:Turn) WHERE t.scope = $scope RETURN t.seq AS seq, t.metadata_json AS m, "
        "keys(t) AS keys ORDER BY seq",
        scope=scope,
    )
    assert json.loads(records[0]["m"]) == {"channel": "web", "n": 1}
    assert all(set(r["keys"]) <= set(COLUMNS["turns"]) for r in records)  # the SQL mirror


@pytest.mark.parametrize(
    "wanted",
    [{"channel": "web"}, {"n": 1}, {"n": 1.0}, {"n": True}, {"channel": "web", "n": 1}, {"x": 1}],
    ids=str,
)
def test_listing_filters_as_the_reference_rule_says(
    memory: Memory, scope: str, wanted: Metadata
) -> None:
    every = memory.turns(scope).items
    found = every_item(lambda after: memory.turns(scope, metadata=wanted, after=after, limit=1))
    assert found == [t for t in every if matches(t.metadata, wanted)]


def test_strings_that_look_like_entries_do_not_match(memory: Memory, scope: str) -> None:
    tricky = [
        {"role": "user", "content": f"tricky {n}", "metadata": m} for n, m in enumerate(TRICKY)
    ]
    memory.add(tricky, scope=scope, session="tricky", at="2024-06-01", extract=False)
    for wanted in WANTED:
        found = memory.turns(scope, session="tricky", metadata=wanted).items
        assert [t.seq for t in found] == [n for n, m in enumerate(TRICKY) if matches(m, wanted)]


def test_a_session_listing_filters_on_metadata(memory: Memory, scope: str) -> None:
    chat = memory.turns(scope, session="chat", metadata={"channel": "web"}).items
    assert [t.seq for t in chat] == [0, 2, 3]


def test_search_keeps_only_matching_turns(memory: Memory, scope: str) -> None:
    (app,) = memory.turns(scope, metadata={"channel": "app"}).items
    found = memory.search("flat white", scope=scope, k=5, metadata={"channel": "app"})
    assert [hit.graph_id for hit in found.turns] == [app.turn_id]
    assert memory.search("flat white", scope=scope, metadata={"channel": "fax"}).turns == []
