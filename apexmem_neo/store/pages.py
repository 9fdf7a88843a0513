"""Typed, keyset-paged reads of one scope's rows, kind by kind (``GraphStore.page``).

A ``Kind`` names a table, the model its rows read back as, its key (the columns of a
stable, unique order that an index serves on SQLite and on Neo4j), the columns a read
may filter on by equality and whether its rows carry metadata a read may filter on (turns:
every given key equal, as ``apexmem_neo.ontology.metadata.matches`` says). A ``Page`` holds
up to ``limit`` items in key order and ``next``, the cursor after its last item (None on the
last page); passing it as ``after`` reads on from there. Keyset, never OFFSET: every page
costs the same wherever it starts, and a row written meanwhile may show up in a later page but
never makes a page skip one. A cursor is the last item's key as a JSON list: opaque to
callers, checked when read back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, cast

from pydantic import BaseModel, ConfigDict

from apexmem_neo.ontology import Entity, Event, EventParticipant, Evidence, Property, Session, Turn
from apexmem_neo.ontology.metadata import Metadata, MetadataValue, check_metadata
from apexmem_neo.store import columns
from apexmem_neo.store.protocol import MAX_PAGE_LIMIT, FactRecord, InvalidCursorError, Item

KeyValue = str | int
INT_KEY_COLUMNS: Final = frozenset({"seq"})
"""Key columns holding integers; every other key column holds strings."""


class Page(BaseModel, Generic[Item]):
    """One page of a kind's items, in key order, and the cursor of the page after it."""

    model_config = ConfigDict(frozen=True)

    items: list[Item]
    next: str | None = None


@dataclass(frozen=True)
class Kind(Generic[Item]):
    """What ``GraphStore.page`` reads: a table, its model, its key order and its filters."""

    table: str
    model: type[Item]
    key: tuple[str, ...]
    filters: tuple[str, ...] = ()
    metadata: bool = False
    """Whether its rows hold ``metadata_json`` that a page may filter on."""

    def cursor(self, row: Mapping[str, Any]) -> str:
        """The cursor after ``row`` (a row of this kind's table)."""
        return json.dumps([row[column] for column in self.key], separators=(",", ":"))

    def after_key(
        self, cursor: str | None, filters: Mapping[str, str] | None = None
    ) -> list[KeyValue] | None:
        """The key a cursor stands for (None for no cursor); ``InvalidCursorError`` when no
        page of this kind read with these ``filters`` can have returned it."""
        if cursor is None:
            return None
        try:
            key = json.loads(cursor)
        except (TypeError, json.JSONDecodeError):
            raise InvalidCursorError(str(cursor), "not a cursor a page returned") from None
        if not isinstance(key, list) or len(key) != len(self.key):
            raise InvalidCursorError(cursor, f"a {self.table} cursor holds {self.key}")
        for column, value in zip(self.key, key, strict=True):
            wanted = int if column in INT_KEY_COLUMNS else str
            if type(value) is not wanted:
                raise InvalidCursorError(cursor, f"{column} must be {wanted.__name__}")
            if column in (filters or {}) and value != (filters or {})[column]:
                raise InvalidCursorError(cursor, f"it is of another {column} than the filter's")
        return key

    def checked_filters(self, filters: Mapping[str, str] | None) -> dict[str, str]:
        """``filters`` as a dict, after checking each names a column this kind filters on."""
        given = dict(filters or {})
        unknown = sorted(set(given) - set(self.filters))
        if unknown:
            allowed = ", ".join(self.filters) or "none"
            raise ValueError(f"{self.table} pages filter on {allowed}, not on {unknown}")
        for column, value in given.items():
            if not isinstance(value, str):
                raise ValueError(f"filter {column} must be a string, got {value!r}")
        return given

    def checked_metadata(self, metadata: Mapping[str, MetadataValue] | None) -> Metadata:
        """``metadata`` as a dict (``{}`` for none), after checking it is metadata and that
        this kind's rows carry some; ValueError otherwise."""
        wanted = check_metadata(metadata)
        if wanted and not self.metadata:
            raise ValueError(f"{self.table} pages have no metadata to filter on")
        return wanted

    def read(self, row: Mapping[str, Any]) -> Item:
        """The item a row of this kind's table reads back as."""
        return cast(Item, columns.FROM_ROW[self.table](row))

    def page(self, items: list[Item], next: str | None) -> Page[Item]:
        """A page of this kind, typed by its model (so it serialises every field)."""
        page_type: type[Page[Item]] = cast(Any, Page)[self.model]
        return page_type(items=items, next=next)


@dataclass(frozen=True)
class PageRequest(Generic[Item]):
    """One ``GraphStore.page`` read after its arguments were checked: what a backend turns
    into its query, whatever the backend."""

    kind: Kind[Item]
    scope: str
    filters: dict[str, str]
    metadata: Metadata
    start: list[KeyValue] | None
    """The key of the cursor's row (None: from the first row)."""
    limit: int

    @classmethod
    def checked(
        cls,
        kind: Kind[Item],
        scope: str,
        after: str | None,
        limit: int,
        filters: Mapping[str, str] | None,
        metadata: Mapping[str, MetadataValue] | None = None,
    ) -> PageRequest[Item]:
        """The request for these ``page`` arguments; ValueError or ``InvalidCursorError``
        when one of them cannot be read."""
        wanted = kind.checked_filters(filters)
        tags = kind.checked_metadata(metadata)
        start = kind.after_key(after, wanted)
        return cls(kind, scope, wanted, tags, start, check_limit(limit))


SESSIONS: Final = Kind("sessions", Session, ("session_id",), ("session_id",))
TURNS: Final = Kind("turns", Turn, ("session_id", "seq", "turn_id"), ("session_id",), True)
"""Turns in conversation order within each session (the order of the NEXT chain)."""
ENTITIES: Final = Kind("entities", Entity, ("norm_name", "entity_type", "entity_id"))
"""Entities by normalised name (the scope's entity name index serves it on SQLite)."""
PROPERTIES: Final = Kind("properties", Property, ("name",))
"""Properties by name, unique within a scope."""
EVIDENCE: Final = Kind("evidence", Evidence, ("evidence_id",))
EVENTS: Final = Kind("events", Event, ("event_id",))
PARTICIPANTS: Final = Kind(
    "event_participants", EventParticipant, ("event_id", "entity_id", "role")
)
FACTS: Final = Kind(
    "facts",
    FactRecord,
    ("entity_id", "property", "t_from", "recorded_at", "fact_id"),
    ("entity_id", "property"),
)
"""Facts grouped by entity and property, each group in history order (the timeline index)."""

KINDS: Final[tuple[Kind[Any], ...]] = (
    SESSIONS,
    TURNS,
    ENTITIES,
    PROPERTIES,
    EVIDENCE,
    EVENTS,
    PARTICIPANTS,
    FACTS,
)
"""Every kind, in write order (``TABLES``)."""


def check_limit(limit: int) -> int:
    """``limit`` if a page may hold that many items, else ``ValueError``."""
    if not 1 <= limit <= MAX_PAGE_LIMIT:
        raise ValueError(f"limit must be between 1 and {MAX_PAGE_LIMIT}, got {limit}")
    return limit


def page_of(kind: Kind[Item], rows: Sequence[Mapping[str, Any]], limit: int) -> Page[Item]:
    """The page of ``rows`` read with ``limit + 1`` (one more row than the page holds, so a
    full page knows whether another follows)."""
    items = [kind.read(row) for row in rows[:limit]]
    more = len(rows) > limit
    return kind.page(items, kind.cursor(rows[limit - 1]) if more else None)


def fixed_prefix(key: Sequence[str], filters: Collection[str]) -> int:
    """How many leading key columns ``filters`` fix: the index seeks a range on the next."""
    fixed = 0
    while fixed < len(key) and key[fixed] in filters:
        fixed += 1
    return fixed


def turn_cursor(session_id: str, seq: int) -> str:
    """A cursor for ``TURNS`` whose next page starts at turn ``seq`` of the session."""
    return json.dumps([session_id, seq, ""], separators=(",", ":"))


def every_item(read: Callable[[str | None], Page[Item]], after: str | None = None) -> list[Item]:
    """All items of a paged read from cursor ``after`` on, page after page (``read(after)``
    returns one page)."""
    items: list[Item] = []
    while True:
        page = read(after)
        items += page.items
        if page.next is None:
            return items
        after = page.next
