"""StoreBackend: the parts of ``GraphStore`` every backend answers the same way.

A backend (SQLite, Neo4j, in-memory) reads a page's rows, the latest fact of a pair and what
was known by a time its own way; checking the arguments, the cursor of the next page and the
queries derived from ``history``, ``as_of`` and ``get_event`` are the protocol's rules, so
they live here once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from apexmem_neo.ontology import Event
from apexmem_neo.ontology.metadata import MetadataValue
from apexmem_neo.ontology.types import TimeLike, normalize_time
from apexmem_neo.store.pages import Kind, Page, PageRequest, page_of
from apexmem_neo.store.protocol import (
    DEFAULT_PAGE_LIMIT,
    ChangeRecord,
    FactRecord,
    Item,
    compute_changes,
    time_before,
)

Row = Mapping[str, Any]


def in_scope(row: Row | None, scope: str | None) -> Row | None:
    """``row``, unless there is none or it belongs to another scope than ``scope`` (None:
    any scope): how a lookup by id keeps to its scope."""
    if row is None or (scope is not None and row["scope"] != scope):
        return None
    return row


class StoreBackend(ABC):
    """The shared half of a ``GraphStore``; a backend supplies the abstract reads."""

    @abstractmethod
    def _page_rows(self, request: PageRequest[Item]) -> Sequence[Row]:
        """The rows of the page ``request`` asks for, in key order, one more than its limit
        when that many follow the cursor."""

    @abstractmethod
    def _latest(self, entity_id: str, property: str) -> FactRecord | None:
        """The greatest fact of (entity, property) by the fact order."""

    @abstractmethod
    def _known(
        self, entity_id: str, property: str, cutoff: str, at: str | None
    ) -> FactRecord | None:
        """``known_as_of`` with normalised times."""

    @abstractmethod
    def as_of(self, entity_id: str, property: str, t: TimeLike) -> FactRecord | None: ...

    @abstractmethod
    def history(self, entity_id: str, property: str) -> list[FactRecord]: ...

    @abstractmethod
    def get_event(self, event_id: str, scope: str | None = None) -> Event | None: ...

    def page(
        self,
        kind: Kind[Item],
        *,
        scope: str,
        after: str | None = None,
        limit: int = DEFAULT_PAGE_LIMIT,
        filters: Mapping[str, str] | None = None,
        metadata: Mapping[str, MetadataValue] | None = None,
    ) -> Page[Item]:
        request = PageRequest.checked(kind, scope, after, limit, filters, metadata)
        return page_of(kind, self._page_rows(request), limit)

    def current(
        self, entity_id: str, property: str, now: TimeLike | None = None
    ) -> FactRecord | None:
        if now is not None:
            return self.as_of(entity_id, property, now)
        return self._latest(entity_id, property)

    def changes(self, entity_id: str, property: str) -> list[ChangeRecord]:
        return compute_changes(self.history(entity_id, property))

    def before(self, entity_id: str, property: str, reference: TimeLike) -> FactRecord | None:
        t = time_before(reference, self.get_event)
        return None if t is None else self.as_of(entity_id, property, t)

    def known_as_of(
        self, entity_id: str, property: str, recorded_at: TimeLike, at: TimeLike | None = None
    ) -> FactRecord | None:
        at_time = None if at is None else normalize_time(at)
        return self._known(entity_id, property, normalize_time(recorded_at), at_time)
