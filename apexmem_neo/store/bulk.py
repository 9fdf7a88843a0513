"""Bulk loading: many batches into one store, optionally by concurrent writers.

``write_batches(store, batches, writers=2)`` keeps two transactions in flight on a store that
allows it (Neo4j: one Bolt worker per transaction, so a second writer uses a second core
while the first commits). Each batch is still one
transaction, all or nothing; the load as a whole is not: when a batch fails, no further batch
starts, the ones in flight finish, and ``BulkWriteError`` names the failed batch, so the
batches before it stay stored and the load can resume from there (re-writing a stored batch
adds nothing).

Group commit: with one writer, a store that offers ``write_many(batches)`` (SQLite) gets
consecutive batches in one transaction, up to ``group_facts`` facts; if that transaction
fails, its batches are re-written one at a time, so the error still names the failing batch
and the batches before it stay stored.

Order where it matters: a batch that references an id (entity, event, turn, ...) defined by a
batch still in flight waits for that batch to commit, so references never dangle because of
concurrency. Two writers creating the same fact or event concurrently is handled by the
store (Neo4j re-runs the loser with MERGE); deadlocks on shared nodes are transient errors
the driver retries.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Final

from apexmem_neo.errors import BulkWriteError as BulkWriteError
from apexmem_neo.ontology import GraphBatch
from apexmem_neo.store.protocol import GraphStore

GROUP_FACTS: Final = 50_000
"""Facts per transaction for a group-committing store (SQLite): larger groups load a large
store clearly faster than 10k (figures in the CHANGELOG); a failed group is redone batch by
batch, so not much larger."""

IdKey = tuple[str, str]
"""(kind, id), kinds as in ``GraphBatch.external_references``."""


@dataclass(frozen=True)
class BulkWriteReport:
    batches: int
    facts: int
    seconds: float


def write_batches(
    store: GraphStore,
    batches: Iterable[GraphBatch],
    *,
    writers: int = 1,
    group_facts: int = GROUP_FACTS,
) -> BulkWriteReport:
    """Write ``batches`` (consumed lazily) with up to ``writers`` transactions in flight.

    ``group_facts``: with one writer and a store that has ``write_many``, commit consecutive
    batches together up to this many facts (0 or 1: one batch per transaction).
    """
    if writers < 1:
        raise ValueError(f"writers must be at least 1, got {writers}")
    if group_facts < 0:
        raise ValueError(f"group_facts must not be negative, got {group_facts}")
    if writers > 1 and not getattr(store, "concurrent_writes", False):
        raise ValueError(
            f"{type(store).__name__} takes one writer at a time; use writers=1 "
            "(concurrent writers need a store with concurrent_writes, such as Neo4j)"
        )
    start = time.perf_counter()
    write_many = getattr(store, "write_many", None)
    if writers == 1 and write_many is not None and group_facts > 1:
        batches_done, facts = _write_in_groups(store, write_many, batches, group_facts)
    elif writers == 1:
        batches_done, facts = _write_in_order(store, batches)
    else:
        batches_done, facts = _write_concurrently(store, batches, writers)
    return BulkWriteReport(batches_done, facts, time.perf_counter() - start)


def _write_in_order(store: GraphStore, batches: Iterable[GraphBatch]) -> tuple[int, int]:
    count = facts = 0
    for index, batch in enumerate(batches):
        try:
            store.write(batch)
        except Exception as exc:
            raise BulkWriteError(index, exc) from exc
        count, facts = count + 1, facts + len(batch.facts)
    return count, facts


def _write_in_groups(
    store: GraphStore,
    write_many: Callable[[Sequence[GraphBatch]], None],
    batches: Iterable[GraphBatch],
    group_facts: int,
) -> tuple[int, int]:
    count = facts = 0
    for group in _groups(batches, group_facts):
        _commit_group(store, write_many, group, first_index=count)
        count, facts = count + len(group), facts + sum(len(b.facts) for b in group)
    return count, facts


def _groups(batches: Iterable[GraphBatch], group_facts: int) -> Iterator[list[GraphBatch]]:
    """Consecutive batches, cut once a group holds ``group_facts`` facts (a fact-less batch
    counts as one, so a stream of turn-only batches is still cut)."""
    group: list[GraphBatch] = []
    size = 0
    for batch in batches:
        group.append(batch)
        size += max(len(batch.facts), 1)
        if size >= group_facts:
            yield group
            group, size = [], 0
    if group:
        yield group


def _commit_group(
    store: GraphStore,
    write_many: Callable[[Sequence[GraphBatch]], None],
    group: list[GraphBatch],
    first_index: int,
) -> None:
    """One transaction for ``group``; if it fails, batch by batch to find the failing one."""
    try:
        write_many(group)
    except Exception:
        for offset, batch in enumerate(group):
            try:
                store.write(batch)
            except Exception as exc:
                raise BulkWriteError(first_index + offset, exc) from exc


def _write_concurrently(
    store: GraphStore, batches: Iterable[GraphBatch], writers: int
) -> tuple[int, int]:
    in_flight: dict[Future[None], tuple[int, frozenset[IdKey]]] = {}
    count = facts = 0
    failure: BulkWriteError | None = None
    with ThreadPoolExecutor(writers, thread_name_prefix="apexmem-bulk") as pool:
        for index, batch in enumerate(batches):
            needed = references(batch)
            finished = [f for f in in_flight if f.done()]
            blockers = [f for f, (_, defined) in in_flight.items() if defined & needed]
            failure = _settle(in_flight, {*finished, *blockers}) or failure
            while failure is None and len(in_flight) >= writers:
                done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                failure = _settle(in_flight, done)
            if failure is not None:
                break
            in_flight[pool.submit(store.write, batch)] = (index, definitions(batch))
            count, facts = count + 1, facts + len(batch.facts)
        failure = _settle(in_flight, list(in_flight)) or failure
    if failure is not None:
        raise failure
    return count, facts


def _settle(
    in_flight: dict[Future[None], tuple[int, frozenset[IdKey]]], futures: Iterable[Future[None]]
) -> BulkWriteError | None:
    """Wait for ``futures``, drop them from ``in_flight``; the earliest batch's failure."""
    failures: list[BulkWriteError] = []
    for future in list(futures):
        index, _ = in_flight.pop(future)
        exc = future.exception()
        if exc is not None:
            failures.append(BulkWriteError(index, exc))
    failures.sort(key=lambda failure: failure.index)
    return failures[0] if failures else None


def references(batch: GraphBatch) -> frozenset[IdKey]:
    """The ids ``batch`` points at without defining them."""
    return frozenset(
        (kind, id_) for kind, ids in batch.external_references().items() for id_ in ids
    )


def definitions(batch: GraphBatch) -> frozenset[IdKey]:
    """The ids ``batch`` defines that another batch may reference."""
    return frozenset(
        [
            *(("session", s.session_id) for s in batch.sessions),
            *(("turn", t.turn_id) for t in batch.turns),
            *(("entity", e.entity_id) for e in batch.entities),
            *(("evidence", e.evidence_id) for e in batch.evidence),
            *(("event", e.event_id) for e in batch.events),
        ]
    )


__all__ = [
    "GROUP_FACTS",
    "BulkWriteError",
    "BulkWriteReport",
    "definitions",
    "references",
    "write_batches",
]
