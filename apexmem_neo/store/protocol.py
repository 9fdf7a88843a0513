"""The GraphStore protocol: what every storage backend (SQLite, Neo4j, in-memory) provides.

Lifecycle
    Constructors do no I/O. ``init_schema()`` connects (where there is a connection to open)
    and creates or migrates the schema; it is idempotent. ``close()`` releases resources.

Writing
    ``write(batch)`` validates first (pydantic already checked every value; the store then
    checks that every id the batch points at exists in the batch or in the store, else
    ``DanglingReferenceError`` naming the field and the id) and then commits the whole batch
    in one transaction, or nothing. Rows are inserted by deterministic id with
    INSERT OR IGNORE / MERGE-on-create semantics: re-writing a batch adds nothing and never
    changes a stored row. No code path updates or deletes a fact (append-only); conflicting
    facts for one (entity, property) coexist. Rows without ``recorded_at`` (and a batch
    without one) are stamped with the store's clock at write time.

Turn numbers
    ``reserve_turn_seqs(session_id, count)`` reserves ``count`` consecutive turn numbers of a
    session and returns the first: one past both the last number reserved and the last turn
    stored, in one write transaction, so writers in several threads, Memory objects or
    processes never give two turns of a session the same ``seq``. A reservation whose turns
    are never written leaves a gap; erasing a session drops its counter.

Time
    Times are strings ``YYYY-MM-DDTHH:MM:SS`` in UTC at second resolution (a date means
    midnight; see ``normalize_time``), so string order is time order in SQL and Cypher.
    Query arguments accept str, date or datetime and are normalised the same way.

Temporal rules (all backends give identical answers; ``apexmem_neo.store.reference`` is the
executable specification)
    * A fact holds on the closed interval [t_from, t_to]; t_to None means open-ended.
    * Fact order ("k") is (t_from, recorded_at, fact_id), ascending, plain string comparison.
    * ``as_of(e, p, t)``: among facts of (e, p) that hold at t (t_from <= t and (t_to is None
      or t <= t_to)) the one greatest by k: latest t_from, ties by latest recorded_at, then
      greatest fact_id. None if no fact holds at t.
    * ``current(e, p, now=None)``: ``as_of(e, p, now)`` when now is given; otherwise the
      latest time known for (e, p), i.e. the greatest fact by k (always holds at its own
      t_from).
    * ``history(e, p)``: every fact of (e, p) in k order.
    * ``changes(e, p)``: for consecutive facts of ``history`` whose canonical value_json
      differs, one ``ChangeRecord`` (changed_at = the newer fact's t_from, old -> new).
    * ``before(e, p, reference)``: ``as_of(e, p, just_before(t_ref))`` where
      just_before(t) = t - 1 s. ``reference`` is a time (str/date/datetime) or an event id (a
      str that is not an ISO 8601 time), in which case t_ref is the event's anchor_datetime;
      an unknown event id raises ``UnknownReferenceError``.
    * ``facts_between(e, t1, t2)``: facts of e (any property) that began in the window,
      t1 <= t_from <= t2 (both ends inclusive), ordered by (t_from, property, recorded_at,
      fact_id). t1 > t2 raises ValueError. (Not "overlapping": in an append-only store an
      old open-ended fact formally overlaps every later window, so overlap would return
      each entity's whole past; what held at a time inside the window is ``as_of``.)
    * ``known_as_of(e, p, recorded_at, at=None)``: what memory believed by ``recorded_at``:
      the same rules as ``current`` (or ``as_of(at)`` when at is given) over only the facts
      with fact.recorded_at <= recorded_at.

Lookups
    ``get_entity(entity_id, scope)``, ``get_event(event_id, scope)`` (None for a row of
    another scope when ``scope`` is given); ``find_entities(name, entity_type, scope=)``
    matches the normalised name exactly within one scope (NFKC, case-folded, whitespace
    collapsed; aliases are the search index's job), ordered by entity_id.
    ``list_entities(scope=)`` returns every entity of one scope, with its aliases, ordered by
    entity_id: the names a read resolves a mention against (``apexmem_neo.tools.names``).

Pages
    ``page(kind, scope=, after=, limit=, filters=, metadata=)`` reads one scope's rows of
    one kind (``apexmem_neo.store.pages``: sessions, turns, entities, properties, evidence,
    events, participants, facts) as the ontology's models (``FactRecord`` for facts),
    ``limit`` at a time in the kind's key order, keyset-paged: ``Page.next`` is the cursor to
    pass as ``after`` for the page that follows, None on the last page. ``filters`` are
    equalities on the columns the kind allows (a turn's session, a fact's entity and
    property); ``metadata`` keeps the turns whose metadata holds every given key with the
    same JSON value (``apexmem_neo.ontology.metadata.matches``). An unreadable cursor raises
    ``InvalidCursorError``. ``scopes()`` lists every scope holding a row, sorted;
    ``counts(scope)`` counts one scope's rows.

Erasure
    ``erase(target)`` is the one exception to append-only (``apexmem_neo.store.erasure``);
    ``compact()`` then leaves no erased byte where the backend can reach it.

Scopes
    Every row and node carries its batch's ``scope``; a batch may only reference ids stored
    in its own scope (``DanglingReferenceError`` otherwise), so no relationship ever joins
    two scopes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict

from apexmem_neo.errors import DanglingReferenceError as DanglingReferenceError
from apexmem_neo.errors import InvalidCursorError as InvalidCursorError
from apexmem_neo.errors import StoreError as StoreError
from apexmem_neo.errors import StoreNotReadyError as StoreNotReadyError
from apexmem_neo.errors import UnknownReferenceError as UnknownReferenceError
from apexmem_neo.ontology import DType, Entity, EntityType, Event, GraphBatch
from apexmem_neo.ontology.ids import DEFAULT_SCOPE
from apexmem_neo.ontology.metadata import MetadataValue
from apexmem_neo.ontology.types import TimeLike, normalize_time
from apexmem_neo.store.erasure import Erasure, ErasureTarget
from apexmem_neo.store.timeutil import is_time, just_before

if TYPE_CHECKING:
    from apexmem_neo.store.pages import Kind, Page

TABLES: tuple[str, ...] = (
    "sessions",
    "turns",
    "entities",
    "properties",
    "evidence",
    "events",
    "event_participants",
    "facts",
)
"""Table names (SQLite) / the labels and relationship they become (Neo4j), in write order."""

DEFAULT_PAGE_LIMIT: Final = 1000
MAX_PAGE_LIMIT: Final = 10_000
"""Items per page of ``GraphStore.page``: by default, and at most."""

Item = TypeVar("Item", bound=BaseModel)
"""A model a page holds (``Page[Item]``, read by a ``Kind[Item]``)."""


class FactRecord(BaseModel):
    """A stored fact, as every temporal query returns it (field names = column names)."""

    model_config = ConfigDict(frozen=True)

    fact_id: str
    entity_id: str
    property: str
    value: Any
    value_json: str
    dtype: DType
    t_from: str
    t_to: str | None
    confidence: float
    event_id: str | None
    evidence_id: str | None
    recorded_at: str


class ChangeRecord(BaseModel):
    """One change of value between two consecutive facts of an (entity, property)."""

    model_config = ConfigDict(frozen=True)

    entity_id: str
    property: str
    changed_at: str
    old_value: Any
    new_value: Any
    old_fact_id: str
    new_fact_id: str


class StoreCounts(BaseModel):
    """Row (node / relationship) counts per table."""

    model_config = ConfigDict(frozen=True)

    sessions: int = 0
    turns: int = 0
    entities: int = 0
    properties: int = 0
    evidence: int = 0
    events: int = 0
    event_participants: int = 0
    facts: int = 0


@runtime_checkable
class GraphStore(Protocol):
    """The storage interface; see the module docstring for the exact semantics."""

    def init_schema(self) -> None: ...

    def close(self) -> None: ...

    def write(self, batch: GraphBatch) -> None: ...

    def reserve_turn_seqs(self, session_id: str, count: int) -> int: ...

    def counts(self, scope: str | None = None) -> StoreCounts: ...

    def scopes(self) -> list[str]: ...

    def page(
        self,
        kind: Kind[Item],
        *,
        scope: str,
        after: str | None = None,
        limit: int = DEFAULT_PAGE_LIMIT,
        filters: Mapping[str, str] | None = None,
        metadata: Mapping[str, MetadataValue] | None = None,
    ) -> Page[Item]: ...

    def get_entity(self, entity_id: str, scope: str | None = None) -> Entity | None: ...

    def find_entities(
        self, name: str, entity_type: EntityType | None = None, *, scope: str = DEFAULT_SCOPE
    ) -> list[Entity]: ...

    def list_entities(self, *, scope: str = DEFAULT_SCOPE) -> list[Entity]: ...

    def get_event(self, event_id: str, scope: str | None = None) -> Event | None: ...

    def erase(self, target: ErasureTarget) -> Erasure: ...

    def compact(self) -> None: ...

    def current(
        self, entity_id: str, property: str, now: TimeLike | None = None
    ) -> FactRecord | None: ...

    def as_of(self, entity_id: str, property: str, t: TimeLike) -> FactRecord | None: ...

    def history(self, entity_id: str, property: str) -> list[FactRecord]: ...

    def changes(self, entity_id: str, property: str) -> list[ChangeRecord]: ...

    def before(self, entity_id: str, property: str, reference: TimeLike) -> FactRecord | None: ...

    def facts_between(self, entity_id: str, t1: TimeLike, t2: TimeLike) -> list[FactRecord]: ...

    def known_as_of(
        self, entity_id: str, property: str, recorded_at: TimeLike, at: TimeLike | None = None
    ) -> FactRecord | None: ...


# ---- helpers every backend uses, so that the rules live in one place ----


def fact_order_key(fact: FactRecord) -> tuple[str, str, str]:
    """k = (t_from, recorded_at, fact_id): the order of history and of tie-breaking."""
    return (fact.t_from, fact.recorded_at, fact.fact_id)


def between_order_key(fact: FactRecord) -> tuple[str, str, str, str]:
    return (fact.t_from, fact.property, fact.recorded_at, fact.fact_id)


def latest_holding(history: Sequence[FactRecord], t: str) -> FactRecord | None:
    """The greatest fact (by k; ``history`` is in k order) whose closed interval holds t:
    the rule of ``as_of``, for code that already holds a history."""
    holding = [f for f in history if f.t_from <= t and (f.t_to is None or t <= f.t_to)]
    return holding[-1] if holding else None


STILL_HOLDS: Final = "now"
"""The end of a value that no later value or stated end has replaced."""


def held_until(history: Sequence[FactRecord]) -> list[str]:
    """Each fact's end as reads decide it, for one property's history in k order: its stated
    t_to, else the next fact's t_from, else ``STILL_HOLDS``. A stored t_to is rarely set, as a
    change appends a fact instead of closing the old one."""
    following: list[str | None] = [f.t_from for f in history[1:]]
    return [
        f.t_to or nxt or STILL_HOLDS for f, nxt in zip(history, [*following, None], strict=True)
    ]


def compute_changes(history: Sequence[FactRecord]) -> list[ChangeRecord]:
    """Changes between consecutive facts (in k order) whose canonical values differ."""
    changes: list[ChangeRecord] = []
    for old, new in pairwise(history):
        if old.value_json != new.value_json:
            changes.append(
                ChangeRecord(
                    entity_id=new.entity_id,
                    property=new.property,
                    changed_at=new.t_from,
                    old_value=old.value,
                    new_value=new.value,
                    old_fact_id=old.fact_id,
                    new_fact_id=new.fact_id,
                )
            )
    return changes


def reference_time(reference: TimeLike, get_event: Callable[[str], Event | None]) -> str:
    """The time of a ``before()`` reference: a time as is, an event id as its anchor time."""
    if not isinstance(reference, str) or is_time(reference):
        return normalize_time(reference)
    event = get_event(reference)
    if event is None:
        raise UnknownReferenceError(reference)
    return event.anchor_datetime


def time_before(reference: TimeLike, get_event: Callable[[str], Event | None]) -> str | None:
    """``just_before(reference_time(...))``: the instant ``before()`` asks ``as_of`` about."""
    return just_before(reference_time(reference, get_event))


def check_interval(t1: TimeLike, t2: TimeLike) -> tuple[str, str]:
    start, end = normalize_time(t1), normalize_time(t2)
    if start > end:
        raise ValueError(f"t1 {start} is after t2 {end}")
    return start, end


REFERENCE_FIELDS: Mapping[str, str] = {
    "session": "session_id",
    "turn": "turn_id",
    "entity": "entity_id",
    "evidence": "evidence_id",
    "event": "event_id",
}


def ensure_references(
    batch: GraphBatch, existing: Callable[[str, Collection[str]], set[str]]
) -> None:
    """Raise ``DanglingReferenceError`` for the first id the batch needs but nobody has.

    ``existing(kind, ids)`` returns the subset of ``ids`` of that kind already stored.
    """
    for kind, wanted in sorted(batch.external_references().items()):
        missing = set(wanted) - existing(kind, wanted)
        if missing:
            raise DanglingReferenceError(REFERENCE_FIELDS[kind], min(missing))
