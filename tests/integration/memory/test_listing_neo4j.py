"""The listings on Neo4j: scopes, sessions, turns by session, entities and facts by read
names, keyset paged to the end, each scope behind its wall.

The Neo4j server is shared: every test uses its own scopes and search namespace and deletes
only its own scopes' nodes."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver

from apexmem_neo import Memory
from apexmem_neo.memory import UnknownSessionError
from apexmem_neo.store.pages import every_item
from apexmem_neo.testing import HashingEmbedder
from tests.unit.agent.alice import alice_batch

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]


@pytest.fixture
def scopes() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:10]
    return f"list-a-{tag}", f"list-b-{tag}"


@pytest.fixture
def memory(neo4j_driver: Driver, tmp_path: Path, scopes: tuple[str, str]) -> Iterator[Memory]:
    """A Neo4j memory holding the Alice case in two scopes and a chat session in the first."""
    memory = Memory.neo4j(
        neo4j_driver, embedder=HashingEmbedder(), lm=None, home=tmp_path / "home",
        index_name=f"ls{uuid.uuid4().hex[:8]}",
    )  # fmt: skip
    first, second = scopes
    try:
        memory.store.write(alice_batch(prefix=f"{first}_", scope=first))
        memory.store.write(alice_batch(prefix=f"{second}_", name="Bea", scope=second))
        memory.add([f"line {n}" for n in range(5)], scope=first, session="chat",
                   at="2024-05-01", extract=False)  # fmt: skip
        yield memory
    finally:
        if memory.search_index is not None:
            memory.search_index.index.drop()
        neo4j_driver.execute_query(
            "MATCH (n) WHERE n.scope IN $scopes DETACH DELETE n", scopes=list(scopes)
        )
        memory.close()


def test_scopes_and_every_kind_listed_to_the_end(memory: Memory, scopes: tuple[str, str]) -> None:
    first, second = scopes
    assert {first, second} <= set(memory.scopes())
    turns = every_item(lambda after: memory.turns(first, after=after, limit=2))
    assert len(turns) == 7 and len({t.turn_id for t in turns}) == 7
    chat = every_item(lambda after: memory.turns(first, session="chat", after=after, limit=2))
    assert [t.text for t in chat] == [f"line {n}" for n in range(5)]
    assert len(memory.sessions(first).items) == 2
    assert [e.name for e in memory.entities(second).items] == ["Bea"]
    facts = memory.facts(first, entity="alice", property="favorite restaurant", limit=1)
    assert [f.value for f in facts.items] == ["Italian Garden"] and facts.next is not None
    rest = memory.facts(first, entity="alice", property="favorite restaurant", after=facts.next)
    assert [f.value for f in rest.items] == ["Sakura Sushi"] and rest.next is None


def test_a_scope_is_a_wall_and_an_empty_one_names_the_others(
    memory: Memory, scopes: tuple[str, str]
) -> None:
    first, second = scopes
    assert not {t.turn_id for t in memory.turns(second).items} & {
        t.turn_id for t in memory.turns(first).items
    }
    with pytest.raises(UnknownSessionError):
        memory.turns(second, session="chat")
    empty = memory.entities(f"{first}-nobody")
    assert empty.items == [] and empty.next is None and empty.hint is not None
    assert empty.hint.startswith(f"scope '{first}-nobody' holds nothing; scopes: ")
    assert first in empty.hint and second in empty.hint


def test_a_search_of_an_empty_scope_names_the_others(
    memory: Memory, scopes: tuple[str, str]
) -> None:
    first, second = scopes
    found = memory.search("restaurant", scope=f"{first}-nobody")
    assert found.empty and found.hint is not None and second in found.hint
    assert memory.search("restaurant", scope=first).hint is None
