"""Property-based tests: random timelines, every backend against the in-memory reference.

Times come from a small grid so that ties (same t_from, same recorded_at) and interval
endpoints are hit often.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apexmem_neo.ontology import Entity, Event, Fact, GraphBatch
from apexmem_neo.store import GraphStore
from apexmem_neo.store.protocol import fact_order_key
from apexmem_neo.store.reference import InMemoryGraphStore

ENTITIES = [Entity(name=n, entity_type="Person") for n in ("Ann", "Ben")]
PROPS = {"city": ("str", ["Oslo", "Rome", "Lima"]), "score": ("int", [1, 2, 3])}
BASE = datetime(2024, 1, 1)
EVENTS = [
    Event(event_type="checkpoint", anchor_datetime=BASE + timedelta(days=d)) for d in (0, 3, 7)
]
SLOW = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def grid_time(step: int) -> str:
    """Half-day steps: 0 -> 2024-01-01T00:00:00, 1 -> 2024-01-01T12:00:00, ..."""
    return (BASE + timedelta(hours=12 * step)).isoformat()


@st.composite
def facts(draw: st.DrawFn) -> Fact:
    prop = draw(st.sampled_from(sorted(PROPS)))
    dtype, choices = PROPS[prop]
    start = draw(st.integers(0, 20))
    length = draw(st.none() | st.integers(0, 8))
    return Fact(
        entity_id=draw(st.sampled_from(ENTITIES)).entity_id,
        property=prop,
        dtype=dtype,
        value=draw(st.sampled_from(choices)),
        t_from=grid_time(start),
        t_to=None if length is None else grid_time(start + length),
        confidence=draw(st.sampled_from([0.5, 1.0])),
        recorded_at=grid_time(draw(st.integers(0, 6))),
    )


timelines = st.lists(st.lists(facts(), max_size=8), min_size=1, max_size=3)
query_times = st.integers(-1, 30).map(grid_time) | st.integers(-1, 30).map(
    lambda s: (datetime.fromisoformat(grid_time(s)) + timedelta(seconds=1)).isoformat()
)


def load(store: GraphStore, batches: list[list[Fact]]) -> None:
    store.write(GraphBatch(entities=ENTITIES, events=EVENTS))
    for batch in batches:
        store.write(GraphBatch(facts=batch))


def answers(store: GraphStore, t: str, t2: str, r: str) -> list[Any]:
    """Every temporal query, for every (entity, property), at the given times."""
    out: list[Any] = [store.counts()]
    lo, hi = min(t, t2), max(t, t2)
    for entity in ENTITIES:
        e = entity.entity_id
        out.append(store.facts_between(e, lo, hi))
        for p in PROPS:
            out += [
                store.current(e, p),
                store.current(e, p, now=t),
                store.as_of(e, p, t),
                store.history(e, p),
                store.changes(e, p),
                store.before(e, p, t2),
                store.before(e, p, EVENTS[1].event_id),
                store.known_as_of(e, p, r),
                store.known_as_of(e, p, r, at=t),
            ]
    return out


@SLOW
@given(batches=timelines, t=query_times, t2=query_times, r=query_times)
def test_backend_agrees_with_reference(
    make_store: Callable[[], GraphStore], batches: list[list[Fact]], t: str, t2: str, r: str
) -> None:
    store, reference = make_store(), InMemoryGraphStore()
    reference.init_schema()
    load(store, batches)
    load(reference, batches)
    assert answers(store, t, t2, r) == answers(reference, t, t2, r)


@SLOW
@given(batches=timelines)
def test_writing_twice_changes_no_answer(
    make_store: Callable[[], GraphStore], batches: list[list[Fact]]
) -> None:
    store = make_store()
    load(store, batches)
    before = answers(store, grid_time(5), grid_time(9), grid_time(3))
    load(store, batches)
    assert answers(store, grid_time(5), grid_time(9), grid_time(3)) == before


@settings(max_examples=150, deadline=None)
@given(batches=timelines, t=query_times)
def test_reference_as_of_is_the_greatest_holding_fact(batches: list[list[Fact]], t: str) -> None:
    store = InMemoryGraphStore()
    store.init_schema()
    load(store, batches)
    for entity in ENTITIES:
        for p in PROPS:
            history = store.history(entity.entity_id, p)
            holding = [f for f in history if f.t_from <= t and (f.t_to is None or t <= f.t_to)]
            found = store.as_of(entity.entity_id, p, t)
            assert found == (max(holding, key=fact_order_key) if holding else None)
            assert history == sorted(history, key=fact_order_key)
            assert len(store.changes(entity.entity_id, p)) <= max(len(history) - 1, 0)
