"""The registry of GraphStore backends the shared suite runs against.

A factory takes a scratch directory and a clock and returns a store whose constructor has
done no I/O; the fixtures call ``init_schema()``. Every call must give an empty store.

To run the shared suite against another backend (e.g. Neo4j under tests/integration), define
``make_store`` there (a fixture returning a ``() -> GraphStore`` that yields initialised,
empty stores) and import the cases: ``from tests.unit.store.test_contract import *`` and
``from tests.unit.store.test_properties import *``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from apexmem_neo.store import GraphStore
from apexmem_neo.store.reference import InMemoryGraphStore
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.store.timeutil import Clock

StoreFactory = Callable[[Path, Clock], GraphStore]

STORE_FACTORIES: dict[str, StoreFactory] = {
    "memory": lambda tmp, clock: InMemoryGraphStore(clock=clock),
    "sqlite-memory": lambda tmp, clock: SQLiteGraphStore(":memory:", clock=clock),
    "sqlite-file": lambda tmp, clock: SQLiteGraphStore(tmp / "graph.sqlite3", clock=clock),
}


class FakeClock:
    """A deterministic clock: 2030-01-01T00:00:00 UTC, one second later on every call."""

    def __init__(self, start: datetime = datetime(2030, 1, 1, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        current = self.now
        self.now += timedelta(seconds=1)
        return current
