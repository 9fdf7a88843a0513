"""The shared suite's paged reads (``GraphStore.page``, ``scopes``, ``counts(scope)``): every
case runs against every backend in the registry, and on Neo4j through
tests/integration/store/test_neo4j_shared_contract.py."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from apexmem_neo.ontology import (
    Entity,
    Event,
    EventParticipant,
    Evidence,
    Fact,
    GraphBatch,
    Session,
    Turn,
)
from apexmem_neo.store import GraphStore, StoreCounts
from apexmem_neo.store.pages import (
    ENTITIES,
    EVENTS,
    EVIDENCE,
    FACTS,
    KINDS,
    PARTICIPANTS,
    PROPERTIES,
    SESSIONS,
    TURNS,
    Kind,
    Page,
    every_item,
    turn_cursor,
)
from apexmem_neo.store.protocol import InvalidCursorError, Item
from apexmem_neo.store.scoped import ScopedStore
from tests.unit.store.test_contract import scoped_batch

STAMP = "2024-06-01T00:00:00"
NAMES = ("Mom", "Dad", "Ann", "Zoe")


def paged_batch(scope: str) -> GraphBatch:
    """Two sessions of three turns, four people, an event and evidence per turn, and facts
    of two properties over time: more rows of every kind than a page of two holds."""
    people = [Entity(name=name, entity_type="Person", scope=scope) for name in NAMES]
    sessions = [Session(conversation_id=scope, seq=seq, started_at="2024-01-01") for seq in (1, 2)]
    turns = [
        Turn(session_id=s.session_id, seq=seq, speaker="user", text=f"{s.seq}.{seq} hello",
             anchor_datetime=f"2024-01-0{s.seq}")
        for s in sessions for seq in (2, 0, 1)
    ]  # fmt: skip
    evidence = [Evidence(text=t.text, turn_id=t.turn_id, span_start=0, span_end=2) for t in turns]
    events = [
        Event(event_type="chat", anchor_datetime=t.anchor_datetime, turn_id=t.turn_id,
              evidence_id=v.evidence_id)
        for t, v in zip(turns, evidence, strict=True)
    ]  # fmt: skip
    facts = [
        Fact(entity_id=person.entity_id, property=prop, value=f"{prop} {year}", dtype="str",
             t_from=f"{year}-01-01", event_id=events[i].event_id)
        for i, person in enumerate(people) for prop in ("lives_in", "job") for year in (2021, 2020)
    ]  # fmt: skip
    participants = [
        EventParticipant(event_id=ev.event_id, entity_id=person.entity_id)
        for ev in events[:3]
        for person in people[:2]
    ]
    return GraphBatch(
        scope=scope, recorded_at=STAMP, sessions=sessions, turns=turns, entities=people,
        evidence=evidence, events=events, participants=participants, facts=facts,
    )  # fmt: skip


def pages(store: GraphStore, kind: Kind[Item], scope: str, **filters: str) -> list[Page[Item]]:
    """Every page of two items of ``kind`` in ``scope``."""
    found = [store.page(kind, scope=scope, limit=2, filters=filters)]
    while found[-1].next is not None:
        found.append(store.page(kind, scope=scope, after=found[-1].next, limit=2, filters=filters))
    return found


def key(kind: Kind[Any], item: BaseModel) -> tuple[Any, ...]:
    row = item.model_dump(mode="json")
    if kind is ENTITIES:
        row["norm_name"] = item.norm_name  # type: ignore[attr-defined]
    return tuple(row[column] for column in kind.key)


def stamped(models: list[Any]) -> list[Any]:
    return [m.model_copy(update={"recorded_at": STAMP}) for m in models]


@pytest.fixture
def two_scopes(store: GraphStore) -> GraphStore:
    store.write(paged_batch("alice"))
    store.write(paged_batch("bob"))
    return store


@pytest.mark.parametrize("kind", KINDS, ids=[kind.table for kind in KINDS])
def test_every_kind_pages_through_its_scope_in_key_order(
    two_scopes: GraphStore, kind: Kind[Any]
) -> None:
    found = pages(two_scopes, kind, "alice")
    items = [item for page in found for item in page.items]
    assert all(len(page.items) == 2 for page in found[:-1]) and found[-1].items
    assert len(items) == getattr(two_scopes.counts(scope="alice"), kind.table)
    keys = [key(kind, item) for item in items]
    assert keys == sorted(set(keys))  # key order, each item once
    assert all(isinstance(item, kind.model) for item in items)
    bob = {key(kind, item) for item in every_item(lambda a: two_scopes.page(kind, scope="bob",
                                                                          after=a))}  # fmt: skip
    assert not bob & set(keys) or kind in (PROPERTIES, PARTICIPANTS)  # names are per scope


def test_pages_read_back_the_models_written(two_scopes: GraphStore) -> None:
    batch = paged_batch("alice")

    def read(kind: Kind[Item]) -> list[Item]:
        return every_item(lambda after: two_scopes.page(kind, scope="alice", after=after))

    assert read(SESSIONS) == sorted(stamped(batch.sessions), key=lambda s: s.session_id)
    assert read(TURNS) == sorted(stamped(batch.turns), key=lambda t: (t.session_id, t.seq))
    assert read(ENTITIES) == sorted(stamped(batch.entities), key=lambda e: e.norm_name)
    assert read(EVIDENCE) == sorted(stamped(batch.evidence), key=lambda v: v.evidence_id)
    assert read(EVENTS) == sorted(stamped(batch.events), key=lambda e: e.event_id)
    assert {(p.event_id, p.entity_id, p.role) for p in read(PARTICIPANTS)} == {
        (p.event_id, p.entity_id, p.role) for p in batch.participants
    }
    assert [p.name for p in read(PROPERTIES)] == ["job", "lives_in"]
    assert all(p.recorded_at == STAMP and p.scope == "alice" for p in read(PROPERTIES))
    facts = read(FACTS)
    assert {f.fact_id for f in facts} == {f.fact_id for f in batch.facts}
    assert all(f.recorded_at == STAMP and f.value.endswith(("2020", "2021")) for f in facts)


def test_filters_read_one_session_and_one_entitys_history(two_scopes: GraphStore) -> None:
    first = paged_batch("alice").sessions[0].session_id
    turns = [t for page in pages(two_scopes, TURNS, "alice", session_id=first) for t in page.items]
    assert [t.seq for t in turns] == [0, 1, 2] and {t.session_id for t in turns} == {first}
    (mom,) = two_scopes.find_entities("Mom", scope="alice")
    facts = [f for p in pages(two_scopes, FACTS, "alice", entity_id=mom.entity_id) for f in p.items]
    assert [(f.property, f.t_from[:4]) for f in facts] == [
        ("job", "2020"), ("job", "2021"), ("lives_in", "2020"), ("lives_in", "2021"),
    ]  # fmt: skip
    one = pages(two_scopes, FACTS, "alice", entity_id=mom.entity_id, property="job")
    assert [f for p in one for f in p.items] == two_scopes.history(mom.entity_id, "job")
    jobs = [f for p in pages(two_scopes, FACTS, "alice", property="job") for f in p.items]
    assert len(jobs) == 8 and {f.property for f in jobs} == {"job"}
    assert two_scopes.page(TURNS, scope="bob", filters={"session_id": first}).items == []


def test_a_turn_cursor_starts_a_session_at_a_turn(two_scopes: GraphStore) -> None:
    first = paged_batch("alice").sessions[0].session_id
    page = two_scopes.page(
        TURNS, scope="alice", after=turn_cursor(first, 1), filters={"session_id": first}
    )
    assert [t.seq for t in page.items] == [1, 2] and page.next is None


def test_an_empty_scope_has_one_empty_page(two_scopes: GraphStore) -> None:
    for kind in KINDS:
        assert two_scopes.page(kind, scope="carol") == kind.page([], None)
    assert two_scopes.counts(scope="carol") == StoreCounts()


def test_a_row_written_between_pages_skips_no_other_row(store: GraphStore) -> None:
    store.write(scoped_batch("alice", "Lisbon", who="Mom"))
    store.write(scoped_batch("alice", "Porto", seq=2, who="Zoe"))
    first = store.page(ENTITIES, scope="alice", limit=1)
    store.write(scoped_batch("alice", "Faro", seq=3, who="Ann"))  # before the cursor
    rest = every_item(lambda after: store.page(ENTITIES, scope="alice", after=after or first.next))
    assert [e.name for e in first.items + rest] == ["Mom", "Zoe"]


def test_bad_cursors_filters_and_limits_are_refused(two_scopes: GraphStore) -> None:
    sessions = [s.session_id for s in paged_batch("alice").sessions]
    for cursor in ("nonsense", "[]", '["a", "b", "c"]', '{"a": 1}', "[1]"):
        with pytest.raises(InvalidCursorError):
            two_scopes.page(TURNS, scope="alice", after=cursor)
    with pytest.raises(InvalidCursorError, match="another session_id"):
        two_scopes.page(
            TURNS, scope="alice", after=turn_cursor(sessions[0], 0),
            filters={"session_id": sessions[1]},
        )  # fmt: skip
    with pytest.raises(ValueError, match="filter on session_id"):
        two_scopes.page(TURNS, scope="alice", filters={"speaker": "user"})
    for limit in (0, 10_001):
        with pytest.raises(ValueError, match="limit"):
            two_scopes.page(SESSIONS, scope="alice", limit=limit)


def test_scopes_and_scope_counts(two_scopes: GraphStore) -> None:
    two_scopes.write(GraphBatch(scope="carol", entities=[Entity(name="Rex", entity_type="Animal",
                                                                scope="carol")]))  # fmt: skip
    assert two_scopes.scopes() == ["alice", "bob", "carol"]
    counts = two_scopes.counts(scope="alice")
    assert counts == StoreCounts(
        sessions=2, turns=6, entities=4, properties=2, evidence=6, events=6,
        event_participants=6, facts=16,
    )  # fmt: skip
    assert two_scopes.counts(scope="carol") == StoreCounts(entities=1)
    total = two_scopes.counts()
    assert total.entities == 9 and total.facts == 32


def test_a_scoped_store_pages_and_counts_only_its_own_scope(two_scopes: GraphStore) -> None:
    alice = ScopedStore(two_scopes, "alice")
    assert alice.page(SESSIONS, scope="bob") == two_scopes.page(SESSIONS, scope="alice")
    assert alice.counts() == two_scopes.counts(scope="alice")
    assert alice.scopes() == ["alice"] and ScopedStore(two_scopes, "carol").scopes() == []
