"""ApexMemStore on a Neo4j memory: the same items, history, search and namespaces as on
SQLite (the store goes through Memory only, so the backend must not show through).

The Neo4j server is shared: every test uses namespaces under its own root label and search
index, and deletes only the nodes of its own scopes."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver

from apexmem_neo import Memory
from apexmem_neo.integrations.langgraph import SESSION, ApexMemStore
from apexmem_neo.testing import HashingEmbedder

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]


@pytest.fixture
def root() -> str:
    return f"lg{uuid.uuid4().hex[:10]}"


@pytest.fixture
def memory(neo4j_driver: Driver, tmp_path: Path, root: str) -> Iterator[Memory]:
    memory = Memory.neo4j(
        neo4j_driver, embedder=HashingEmbedder(), lm=None, home=tmp_path / "home",
        index_name=f"lg{uuid.uuid4().hex[:8]}",
    )  # fmt: skip
    try:
        yield memory
    finally:
        if memory.search_index is not None:
            memory.search_index.index.drop()
        neo4j_driver.execute_query(
            "MATCH (n) WHERE n.scope STARTS WITH $root DETACH DELETE n", root=f"{root}/"
        )
        memory.close()


def test_items_history_search_and_namespaces_on_neo4j(memory: Memory, root: str) -> None:
    store = ApexMemStore(memory)
    alice, bob = (root, "alice"), (root, "bob")
    store.put(alice, "food", {"text": "Alice likes sushi", "kind": "pref"})
    store.put(alice, "pet", {"text": "Alice has a cat named Miso", "kind": "fact", "n": 2})
    store.put(bob, "food", {"text": "Bob likes pizza", "kind": "pref"})
    first = store.get(alice, "food")
    store.put(alice, "food", {"text": "Alice likes ramen now", "kind": "pref"})
    latest = store.get(alice, "food")
    assert first is not None and latest is not None
    assert latest.value["text"] == "Alice likes ramen now"
    assert latest.created_at == first.created_at < latest.updated_at
    turns = memory.turns(f"{root}/alice", session=SESSION).items
    assert [t.metadata["langgraph.key"] for t in turns] == ["food", "pet", "food"]

    assert [i.key for i in store.search(alice)] == ["food", "pet"]
    assert [i.key for i in store.search((root,), filter={"n": {"$gte": 2}})] == ["pet"]
    ranked = store.search((root,), query="cat named Miso")
    assert ranked[0].key == "pet" and isinstance(ranked[0].score, float)
    found = store.search((root,), query="sushi", filter={"kind": "pref"})
    assert {(i.namespace, i.value["text"]) for i in found} == {
        (alice, "Alice likes ramen now"),
        (bob, "Bob likes pizza"),
    }

    store.delete(bob, "food")
    assert store.get(bob, "food") is None
    assert store.list_namespaces(prefix=(root,)) == [alice]
