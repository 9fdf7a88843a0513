"""ScopedStore: one scope's view of a GraphStore, what the agent's tools and Memory read through.

Lookups by name search only the scope; lookups by id return None, and temporal queries
return nothing, for an entity or event of another scope. So an id an agent guessed or
copied from elsewhere never opens a door into another user's memory.
"""

from __future__ import annotations

from collections.abc import Mapping

from apexmem_neo.ontology import Entity, EntityType, Event, GraphBatch
from apexmem_neo.ontology.metadata import MetadataValue
from apexmem_neo.ontology.types import TimeLike
from apexmem_neo.store.erasure import Erasure, ErasureTarget
from apexmem_neo.store.pages import Kind, Page
from apexmem_neo.store.protocol import (
    DEFAULT_PAGE_LIMIT,
    ChangeRecord,
    FactRecord,
    GraphStore,
    Item,
    StoreCounts,
)


class ScopedStore:
    """The GraphStore protocol over ``store``, confined to ``scope``; writes are refused."""

    def __init__(self, store: GraphStore, scope: str) -> None:
        self.store = store
        self.scope = scope

    def init_schema(self) -> None:
        self.store.init_schema()

    def close(self) -> None:
        """The underlying store belongs to the caller; a view has nothing to close."""

    def write(self, batch: GraphBatch) -> None:
        raise PermissionError("a ScopedStore is read-only; write through Memory.add")

    def reserve_turn_seqs(self, session_id: str, count: int) -> int:
        raise PermissionError("a ScopedStore is read-only; write through Memory.add")

    def erase(self, target: ErasureTarget) -> Erasure:
        raise PermissionError("a ScopedStore is read-only; erase through Memory.forget")

    def compact(self) -> None:
        raise PermissionError("a ScopedStore is read-only; Memory.forget compacts the store")

    def counts(self, scope: str | None = None) -> StoreCounts:
        """The view's own scope's counts, whatever ``scope`` asks: other scopes' rows, even
        counted, are past the wall."""
        return self.store.counts(scope=self.scope)

    def scopes(self) -> list[str]:
        """Only the view's own scope (when it holds a row): the others are past the wall."""
        return [self.scope] if any(self.counts().model_dump().values()) else []

    def page(
        self,
        kind: Kind[Item],
        *,
        scope: str | None = None,
        after: str | None = None,
        limit: int = DEFAULT_PAGE_LIMIT,
        filters: Mapping[str, str] | None = None,
        metadata: Mapping[str, MetadataValue] | None = None,
    ) -> Page[Item]:
        """A page of the view's own scope, whatever ``scope`` asks."""
        return self.store.page(
            kind, scope=self.scope, after=after, limit=limit, filters=filters, metadata=metadata
        )

    def get_entity(self, entity_id: str, scope: str | None = None) -> Entity | None:
        return self.store.get_entity(entity_id, scope=self.scope)

    def find_entities(
        self, name: str, entity_type: EntityType | None = None, *, scope: str | None = None
    ) -> list[Entity]:
        return self.store.find_entities(name, entity_type, scope=self.scope)

    def list_entities(self, *, scope: str | None = None) -> list[Entity]:
        return self.store.list_entities(scope=self.scope)

    def get_event(self, event_id: str, scope: str | None = None) -> Event | None:
        return self.store.get_event(event_id, scope=self.scope)

    def _mine(self, entity_id: str) -> bool:
        return self.store.get_entity(entity_id, scope=self.scope) is not None

    def current(
        self, entity_id: str, property: str, now: TimeLike | None = None
    ) -> FactRecord | None:
        return self.store.current(entity_id, property, now) if self._mine(entity_id) else None

    def as_of(self, entity_id: str, property: str, t: TimeLike) -> FactRecord | None:
        return self.store.as_of(entity_id, property, t) if self._mine(entity_id) else None

    def history(self, entity_id: str, property: str) -> list[FactRecord]:
        return self.store.history(entity_id, property) if self._mine(entity_id) else []

    def changes(self, entity_id: str, property: str) -> list[ChangeRecord]:
        return self.store.changes(entity_id, property) if self._mine(entity_id) else []

    def before(self, entity_id: str, property: str, reference: TimeLike) -> FactRecord | None:
        foreign_event = (
            isinstance(reference, str)
            and reference.startswith("ev_")
            and self.get_event(reference) is None
        )
        if foreign_event or not self._mine(entity_id):
            return None
        return self.store.before(entity_id, property, reference)

    def facts_between(self, entity_id: str, t1: TimeLike, t2: TimeLike) -> list[FactRecord]:
        return self.store.facts_between(entity_id, t1, t2) if self._mine(entity_id) else []

    def known_as_of(
        self, entity_id: str, property: str, recorded_at: TimeLike, at: TimeLike | None = None
    ) -> FactRecord | None:
        if not self._mine(entity_id):
            return None
        return self.store.known_as_of(entity_id, property, recorded_at, at)
