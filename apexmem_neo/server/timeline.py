"""One entity's timeline, as the ``/ui`` page draws it: for each property the intervals its
values held (bars), its ends, when its value changed, and what held at a chosen time.

Everything is read through ``Memory``'s public reads (``entity``, the ``facts`` and ``turns``
listings, ``changes``, ``as_of``) and the scope's own view of the store for events (a fact
names its event, the event names its turn), so no read here can see past the scope. A value
holds from its ``t_from`` until its ``t_to``, or until the next fact of its property, or now.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from apexmem_neo.memory.core import Memory
from apexmem_neo.ontology import Entity
from apexmem_neo.ontology.types import normalize_time, parse_time
from apexmem_neo.store.protocol import ChangeRecord, FactRecord
from apexmem_neo.store.scoped import ScopedStore

PAGE: Final = 1000
"""Items per listing page read here (the largest page a listing gives)."""
MAX_FACT_PAGES: Final = 5
"""Pages of an entity's facts drawn at most; a page says when more were left out."""
MAX_TURN_PAGES: Final = 20
"""Pages of the scope's turns read at most to find the turns that said the facts."""


@dataclass(frozen=True)
class Said:
    """The turn that said a fact: who, what and when."""

    speaker: str
    text: str
    at: str


@dataclass(frozen=True)
class Bar:
    """One fact drawn over the interval it held; ``open`` when nothing ends it before now."""

    fact: FactRecord
    start: datetime
    end: datetime
    open: bool
    said: Said | None

    @property
    def ended(self) -> bool:
        """An end: from its start the property holds no value."""
        return self.fact.value is None


@dataclass(frozen=True)
class Row:
    """One property of the entity and its bars, oldest first."""

    property: str
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class Held:
    """What held for ``property`` at the chosen time: a fact (an end too), or None."""

    property: str
    fact: FactRecord | None


@dataclass(frozen=True)
class Timeline:
    """The page's data for one entity at the chosen time ``at``, drawn up to ``now``."""

    entity: Entity
    rows: tuple[Row, ...]
    changes: tuple[ChangeRecord, ...]
    held: tuple[Held, ...]
    at: datetime
    now: datetime
    truncated: bool = False


def moment(text: str) -> datetime:
    """An ISO 8601 date or datetime as a naive UTC datetime (``ValueError`` if it is none)."""
    return parse_time(normalize_time(text))


def build_timeline(
    memory: Memory, scope: str, entity: str, at: datetime, now: datetime
) -> Timeline:
    """The timeline of ``entity`` (a name, alias or id; ``UnknownEntityError`` if none) in
    ``scope``, with what held at ``at``."""
    found = memory.entity(entity, scope=scope)
    by_property, truncated = facts_by_property(memory, scope, found.entity_id)
    said = turns_that_said(memory, scope, [f for fs in by_property.values() for f in fs])
    rows = tuple(Row(p, bars(fs, now, said)) for p, fs in sorted(by_property.items()))
    changes = [c for p in by_property for c in memory.changes(found.entity_id, p, scope=scope)]
    held = tuple(
        Held(p, memory.as_of(found.entity_id, p, at.isoformat(), scope=scope))
        for p in sorted(by_property)
    )
    ordered = tuple(sorted(changes, key=lambda c: (c.changed_at, c.property)))
    return Timeline(found, rows, ordered, held, at, now, truncated)


def facts_by_property(
    memory: Memory, scope: str, entity_id: str
) -> tuple[dict[str, list[FactRecord]], bool]:
    """The entity's facts per property in history order, and whether some were left out."""
    grouped: dict[str, list[FactRecord]] = {}
    after: str | None = None
    for _ in range(MAX_FACT_PAGES):
        page = memory.facts(scope, entity=entity_id, after=after, limit=PAGE)
        for fact in page.items:
            grouped.setdefault(fact.property, []).append(fact)
        after = page.next
        if after is None:
            return grouped, False
    return grouped, True


def bars(facts: list[FactRecord], now: datetime, said: dict[str, Said]) -> tuple[Bar, ...]:
    """The facts of one property (history order) as bars: each holds until its ``t_to``,
    the next fact's ``t_from`` or ``now``, whichever comes first."""
    out: list[Bar] = []
    for i, fact in enumerate(facts):
        start = moment(fact.t_from)
        ends = [moment(fact.t_to)] if fact.t_to is not None else []
        if i + 1 < len(facts):
            ends.append(moment(facts[i + 1].t_from))
        end = min(ends) if ends else max(now, start)
        out.append(Bar(fact, start, max(end, start), not ends, said.get(fact.fact_id)))
    return tuple(out)


def turns_that_said(memory: Memory, scope: str, facts: Iterable[FactRecord]) -> dict[str, Said]:
    """The turn that said each fact, by fact id (a fact whose turn is not found is left
    out): the fact's event names the turn, the scope's turns listing gives its words."""
    store = ScopedStore(memory.store, scope)
    turn_of: dict[str, str] = {}
    for fact in facts:
        event = store.get_event(fact.event_id) if fact.event_id else None
        if event is not None and event.turn_id:
            turn_of[fact.fact_id] = event.turn_id
    turns = find_turns(memory, scope, set(turn_of.values()))
    return {fid: turns[tid] for fid, tid in turn_of.items() if tid in turns}


def find_turns(memory: Memory, scope: str, wanted: set[str]) -> dict[str, Said]:
    """The ``wanted`` turns of ``scope`` by id, read page by page until all are found."""
    found: dict[str, Said] = {}
    after: str | None = None
    for _ in range(MAX_TURN_PAGES):
        if len(found) == len(wanted):
            break
        page = memory.turns(scope, after=after, limit=PAGE)
        for turn in page.items:
            if turn.turn_id in wanted:
                found[turn.turn_id] = Said(turn.speaker, turn.text, turn.anchor_datetime)
        after = page.next
        if after is None:
            break
    return found
