"""store.bulk.write_batches: order, failure and the one-writer rule, on real embedded stores.

The concurrent scheduler is exercised on the in-memory reference store behind a thin
wrapper that allows concurrent calls (one lock inside) and records when each batch was
handed over and when it finished; the Neo4j integration suite runs it for real.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import pytest

from apexmem_neo.ontology import Entity, GraphBatch
from apexmem_neo.store import DanglingReferenceError
from apexmem_neo.store.bulk import (
    BulkWriteError,
    definitions,
    references,
    write_batches,
)
from apexmem_neo.store.reference import InMemoryGraphStore
from apexmem_neo.store.sqlite import SQLiteGraphStore
from benchmarks.graph.generate import Spec, generate
from tests.unit.store.test_contract import ALICE, BOB, fact


def sqlite_store(tmp_path: Path) -> SQLiteGraphStore:
    store = SQLiteGraphStore(tmp_path / "bulk.sqlite3")
    store.init_schema()
    return store


def alice_batch(value: str, t_from: str) -> GraphBatch:
    return GraphBatch(facts=[fact(value, t_from)])


def test_one_writer_stores_every_batch_and_reports_them(tmp_path: Path) -> None:
    store = sqlite_store(tmp_path)
    batches = list(generate(Spec(n_facts=2000, n_entities=20, batch_facts=300)))
    report = write_batches(store, iter(batches))
    assert (report.batches, report.facts) == (len(batches), 2000)
    assert store.counts().facts == 2000
    assert store.counts().events == sum(len(b.events) for b in batches)
    again = write_batches(store, batches)  # idempotent, like write
    assert again.facts == 2000 and store.counts().facts == 2000


def test_a_failing_batch_keeps_the_ones_before_and_names_its_index(tmp_path: Path) -> None:
    store = sqlite_store(tmp_path)
    batches = [
        GraphBatch(entities=[ALICE], facts=[fact("Rome", "2020-01-01")]),
        alice_batch("Oslo", "2021-01-01"),
        GraphBatch(facts=[fact("Lima", "2022-01-01", entity=BOB)]),  # Bob never stored
        alice_batch("Kyoto", "2023-01-01"),
    ]
    with pytest.raises(BulkWriteError, match="batch 2") as caught:
        write_batches(store, batches)
    assert caught.value.index == 2
    assert isinstance(caught.value.__cause__, DanglingReferenceError)
    assert [r.value for r in store.history(ALICE.entity_id, "home_city")] == ["Rome", "Oslo"]


class GroupRecordingSQLiteStore(SQLiteGraphStore):
    """The real SQLite store; records how many batches each transaction carried."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.transactions: list[int] = []

    def write_many(self, batches: Sequence[GraphBatch]) -> None:
        super().write_many(batches)
        self.transactions.append(len(batches))


def test_one_writer_commits_consecutive_batches_together_up_to_group_facts(
    tmp_path: Path,
) -> None:
    store = GroupRecordingSQLiteStore(tmp_path / "group.sqlite3")
    store.init_schema()
    batches = list(generate(Spec(n_facts=1500, n_entities=20, batch_facts=300)))
    assert len(batches) == 6, "entities and properties first, then 5 x 300 facts"
    report = write_batches(store, batches, group_facts=1000)
    assert store.transactions == [5, 1], "the fact-less batch counts 1: 1 + 4 x 300 >= 1,000"
    assert report.facts == 1500 and store.counts().facts == 1500
    store.transactions.clear()
    write_batches(store, batches, group_facts=0)  # grouping off: write() per batch
    assert store.transactions == [1] * 6 and store.counts().facts == 1500


def test_a_failing_group_rolls_back_whole_then_keeps_the_batches_before(
    tmp_path: Path,
) -> None:
    store = sqlite_store(tmp_path)
    good = GraphBatch(entities=[ALICE], facts=[fact("Rome", "2020-01-01")])
    dangling = GraphBatch(facts=[fact("Lima", "2022-01-01", entity=BOB)])
    with pytest.raises(DanglingReferenceError, match="entity_id"):
        store.write_many([good, dangling])
    assert store.counts().facts == 0 and store.counts().entities == 0, "all or none"
    with pytest.raises(BulkWriteError, match="batch 1") as caught:
        write_batches(store, [good, dangling, alice_batch("Oslo", "2021-01-01")])
    assert isinstance(caught.value.__cause__, DanglingReferenceError)
    assert [r.value for r in store.history(ALICE.entity_id, "home_city")] == ["Rome"]


def test_group_facts_must_not_be_negative(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="group_facts must not be negative"):
        write_batches(sqlite_store(tmp_path), [], group_facts=-1)


def test_writers_must_be_positive_and_sqlite_takes_one(tmp_path: Path) -> None:
    store = sqlite_store(tmp_path)
    with pytest.raises(ValueError, match="writers must be at least 1"):
        write_batches(store, [], writers=0)
    with pytest.raises(ValueError, match="SQLiteGraphStore takes one writer"):
        write_batches(store, [alice_batch("Rome", "2020-01-01")], writers=2)
    assert store.counts().facts == 0


def test_references_and_definitions_of_a_batch() -> None:
    first = GraphBatch(entities=[ALICE], facts=[fact("Rome", "2020-01-01")])
    second = alice_batch("Oslo", "2021-01-01")
    assert ("entity", ALICE.entity_id) in definitions(first)
    assert references(first) == frozenset()
    assert references(second) == {("entity", ALICE.entity_id)}


class ConcurrentReferenceStore(InMemoryGraphStore):
    """The reference store, callable from several threads; records hand-over and finish."""

    concurrent_writes: ClassVar[bool] = True

    def __init__(self, slow_batches: set[int], slow_until_a_failure: bool = False) -> None:
        """``slow_until_a_failure``: a slow batch finishes only after some write has failed,
        so a loaded machine cannot let it overtake the failing one."""
        super().__init__()
        self.slow_batches = slow_batches
        self.slow_until_a_failure = slow_until_a_failure
        self.failed = threading.Event()
        self.lock = threading.Lock()
        self.started: dict[int, float] = {}
        self.finished: dict[int, float] = {}
        self.calls = 0

    def write(self, batch: GraphBatch) -> None:
        with self.lock:
            index, self.calls = self.calls, self.calls + 1
            self.started[index] = time.perf_counter()
        if index in self.slow_batches:
            time.sleep(0.2)
            if self.slow_until_a_failure:
                self.failed.wait(timeout=30)
        with self.lock:
            try:
                super().write(batch)
            except Exception:
                self.failed.set()
                raise
            self.finished[index] = time.perf_counter()


def test_concurrent_writers_wait_for_the_batch_defining_what_they_reference() -> None:
    carol = Entity(name="Carol", entity_type="Person")
    batches = [
        GraphBatch(entities=[ALICE], facts=[fact("Rome", "2020-01-01")]),  # 0: slow
        GraphBatch(entities=[carol], facts=[fact("Lima", "2020-01-01", entity=carol)]),
        alice_batch("Oslo", "2021-01-01"),  # 2: needs batch 0
    ]
    store = ConcurrentReferenceStore(slow_batches={0})
    store.init_schema()
    report = write_batches(store, batches, writers=2)
    assert report.batches == 3 and store.counts().facts == 3
    assert store.started[1] < store.finished[0], "an independent batch ran beside batch 0"
    assert store.started[2] >= store.finished[0], "batch 2 started before Alice was stored"


def test_concurrent_failure_stops_new_batches_and_names_the_first(tmp_path: Path) -> None:
    batches = [
        GraphBatch(entities=[ALICE], facts=[fact("Rome", "2020-01-01")]),
        GraphBatch(facts=[fact("Lima", "2022-01-01", entity=BOB)]),  # dangling
        *(alice_batch(f"city {i}", f"202{i}-06-01") for i in range(3)),
    ]
    store = ConcurrentReferenceStore(slow_batches={2, 3, 4}, slow_until_a_failure=True)
    store.init_schema()
    with pytest.raises(BulkWriteError, match="batch 1"):
        write_batches(store, iter(batches), writers=2)
    # batch 2 may or may not have been handed over before batch 1's failure was seen (a race
    # between the failing writer and the scheduler); batches 3 and 4 never are
    assert store.calls <= 3, "batch 3 and 4 never start once batch 1 has failed"
    assert store.current(ALICE.entity_id, "home_city") is not None
