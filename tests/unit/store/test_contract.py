"""The shared GraphStore suite: every case runs against every backend in the registry."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest

from apexmem_neo.errors import AmbiguousEntityError, UnknownEntityError
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
from apexmem_neo.store import (
    DanglingReferenceError,
    GraphStore,
    StoreCounts,
    UnknownReferenceError,
)
from apexmem_neo.store.erasure import ErasureTarget
from apexmem_neo.store.scoped import ScopedStore
from apexmem_neo.tools.names import resolve_entity, resolve_property

ALICE = Entity(name="Alice Smith", entity_type="Person", role="Speaker")
BOB = Entity(name="Bob", entity_type="Person")
ACME = Entity(name="Acme", entity_type="Corporation")


def fact(
    value: Any,
    t_from: str,
    t_to: str | None = None,
    *,
    recorded_at: str = "2024-01-01",
    prop: str = "home_city",
    dtype: str = "str",
    entity: Entity = ALICE,
    **extra: Any,
) -> Fact:
    return Fact(
        entity_id=entity.entity_id,
        property=prop,
        value=value,
        dtype=dtype,
        t_from=t_from,
        t_to=t_to,
        recorded_at=recorded_at,
        **extra,
    )


def write_facts(store: GraphStore, *facts: Fact) -> None:
    store.write(GraphBatch(entities=[ALICE, BOB, ACME], facts=list(facts)))


def values(records: list[Any]) -> list[Any]:
    return [r.value for r in records]


def conversation_batch() -> GraphBatch:
    session = Session(conversation_id="conv-1", seq=1, started_at="2023-05-08T13:56:00")
    turn = Turn(
        session_id=session.session_id,
        seq=0,
        speaker="Alice Smith",
        listener="Bob",
        text="I moved to Boston last week!",
        anchor_datetime="2023-05-08T13:56:00",
    )
    evidence = Evidence(text="moved to Boston", turn_id=turn.turn_id, span=(2, 17))
    event = Event(
        event_type="relocation",
        anchor_datetime="2023-05-01",
        location="Boston",
        turn_id=turn.turn_id,
        evidence_id=evidence.evidence_id,
    )
    moved = Fact(
        subject=ALICE.entity_id,
        property="home_city",
        value="Boston",
        dtype="str",
        t_from="2023-05-01",
        confidence=0.9,
        event_id=event.event_id,
        evidence_id=evidence.evidence_id,
    )
    return GraphBatch(
        sessions=[session],
        turns=[turn],
        entities=[ALICE, BOB],
        evidence=[evidence],
        events=[event],
        participants=[EventParticipant(event_id=event.event_id, entity_id=ALICE.entity_id)],
        facts=[moved],
    )


# ---- schema, writes, idempotence, atomicity ----


def test_new_store_is_empty_and_init_schema_is_idempotent(store: GraphStore) -> None:
    store.init_schema()
    assert store.counts() == StoreCounts()


def test_conversation_batch_lands_in_every_table(store: GraphStore) -> None:
    store.write(conversation_batch())
    assert store.counts() == StoreCounts(
        sessions=1,
        turns=1,
        entities=2,
        properties=1,
        evidence=1,
        events=1,
        event_participants=1,
        facts=1,
    )


def test_rewriting_the_same_batch_adds_nothing_and_changes_nothing(store: GraphStore) -> None:
    batch = conversation_batch()
    store.write(batch)
    first = store.counts(), store.history(ALICE.entity_id, "home_city")
    store.write(batch)
    store.write(conversation_batch())
    assert (store.counts(), store.history(ALICE.entity_id, "home_city")) == first


def test_recorded_at_comes_from_the_clock_when_missing(store: GraphStore) -> None:
    store.write(conversation_batch())
    (record,) = store.history(ALICE.entity_id, "home_city")
    assert record.recorded_at.startswith("2030-01-01T00:00:")
    assert record.confidence == 0.9


def test_batch_recorded_at_is_the_default(store: GraphStore) -> None:
    f = Fact(subject=ALICE.entity_id, property="age", value=30, dtype="int", t_from="2020-01-01")
    store.write(GraphBatch(entities=[ALICE], facts=[f], recorded_at="2024-02-02T10:00:00Z"))
    assert store.history(ALICE.entity_id, "age")[0].recorded_at == "2024-02-02T10:00:00"


def test_dangling_reference_rejects_the_whole_batch(store: GraphStore) -> None:
    orphan = fact("Paris", "2023-01-01", entity=Entity(name="Nobody", entity_type="Person"))
    batch = GraphBatch(entities=[ALICE], facts=[fact("Boston", "2023-01-01"), orphan])
    with pytest.raises(DanglingReferenceError) as info:
        store.write(batch)
    assert info.value.field == "entity_id"
    assert info.value.value == orphan.entity_id
    assert store.counts() == StoreCounts()


def test_references_may_point_at_rows_written_earlier(store: GraphStore) -> None:
    store.write(GraphBatch(entities=[ALICE]))
    store.write(GraphBatch(facts=[fact("Boston", "2023-01-01")]))
    assert store.counts().facts == 1


def test_dangling_event_reference_is_rejected(store: GraphStore) -> None:
    bad = fact("Boston", "2023-01-01", event_id="ev_missing")
    with pytest.raises(DanglingReferenceError, match="event_id 'ev_missing'"):
        write_facts(store, bad)
    assert store.counts().facts == 0


def test_conflicting_facts_coexist(store: GraphStore) -> None:
    write_facts(store, fact("Boston", "2023-01-01"), fact("Paris", "2023-01-01"))
    assert store.counts().facts == 2
    assert sorted(values(store.history(ALICE.entity_id, "home_city"))) == ["Boston", "Paris"]


# ---- lookups ----


def test_get_and_find_entities(store: GraphStore) -> None:
    write_facts(store)
    assert store.get_entity(ALICE.entity_id) == ALICE.model_copy(
        update={"recorded_at": store.get_entity(ALICE.entity_id).recorded_at}  # type: ignore[union-attr]
    )
    assert store.get_entity("ent_nope") is None
    assert [e.entity_id for e in store.find_entities("  alice   SMITH ")] == [ALICE.entity_id]
    assert store.find_entities("Alice Smith", entity_type="Corporation") == []  # type: ignore[arg-type]
    assert store.find_entities("Alice") == []


def test_list_entities_lists_one_scope_with_aliases(store: GraphStore) -> None:
    write_facts(store)
    mom = Entity(name="Mom", entity_type="Person", aliases=("Mother", "Ma"), scope="alice")
    store.write(GraphBatch(scope="alice", entities=[mom]))
    listed = store.list_entities()
    assert [e.entity_id for e in listed] == sorted(e.entity_id for e in (ALICE, BOB, ACME))
    (only,) = store.list_entities(scope="alice")
    assert (only.entity_id, only.name, only.aliases) == (mom.entity_id, "Mom", ("Mother", "Ma"))
    assert store.list_entities(scope="nobody") == []
    assert [e.name for e in ScopedStore(store, "alice").list_entities(scope="default")] == ["Mom"]


def test_reads_resolve_names_within_the_scope_on_every_backend(store: GraphStore) -> None:
    """``apexmem_neo.tools.names`` over a scoped view: aliases, first names, spellings and
    lexicon synonyms resolve; another scope's names are never candidates."""
    lee = Entity(name="Maya Lee", entity_type="Person", scope="alice")
    chen = Entity(name="Maya Chen", entity_type="Person", scope="alice")
    mom = Entity(name="Mom", entity_type="Person", aliases=("Mother",), scope="alice")
    likes = Fact(entity_id=lee.entity_id, property="favourite_restaurant", value="Sakura Sushi",
                 dtype="str", t_from="2024-01-01")  # fmt: skip
    store.write(GraphBatch(scope="alice", entities=[lee, chen, mom], facts=[likes]))
    store.write(
        GraphBatch(scope="bob", entities=[Entity(name="Bob", entity_type="Person", scope="bob")])
    )
    alice = ScopedStore(store, "alice")
    assert resolve_entity(alice, "the MOTHER").entity_id == mom.entity_id
    assert resolve_entity(alice, "maya-lee").entity_id == lee.entity_id
    assert resolve_entity(alice, "Maya Leee").entity_id == lee.entity_id
    with pytest.raises(AmbiguousEntityError, match="Maya Chen .*Maya Lee|Maya Lee .*Maya Chen"):
        resolve_entity(alice, "Maya")
    with pytest.raises(UnknownEntityError) as caught:
        resolve_entity(alice, "Bob", "alice")
    assert "in scope 'alice'" in str(caught.value) and "Bob (" not in str(caught.value)
    assert set(caught.value.nearest) == {"Maya Lee", "Maya Chen", "Mom"}
    assert resolve_property(alice, lee.entity_id, "favorite restaurant") == "favourite_restaurant"
    assert resolve_property(alice, lee.entity_id, "favourite_resturant") == "favourite_restaurant"
    assert resolve_property(alice, lee.entity_id, "Employer") == "employer"  # holds no facts
    assert alice.history(lee.entity_id, "employer") == []


def test_get_event(store: GraphStore) -> None:
    batch = conversation_batch()
    store.write(batch)
    event = store.get_event(batch.events[0].event_id)
    assert event is not None
    assert (event.event_type, event.anchor_datetime, event.location) == (
        "relocation",
        "2023-05-01T00:00:00",
        "Boston",
    )
    assert store.get_event("ev_nope") is None


# ---- current / as_of ----


def test_queries_on_unknown_pairs_are_empty(store: GraphStore) -> None:
    write_facts(store)
    e = ALICE.entity_id
    assert store.current(e, "home_city") is None
    assert store.as_of(e, "home_city", "2023-01-01") is None
    assert store.history(e, "home_city") == []
    assert store.changes(e, "home_city") == []
    assert store.before(e, "home_city", "2023-01-01") is None
    assert store.facts_between(e, "2000-01-01", "2100-01-01") == []
    assert store.known_as_of(e, "home_city", "2100-01-01") is None


def test_current_is_the_latest_t_from(store: GraphStore) -> None:
    write_facts(
        store,
        fact("Paris", "2023-06-01", recorded_at="2023-06-02"),
        fact("Boston", "2023-01-01", recorded_at="2023-07-01"),  # learned late, older
    )
    assert store.current(ALICE.entity_id, "home_city").value == "Paris"  # type: ignore[union-attr]


def test_current_tie_on_t_from_goes_to_latest_recorded_at(store: GraphStore) -> None:
    write_facts(
        store,
        fact("Boston", "2023-01-01", recorded_at="2023-03-01"),
        fact("Paris", "2023-01-01", recorded_at="2023-02-01"),
    )
    assert store.current(ALICE.entity_id, "home_city").value == "Boston"  # type: ignore[union-attr]


def test_full_tie_goes_to_greatest_fact_id(store: GraphStore) -> None:
    a, b = fact("Boston", "2023-01-01"), fact("Paris", "2023-01-01")
    write_facts(store, a, b)
    winner = max(a, b, key=lambda f: f.fact_id)
    assert store.current(ALICE.entity_id, "home_city").fact_id == winner.fact_id  # type: ignore[union-attr]
    assert store.as_of(ALICE.entity_id, "home_city", "2024-01-01").fact_id == winner.fact_id  # type: ignore[union-attr]


def test_as_of_uses_closed_intervals(store: GraphStore) -> None:
    write_facts(store, fact("Boston", "2023-01-01", "2023-03-01"))
    e = ALICE.entity_id
    assert store.as_of(e, "home_city", "2022-12-31T23:59:59") is None
    assert store.as_of(e, "home_city", "2023-01-01").value == "Boston"  # type: ignore[union-attr]
    assert store.as_of(e, "home_city", "2023-03-01").value == "Boston"  # type: ignore[union-attr]
    assert store.as_of(e, "home_city", "2023-03-01T00:00:01") is None


def test_as_of_falls_back_to_an_open_fact_when_a_later_one_closed(store: GraphStore) -> None:
    write_facts(
        store,
        fact("Boston", "2020-01-01"),
        fact("Paris", "2023-01-01", "2023-02-01"),
    )
    e = ALICE.entity_id
    assert store.as_of(e, "home_city", "2023-01-15").value == "Paris"  # type: ignore[union-attr]
    assert store.as_of(e, "home_city", "2023-06-01").value == "Boston"  # type: ignore[union-attr]
    assert store.current(e, "home_city", now="2023-06-01").value == "Boston"  # type: ignore[union-attr]
    assert store.current(e, "home_city").value == "Paris"  # type: ignore[union-attr]


def test_an_end_stops_the_earlier_value_from_its_time(store: GraphStore) -> None:
    """A fact whose value is None (an end: "I don't live in Boston anymore") is stored and
    read like any other, so the earlier value stops applying from its t_from."""
    write_facts(store, fact("Boston", "2020-01-01"), fact(None, "2023-01-01"))
    e = ALICE.entity_id
    assert store.as_of(e, "home_city", "2022-06-01").value == "Boston"  # type: ignore[union-attr]
    ended = store.as_of(e, "home_city", "2023-06-01")
    assert ended is not None and ended.value is None and ended.value_json == "null"
    assert store.current(e, "home_city").value is None  # type: ignore[union-attr]
    changes = store.changes(e, "home_city")
    assert [(c.old_value, c.new_value) for c in changes] == [("Boston", None)]


def test_query_times_are_normalised(store: GraphStore) -> None:
    write_facts(store, fact("Boston", "2023-01-01T10:00:00", "2023-01-01T12:00:00"))
    e = ALICE.entity_id
    plus_two = timezone(timedelta(hours=2))
    assert store.as_of(e, "home_city", datetime(2023, 1, 1, 13, 30, tzinfo=plus_two))
    assert store.as_of(e, "home_city", datetime(2023, 1, 1, 11, 0, 0, 999, tzinfo=UTC))
    assert store.as_of(e, "home_city", date(2023, 1, 1)) is None
    assert store.as_of(e, "home_city", "2023-01-01T11:00:00Z")


# ---- history / changes ----


def test_history_is_in_k_order(store: GraphStore) -> None:
    write_facts(
        store,
        fact("C", "2023-03-01"),
        fact("A", "2023-01-01", recorded_at="2023-05-01"),
        fact("B", "2023-01-01", recorded_at="2023-04-01"),
    )
    assert values(store.history(ALICE.entity_id, "home_city")) == ["B", "A", "C"]


def test_changes_skip_repeats_and_see_returns(store: GraphStore) -> None:
    write_facts(
        store,
        fact("Boston", "2020-01-01"),
        fact("Boston", "2021-01-01"),
        fact("Paris", "2022-01-01"),
        fact("Boston", "2023-01-01"),
    )
    changes = store.changes(ALICE.entity_id, "home_city")
    assert [(c.changed_at, c.old_value, c.new_value) for c in changes] == [
        ("2022-01-01T00:00:00", "Boston", "Paris"),
        ("2023-01-01T00:00:00", "Paris", "Boston"),
    ]


def test_changes_compare_typed_values(store: GraphStore) -> None:
    write_facts(
        store,
        fact(3, "2020-01-01", prop="score", dtype="int"),
        fact(3.0, "2021-01-01", prop="score", dtype="float"),
        fact(3.0, "2022-01-01", prop="score", dtype="float"),
    )
    assert len(store.changes(ALICE.entity_id, "score")) == 1


# ---- before ----


def test_before_a_date_is_the_value_just_before(store: GraphStore) -> None:
    write_facts(store, fact("Boston", "2020-01-01"), fact("Paris", "2023-01-01"))
    e = ALICE.entity_id
    assert store.before(e, "home_city", "2023-01-01").value == "Boston"  # type: ignore[union-attr]
    assert store.before(e, "home_city", "2023-01-01T00:00:01").value == "Paris"  # type: ignore[union-attr]
    assert store.before(e, "home_city", date(2020, 1, 1)) is None
    assert store.before(e, "home_city", "0001-01-01") is None


def test_before_an_event(store: GraphStore) -> None:
    batch = conversation_batch()
    store.write(batch)
    write_facts(store, fact("Denver", "2019-01-01"))
    event_id = batch.events[0].event_id
    assert store.before(ALICE.entity_id, "home_city", event_id).value == "Denver"  # type: ignore[union-attr]
    with pytest.raises(UnknownReferenceError):
        store.before(ALICE.entity_id, "home_city", "ev_unknown")


# ---- facts_between / known_as_of ----


def test_facts_between_returns_facts_that_began_in_the_window(store: GraphStore) -> None:
    write_facts(
        store,
        fact("Boston", "2020-01-01", "2021-12-31"),  # overlaps but began before: out
        fact("Paris", "2022-01-01"),
        fact(30, "2021-06-01", "2021-06-30", prop="age", dtype="int"),
        fact(True, "2020-12-31", prop="is_student", dtype="bool"),
        fact("Rome", "2019-01-01", "2019-12-31"),
        fact("Lima", "2021-06-01", prop="home_city"),
        fact("Acme", "2021-01-01", entity=BOB, prop="employer"),
        fact("Oslo", "2022-01-01T00:00:01"),
    )
    found = store.facts_between(ALICE.entity_id, "2020-12-31", "2022-01-01")
    assert [(f.t_from[:10], f.property, f.value) for f in found] == [
        ("2020-12-31", "is_student", True),
        ("2021-06-01", "age", 30),
        ("2021-06-01", "home_city", "Lima"),
        ("2022-01-01", "home_city", "Paris"),
    ]
    with pytest.raises(ValueError, match="after"):
        store.facts_between(ALICE.entity_id, "2022-01-01", "2021-01-01")


def test_known_as_of_hides_what_was_learned_later(store: GraphStore) -> None:
    write_facts(
        store,
        fact("Boston", "2020-01-01", recorded_at="2020-01-05"),
        fact("Paris", "2021-01-01", recorded_at="2022-06-01"),  # learned 18 months late
    )
    e = ALICE.entity_id
    assert store.known_as_of(e, "home_city", "2021-06-01").value == "Boston"  # type: ignore[union-attr]
    assert store.known_as_of(e, "home_city", "2022-06-01").value == "Paris"  # type: ignore[union-attr]
    assert store.known_as_of(e, "home_city", "2020-01-04") is None
    at = store.known_as_of(e, "home_city", "2023-01-01", at="2020-06-01")
    assert at is not None and at.value == "Boston"


# ---- value round trips ----


@pytest.mark.parametrize(
    ("dtype", "given", "stored", "extra"),
    [
        ("str", "héllo", "héllo", {}),
        ("int", 42, 42, {}),
        ("float", 2, 2.0, {}),
        ("bool", False, False, {}),
        ("date", date(2023, 5, 1), "2023-05-01", {}),
        ("datetime", "2023-05-01T10:00:00+02:00", "2023-05-01T08:00:00", {}),
        ("enum", "high", "high", {"enum_values": ("low", "high")}),
        ("url", "https://example.org/x?y=1", "https://example.org/x?y=1", {}),
        ("list", ("a", 1, None, {"k": [True]}), ["a", 1, None, {"k": [True]}], {}),
    ],
)
def test_values_round_trip(
    store: GraphStore, dtype: str, given: Any, stored: Any, extra: dict[str, Any]
) -> None:
    write_facts(store, fact(given, "2023-01-01", prop="some_value", dtype=dtype, **extra))
    record = store.current(ALICE.entity_id, "some_value")
    assert record is not None
    assert (record.value, record.dtype.value) == (stored, dtype)
    assert type(record.value) is type(stored)


def test_every_backend_satisfies_the_protocol(store: GraphStore) -> None:
    assert isinstance(store, GraphStore)


def scoped_batch(scope: str, city: str, seq: int = 1, who: str = "Mom") -> GraphBatch:
    """One session of a user's conversation: "<who> lives in <city>" said in ``scope``."""
    session = Session(conversation_id=scope, seq=seq, started_at="2024-01-01")
    turn = Turn(
        session_id=session.session_id,
        seq=1,
        speaker="user",
        text=f"{who} lives in {city}",
        anchor_datetime="2024-01-01",
    )
    mom = Entity(name=who, entity_type="Person", scope=scope)
    evidence = Evidence(text=turn.text, turn_id=turn.turn_id, span_start=0, span_end=3)
    event = Event(
        event_type="move",
        anchor_datetime="2024-01-01",
        turn_id=turn.turn_id,
        evidence_id=evidence.evidence_id,
    )
    home = Fact(
        entity_id=mom.entity_id,
        property="lives_in",
        value=city,
        dtype="str",
        t_from="2024-01-01",
        event_id=event.event_id,
        evidence_id=evidence.evidence_id,
    )
    return GraphBatch(
        scope=scope,
        sessions=[session],
        turns=[turn],
        entities=[mom],
        evidence=[evidence],
        events=[event],
        participants=[EventParticipant(event_id=event.event_id, entity_id=mom.entity_id)],
        facts=[home],
    )


def test_two_scopes_mom_are_two_entities_with_their_own_histories(store: GraphStore) -> None:
    store.write(scoped_batch("alice", "Lisbon"))
    store.write(scoped_batch("bob", "Oslo"))
    (alice_mom,) = store.find_entities("Mom", scope="alice")
    (bob_mom,) = store.find_entities("Mom", scope="bob")
    assert alice_mom.entity_id != bob_mom.entity_id
    assert (alice_mom.scope, bob_mom.scope) == ("alice", "bob")
    assert values(store.history(alice_mom.entity_id, "lives_in")) == ["Lisbon"]
    assert values(store.history(bob_mom.entity_id, "lives_in")) == ["Oslo"]
    assert store.get_entity(bob_mom.entity_id, scope="alice") is None
    assert store.get_entity(bob_mom.entity_id, scope="bob") == bob_mom
    assert store.find_entities("Mom") == []  # the default scope holds no Mom


def test_a_batch_cannot_reference_another_scopes_rows(store: GraphStore) -> None:
    store.write(scoped_batch("alice", "Lisbon"))
    (alice_mom,) = store.find_entities("Mom", scope="alice")
    intruder = GraphBatch(
        scope="mallory",
        facts=[
            Fact(
                entity_id=alice_mom.entity_id,
                property="lives_in",
                value="Nowhere",
                dtype="str",
                t_from="2025-01-01",
            )
        ],
    )
    with pytest.raises(DanglingReferenceError):
        store.write(intruder)
    assert values(store.history(alice_mom.entity_id, "lives_in")) == ["Lisbon"]


def test_a_batch_holds_one_scope() -> None:
    with pytest.raises(ValueError, match="scope"):
        GraphBatch(scope="alice", entities=[Entity(name="Mom", entity_type="Person")])


def erase_fixture(store: GraphStore) -> None:
    store.write(scoped_batch("alice", "Lisbon"))
    store.write(scoped_batch("alice", "Porto", seq=2, who="Dad"))
    store.write(scoped_batch("bob", "Oslo"))


def test_erasing_a_session_takes_what_it_said_and_nothing_else(store: GraphStore) -> None:
    erase_fixture(store)
    before = store.counts()
    (first,) = scoped_batch("alice", "Lisbon").sessions
    erased = store.erase(ErasureTarget(scope="alice", sessions=(first.session_id,)))
    assert erased.kind == "sessions" and erased.erased_ids["session"] == [first.session_id]
    (mom,) = scoped_batch("alice", "Lisbon").entities
    assert erased.erased_ids["entity"] == [mom.entity_id]  # nothing else spoke of her
    assert store.find_entities("Mom", scope="alice") == []
    (dad,) = store.find_entities("Dad", scope="alice")
    assert values(store.history(dad.entity_id, "lives_in")) == ["Porto"]
    (bob_mom,) = store.find_entities("Mom", scope="bob")
    assert values(store.history(bob_mom.entity_id, "lives_in")) == ["Oslo"]
    after = store.counts()
    assert (before.turns - after.turns, before.facts - after.facts) == (1, 1)
    assert erased.counts["turns"] == 1 and erased.counts["facts"] == 1


def test_erasing_an_entity_keeps_the_turns_that_named_it(store: GraphStore) -> None:
    erase_fixture(store)
    (dad,) = store.find_entities("Dad", scope="alice")
    before = store.counts()
    erased = store.erase(ErasureTarget(scope="alice", entities=(dad.entity_id,)))
    assert erased.erased_ids["entity"] == [dad.entity_id]
    assert store.find_entities("Dad", scope="alice") == []
    assert store.history(dad.entity_id, "lives_in") == []
    after = store.counts()
    assert after.turns == before.turns and before.facts - after.facts == 1


def test_erasing_a_scope_leaves_only_the_others(store: GraphStore) -> None:
    erase_fixture(store)
    erased = store.erase(ErasureTarget(scope="alice"))
    assert erased.kind == "scope" and len(erased.erased_ids["turn"]) == 2
    assert store.find_entities("Mom", scope="alice") == []
    assert store.find_entities("Dad", scope="alice") == []
    only_bob = store.counts()
    assert (only_bob.sessions, only_bob.turns, only_bob.facts, only_bob.entities) == (1, 1, 1, 1)


def test_another_scope_cannot_erase_what_it_does_not_own(store: GraphStore) -> None:
    erase_fixture(store)
    (bob_mom,) = store.find_entities("Mom", scope="bob")
    erased = store.erase(ErasureTarget(scope="alice", entities=(bob_mom.entity_id,)))
    assert erased.erased_ids["entity"] == []
    assert values(store.history(bob_mom.entity_id, "lives_in")) == ["Oslo"]


def test_turn_numbers_are_reserved_after_the_last_stored_and_reserved(store: GraphStore) -> None:
    store.write(scoped_batch("alice", "Lisbon"))
    (session,) = scoped_batch("alice", "Lisbon").sessions
    last = max(t.seq for t in scoped_batch("alice", "Lisbon").turns)
    assert store.reserve_turn_seqs(session.session_id, 3) == last + 1
    assert store.reserve_turn_seqs(session.session_id, 1) == last + 4
    assert store.reserve_turn_seqs(f"{session.session_id}-{uuid.uuid4().hex}", 2) == 0
    with pytest.raises(ValueError, match="positive"):
        store.reserve_turn_seqs(session.session_id, 0)
    store.erase(ErasureTarget(scope="alice", sessions=(session.session_id,)))
    assert store.reserve_turn_seqs(session.session_id, 1) == 0  # its counter went with it
