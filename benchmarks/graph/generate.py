"""A generator of realistic temporal memory: entities observed at events over years.

Shape: ~1k entities of mixed types and ~100 typed properties. Each entity has a stream of
observation events (gaps of hours to weeks); each event asserts 2-6 of the entity's
properties, so every (entity, property) pair collects several facts over time. Values drift
(an int random-walks, a city changes now and then, ~25% of facts repeat the previous value),
~10% of facts are temporary states with a closed interval, and ~5% are learned late
(recorded_at months after t_from), which is what breaks write-time overwriting.

Deterministic for a seed; streams ``GraphBatch`` objects so 1M facts never sit in memory.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from apexmem_neo.ontology import (
    DType,
    Entity,
    EntityType,
    Event,
    EventParticipant,
    Fact,
    GraphBatch,
    Property,
    Role,
)
from apexmem_neo.ontology.ids import DEFAULT_SCOPE

START = datetime(2015, 1, 1)
CITIES = ["Oslo", "Rome", "Lima", "Kyoto", "Boston", "Nairobi", "Quito", "Perth", "Lyon"]
LEVELS = ("low", "medium", "high", "critical")
DTYPE_MIX = [DType.STR] * 3 + [DType.INT] * 2 + [DType.FLOAT, DType.ENUM, DType.BOOL, DType.DATE]


@dataclass
class Spec:
    """What to generate."""

    n_facts: int
    n_entities: int = 1000
    n_properties: int = 100
    batch_facts: int = 10_000
    seed: int = 7
    scope: str = DEFAULT_SCOPE
    """The scope every row is written to."""
    definitions_first: bool = True
    """Entities and properties in a batch of their own, first, the way a bulk import loads
    its nodes before what links to them. Every later batch references them, so with
    concurrent writers each waits for the batch defining them: alone it commits in a few
    ms, while with the first ~1% of facts in it the second writer idled for a whole batch
    (``benchmarks.graph.write_ab --variant definitions_with_facts`` measures the layout)."""


def make_properties(n: int, rng: random.Random, scope: str = DEFAULT_SCOPE) -> list[Property]:
    props = []
    for i in range(n):
        dtype = DTYPE_MIX[i % len(DTYPE_MIX)]
        enum_values = LEVELS if dtype == DType.ENUM else ()
        props.append(
            Property(
                name=f"attr_{dtype.value}_{i:03d}",
                dtype=dtype,
                enum_values=enum_values,
                scope=scope,
            )
        )
    rng.shuffle(props)
    return props


def make_entities(n: int, scope: str = DEFAULT_SCOPE) -> list[Entity]:
    types = list(EntityType)
    return [
        Entity(
            name=f"entity {i:05d}",
            entity_type=types[i % len(types)],
            role=Role.MENTIONED,
            scope=scope,
        )
        for i in range(n)
    ]


def next_value(prop: Property, previous: Any, rng: random.Random) -> Any:
    if previous is not None and rng.random() < 0.25:
        return previous
    if prop.dtype == DType.STR:
        return rng.choice(CITIES)
    if prop.dtype == DType.INT:
        return (previous if isinstance(previous, int) else 100) + rng.randint(-10, 10)
    if prop.dtype == DType.FLOAT:
        return round(rng.uniform(0, 1000), 2)
    if prop.dtype == DType.ENUM:
        return rng.choice(LEVELS)
    if prop.dtype == DType.BOOL:
        return rng.random() < 0.5
    return (START + timedelta(days=rng.randint(0, 4000))).date().isoformat()


def entity_facts(
    entity: Entity, props: list[Property], n_facts: int, rng: random.Random
) -> tuple[list[Event], list[EventParticipant], list[Fact]]:
    """The events of one entity and the ``n_facts`` facts they assert."""
    # At least two properties, so every event asserts 2-6 facts even at 10 facts per entity
    # (the 10k size); with one, each event asserted a single fact there.
    chosen = rng.sample(props, k=min(len(props), max(2, n_facts // 8)))
    previous: dict[str, Any] = {}
    events: list[Event] = []
    parts: list[EventParticipant] = []
    facts: list[Fact] = []
    t = START + timedelta(hours=rng.randint(0, 24 * 365))
    while len(facts) < n_facts:
        t += timedelta(hours=rng.randint(2, 24 * 21))
        event = Event(event_type="observation", anchor_datetime=t, location=entity.name)
        events.append(event)
        parts.append(EventParticipant(event_id=event.event_id, entity_id=entity.entity_id))
        for prop in rng.sample(chosen, k=min(len(chosen), rng.randint(2, 6))):
            if len(facts) >= n_facts:
                break
            value = next_value(prop, previous.get(prop.name), rng)
            previous[prop.name] = value
            facts.append(make_fact(entity, prop, value, t, event, rng))
    return events, parts, facts


def make_fact(
    entity: Entity, prop: Property, value: Any, t: datetime, event: Event, rng: random.Random
) -> Fact:
    t_to = t + timedelta(days=rng.randint(1, 30)) if rng.random() < 0.10 else None
    delay = timedelta(days=rng.randint(60, 400)) if rng.random() < 0.05 else timedelta(minutes=5)
    return Fact(
        entity_id=entity.entity_id,
        property=prop.name,
        dtype=prop.dtype,
        enum_values=prop.enum_values,
        value=value,
        t_from=t,
        t_to=t_to,
        confidence=round(rng.uniform(0.6, 1.0), 2),
        event_id=event.event_id,
        recorded_at=t + delay,
    )


def generate(spec: Spec) -> Iterator[GraphBatch]:
    """Batches of about ``spec.batch_facts`` facts, after one of the entities and properties
    (``spec.definitions_first``; else the first batch of facts holds them too)."""
    rng = random.Random(spec.seed)
    props = make_properties(spec.n_properties, rng, spec.scope)
    entities = make_entities(spec.n_entities, spec.scope)
    per_entity = [spec.n_facts // spec.n_entities] * spec.n_entities
    for i in range(spec.n_facts - sum(per_entity)):
        per_entity[i] += 1
    head: dict[str, Any] = {"entities": entities, "properties": props, "scope": spec.scope}
    if spec.definitions_first:
        yield GraphBatch(**head)
        head = {"scope": spec.scope}
    events: list[Event] = []
    parts: list[EventParticipant] = []
    facts: list[Fact] = []
    for entity, n in zip(entities, per_entity, strict=True):
        ev, pa, fa = entity_facts(entity, props, n, rng)
        events += ev
        parts += pa
        facts += fa
        if len(facts) >= spec.batch_facts:
            yield GraphBatch(events=events, participants=parts, facts=facts, **head)
            head, events, parts, facts = {"scope": spec.scope}, [], [], []
    if facts or len(head) > 1:
        yield GraphBatch(events=events, participants=parts, facts=facts, **head)
