"""Listing a memory (scopes, sessions, turns, entities, facts) on real SQLite, keyset paged."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from apexmem_neo import AsyncMemory, Memory
from apexmem_neo.errors import UnknownEntityError, UnknownSessionError
from apexmem_neo.store.protocol import InvalidCursorError
from apexmem_neo.testing import HashingEmbedder
from tests.unit.agent.alice import alice_batch


def open_memory(tmp_path: Path) -> Memory:
    return Memory.sqlite(
        tmp_path / "m.sqlite", home=tmp_path / "home", embedder=HashingEmbedder(), lm=None
    )


def filled(tmp_path: Path) -> Memory:
    memory = open_memory(tmp_path)
    memory.store.write(alice_batch(prefix="a_", scope="alice"))
    memory.store.write(alice_batch(prefix="b_", name="Bea", scope="bea"))
    memory.add(
        ["one", "two", "three"], scope="alice", session="chat", at="2024-05-01", extract=False
    )
    return memory


def test_scopes_list_the_scopes_that_hold_rows(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        assert memory.scopes() == ["alice", "bea"]


def test_turns_page_by_cursor_and_stay_in_their_scope(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        first = memory.turns("alice", limit=3)
        assert len(first.items) == 3 and first.next is not None and first.hint is None
        rest = memory.turns("alice", after=first.next, limit=3)
        assert len(rest.items) == 2 and rest.next is None
        texts = {t.text for t in first.items + rest.items}
        assert {"one", "two", "three"} <= texts
        assert all(t.session_id.startswith(("a_", "ses")) for t in first.items + rest.items)
        assert not {t.turn_id for t in memory.turns("bea").items} & {
            t.turn_id for t in first.items + rest.items
        }


def test_turns_of_one_session_by_name_and_an_unknown_session(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        chat = memory.turns("alice", session="chat")
        assert [t.text for t in chat.items] == ["one", "two", "three"]
        assert memory.turns("alice", session=chat.items[0].session_id).items == chat.items
        with pytest.raises(UnknownSessionError, match="no session 'nope' in scope 'alice'"):
            memory.turns("alice", session="nope")
        with pytest.raises(UnknownSessionError):
            memory.turns("bea", session="chat")  # alice's session is past bea's wall


def test_sessions_and_entities_are_typed(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        sessions = memory.sessions("alice")
        assert len(sessions.items) == 2 and sessions.next is None
        entities = memory.entities("bea")
        assert [e.name for e in entities.items] == ["Bea"]
        assert entities.scope == "bea"


def test_facts_by_entity_and_property_resolve_read_names(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        facts = memory.facts("alice", entity="alice", property="favorite restaurant")
        assert [f.value for f in facts.items] == ["Italian Garden", "Sakura Sushi"]
        assert memory.facts("alice", property="Favorite Restaurant").items == facts.items
        assert len(memory.facts("alice").items) == 2
        paged = memory.facts("alice", limit=1)
        assert len(paged.items) == 1 and paged.next is not None
        assert memory.facts("alice", after=paged.next).items == facts.items[1:]
        with pytest.raises(UnknownEntityError):
            memory.facts("alice", entity="Bea")


def test_an_empty_scope_raises_nothing_and_names_the_scopes(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        for listing in (memory.turns("default"), memory.entities("default"), memory.facts("x")):
            assert listing.items == [] and listing.next is None
            assert listing.hint is not None and listing.hint.endswith("scopes: alice, bea")
        assert memory.turns("default").hint == "scope 'default' holds nothing; scopes: alice, bea"


def test_bad_cursor_and_limit_are_refused(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        with pytest.raises(InvalidCursorError):
            memory.turns("alice", after="not a cursor")
        with pytest.raises(ValueError, match="limit"):
            memory.entities("alice", limit=0)


def test_listings_serialise_to_json(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        for listing in (
            memory.sessions("alice"),
            memory.turns("alice"),
            memory.entities("alice"),
            memory.facts("alice"),
            memory.turns("default"),
        ):
            data = json.loads(json.dumps(listing.model_dump(mode="json")))
            assert set(data) == {"items", "next", "scope", "hint"}


def test_async_listings(tmp_path: Path) -> None:
    async def run() -> None:
        async with AsyncMemory(filled(tmp_path)) as memory:
            assert await memory.scopes() == ["alice", "bea"]
            turns = await memory.turns("alice", session="chat", limit=2)
            assert [t.text for t in turns.items] == ["one", "two"] and turns.next
            facts = await memory.facts("alice", entity="Alice")
            assert len(facts.items) == 2
            assert len((await memory.entities("bea")).items) == 1
            assert len((await memory.sessions("bea")).items) == 1

    asyncio.run(run())


def test_a_message_timestamp_may_be_a_datetime(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        moment = datetime(2024, 6, 10, 9, 30, tzinfo=UTC)
        added = memory.add(
            [
                {"role": "user", "content": "hi", "timestamp": moment},
                {"role": "user", "content": "naive", "timestamp": datetime(2024, 6, 11, 8)},
                {"role": "user", "content": "iso", "timestamp": "2024-06-12T07:00:00"},
            ],
            scope="s",
            extract=False,
        )
        anchors = [t.anchor for t in added.turns]
        assert anchors == ["2024-06-10T09:30:00", "2024-06-11T08:00:00", "2024-06-12T07:00:00"]


def test_a_search_of_an_empty_scope_names_the_scopes(tmp_path: Path) -> None:
    with filled(tmp_path) as memory:
        found = memory.search("restaurant", scope="default")
        assert found.empty and found.hint == "scope 'default' holds nothing; scopes: alice, bea"
        held = memory.search("restaurant", scope="alice")
        assert not held.empty and held.hint is None
