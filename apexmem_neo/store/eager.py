"""EagerOverwriteStore: the Mem0/MIRIX-style overwrite baseline, for benchmarks only.

Write-time consolidation keeps one fact per (entity, property): the newest replaces
whatever was there. This wrapper reproduces that loss on top of any append-only GraphStore:
reads see only the survivor, the fact with the latest own time t_from (ties by recorded_at,
then fact_id: the protocol's fact order). Ordering by recorded_at instead would let the
ingest clock pick the survivor, since one ingest stamps many facts within the same second
and the fact id, a hash, then decides. It answers the same questions as the protocol so
that benchmarks can score both modes with one question set. Never use it as memory.
"""

from __future__ import annotations

from apexmem_neo.ontology import GraphBatch
from apexmem_neo.ontology.types import TimeLike, normalize_time
from apexmem_neo.store.protocol import (
    ChangeRecord,
    FactRecord,
    GraphStore,
    check_interval,
    fact_order_key,
    time_before,
)


class EagerOverwriteStore:
    """Overwrite semantics over ``inner``: one surviving fact per (entity, property)."""

    def __init__(self, inner: GraphStore) -> None:
        self.inner = inner

    def write(self, batch: GraphBatch) -> None:
        self.inner.write(batch)

    def _survivor(self, entity_id: str, property: str) -> FactRecord | None:
        """The one fact an overwriting memory keeps for (entity, property): the greatest by
        (t_from, recorded_at, fact_id), so the choice never depends on the ingest clock."""
        facts = self.inner.history(entity_id, property)
        return max(facts, key=fact_order_key) if facts else None

    def current(
        self, entity_id: str, property: str, now: TimeLike | None = None
    ) -> FactRecord | None:
        survivor = self._survivor(entity_id, property)
        if survivor is None or now is None:
            return survivor
        return survivor if _holds(survivor, normalize_time(now)) else None

    def as_of(self, entity_id: str, property: str, t: TimeLike) -> FactRecord | None:
        survivor = self._survivor(entity_id, property)
        return survivor if survivor and _holds(survivor, normalize_time(t)) else None

    def history(self, entity_id: str, property: str) -> list[FactRecord]:
        survivor = self._survivor(entity_id, property)
        return [] if survivor is None else [survivor]

    def changes(self, entity_id: str, property: str) -> list[ChangeRecord]:
        return []  # the overwritten values are gone, so no change can be seen

    def before(self, entity_id: str, property: str, reference: TimeLike) -> FactRecord | None:
        t = time_before(reference, self.inner.get_event)
        return None if t is None else self.as_of(entity_id, property, t)

    def facts_between(self, entity_id: str, t1: TimeLike, t2: TimeLike) -> list[FactRecord]:
        start, end = check_interval(t1, t2)
        found = self.inner.facts_between(entity_id, start, end)
        survivors = {
            (f.entity_id, f.property): self._survivor(f.entity_id, f.property) for f in found
        }
        return [f for f in found if survivors[(f.entity_id, f.property)] == f]


def _holds(fact: FactRecord, t: str) -> bool:
    return fact.t_from <= t and (fact.t_to is None or t <= fact.t_to)
