"""The study's gold graph: generated temporal timelines.

No extraction is involved, so the SQL-vs-Cypher study measures querying, not construction.
Every id carries the prefix ``ql_`` so the graph can be loaded beside other data and deleted
alone. Generation is deterministic for a seed (a local ``random.Random``). Several seeds
make one larger graph (``merged_gold``): each further seed's people pair the first names with
rotated surnames, so names and the ids made from them never collide, and the companies, the
same in every seed, are shared (which keeps "the city of X's employer" a single match).

People whose city, employer, job title, favourite food and salary change over
  2019-2024 (one event per person and date, asserting that date's facts), and companies with
  a headquarters city, so that "the city of X's employer" is a join. (LOCOMO data is never
  copied into the repo; facts drawn from it belong in a loader reading ../shared by path.)
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Final, TypeVar

from apexmem_neo.ontology import (
    DType,
    Entity,
    Event,
    EventParticipant,
    Fact,
    GraphBatch,
)

T = TypeVar("T")
PREFIX: Final = "ql_"
DEFAULT_SEED: Final = 7
DATA_DIR: Final = Path(__file__).parent / "data"
RECORDED_AT: Final = "2025-01-01T00:00:00"
START, END = date(2019, 1, 1), date(2024, 10, 1)

PEOPLE: Final = (
    "Mara Quint", "Tobias Vell", "Ilse Narrow", "Osric Pell", "Nadia Ferro", "Lucan Marsh",
    "Greta Holm", "Idris Vane", "Selma Brook", "Ewan Tarr", "Priya Oakes", "Rune Castell",
)  # fmt: skip
COMPANIES: Final = {
    "Brightwave Labs": "Oslo", "Copperline Foods": "Lyon", "Northgate Bank": "Boston",
    "Quillstone Press": "Kyoto", "Redfern Motors": "Perth", "Tidepool Games": "Lima",
}  # fmt: skip
CITIES: Final = ("Oslo", "Rome", "Lima", "Kyoto", "Boston", "Nairobi", "Quito", "Perth", "Lyon")
TITLES: Final = ("analyst", "engineer", "designer", "manager", "director", "consultant")
FOODS: Final = ("ramen", "paella", "tacos", "pierogi", "sushi", "falafel", "curry", "risotto")
PROPERTY_VALUES: Final[dict[str, tuple[str, ...]]] = {
    "city": CITIES,
    "employer": tuple(COMPANIES),
    "job_title": TITLES,
    "favourite_food": FOODS,
}
"""The generated string properties of a person and their value pools; salary is an int."""


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def entity_id(name: str) -> str:
    return f"{PREFIX}ent_{slug(name)}"


def people_names(seed: int = DEFAULT_SEED) -> tuple[str, ...]:
    """The people of ``seed``: ``PEOPLE`` for the default seed, else each first name with the
    surname ``(seed - DEFAULT_SEED) mod len(PEOPLE)`` places further along."""
    shift = (seed - DEFAULT_SEED) % len(PEOPLE)
    firsts = [n.split()[0] for n in PEOPLE]
    lasts = [n.split()[1] for n in PEOPLE]
    return tuple(f"{f} {lasts[(i + shift) % len(lasts)]}" for i, f in enumerate(firsts))


def _dates(rng: random.Random, n: int) -> list[str]:
    span = (END - START).days
    days = sorted(rng.sample(range(0, span, 7), n))  # weekly grid: distinct, readable dates
    return [(START + timedelta(days=d)).isoformat() for d in days]


def _changing_values(rng: random.Random, pool: tuple[str, ...], n: int) -> list[str]:
    """n values, each different from the one before (every new fact is a change)."""
    out = [rng.choice(pool)]
    while len(out) < n:
        out.append(rng.choice([v for v in pool if v != out[-1]]))
    return out


def _person_facts(rng: random.Random, eid: str) -> list[tuple[str, str, DType, Any]]:
    """(t_from, property, dtype, value) of one person, 2-4 facts per property."""
    rows: list[tuple[str, str, DType, Any]] = []
    for prop, pool in PROPERTY_VALUES.items():
        n = rng.randint(2, 4)
        rows += [
            (day, prop, DType.STR, value)
            for day, value in zip(_dates(rng, n), _changing_values(rng, pool, n), strict=True)
        ]
    salary = rng.randrange(40_000, 80_000, 1_000)
    for day in _dates(rng, rng.randint(2, 4)):
        rows.append((day, "salary", DType.INT, salary))
        salary += rng.randrange(2_000, 15_000, 1_000)
    return sorted(rows, key=lambda r: (r[0], r[1]))


def generated_batch(seed: int = DEFAULT_SEED) -> GraphBatch:
    """People and companies with their timelines (one event per entity and date)."""
    rng = random.Random(seed)
    people = people_names(seed)
    entities = [Entity(entity_id=entity_id(n), name=n, entity_type="Person") for n in people]
    entities += [
        Entity(entity_id=entity_id(n), name=n, entity_type="Corporation") for n in COMPANIES
    ]
    events: list[Event] = []
    participants: list[EventParticipant] = []
    facts: list[Fact] = []

    def add(eid: str, day: str, prop: str, dtype: DType, value: Any) -> None:
        event_id = f"{PREFIX}ev_{eid.removeprefix(PREFIX + 'ent_')}_{day}"
        if not events or events[-1].event_id != event_id:
            events.append(Event(event_id=event_id, event_type="update", anchor_datetime=day))
            participants.append(EventParticipant(event_id=event_id, entity_id=eid, role="Agent"))
        facts.append(
            Fact(entity_id=eid, property=prop, dtype=dtype, value=value, t_from=day,
                 event_id=event_id)
        )  # fmt: skip

    for name in people:
        for day, prop, dtype, value in _person_facts(rng, entity_id(name)):
            add(entity_id(name), day, prop, dtype, value)
    for name, city in COMPANIES.items():
        add(entity_id(name), "2018-01-01", "headquarters_city", DType.STR, city)
    return GraphBatch(
        entities=entities, events=events, participants=participants, facts=facts,
        recorded_at=RECORDED_AT,
    )  # fmt: skip


def gold_batch(seed: int = DEFAULT_SEED) -> GraphBatch:
    """The study's gold graph for ``seed``."""
    return generated_batch(seed)


def _check_distinct_people(seeds: Sequence[int]) -> None:
    """Refuse seeds whose people share names (their surname rotations coincide)."""
    by_names: dict[tuple[str, ...], int] = {}
    for seed in seeds:
        names = people_names(seed)
        if names in by_names:
            raise ValueError(f"seeds {by_names[names]} and {seed} give the same people")
        by_names[names] = seed


def _union(rows: list[T], key: Callable[[T], Any]) -> list[T]:
    """``rows`` without repeats of a key; a repeated key must carry an identical row."""
    seen: dict[Any, T] = {}
    for row in rows:
        first = seen.setdefault(key(row), row)
        if first != row:
            raise ValueError(f"two different rows share the id {key(row)!r}")
    return list(seen.values())


def merged_gold(seeds: Sequence[int]) -> GraphBatch:
    """One gold graph holding the people of every seed and the shared companies once."""
    if len(set(seeds)) != len(seeds) or not seeds:
        raise ValueError(f"seeds must be distinct and at least one: {list(seeds)}")
    _check_distinct_people(seeds)
    batches = [gold_batch(s) for s in seeds]
    if len(batches) == 1:
        return batches[0]
    return GraphBatch(
        entities=_union([e for b in batches for e in b.entities], lambda e: e.entity_id),
        events=_union([e for b in batches for e in b.events], lambda e: e.event_id),
        participants=_union([p for b in batches for p in b.participants],
                            lambda p: (p.event_id, p.entity_id)),
        facts=_union([f for b in batches for f in b.facts], lambda f: f.fact_id),
        recorded_at=RECORDED_AT,
    )  # fmt: skip
