"""Fixtures of the Neo4j store tests: ``make_store`` / ``store`` backed by the real server.

Every store a test makes starts from an empty graph: the fixture deletes every node carrying
one of the store's labels (test code only; the library never deletes). The schema stays.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from neo4j import Driver

from apexmem_neo.store import GraphStore
from apexmem_neo.store.neo4j import Neo4jGraphStore
from tests.unit.store.backends import FakeClock

WIPE_ORDER = ("Fact", "Event", "Evidence", "Turn", "Session", "Entity", "Property", "TurnSeq")
"""Leaves first: once facts and events are gone, no node has many relationships left, so
each batch stays small (a label-blind DETACH DELETE of an entity with thousands of facts
in one transaction can exhaust a 1 GB heap)."""
WIPE = (
    "MATCH (n) WHERE $label IN labels(n) "
    "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS"
)


def wipe(driver: Driver) -> None:
    """Delete every node of the store's labels (and their relationships)."""
    with driver.session() as session:
        for label in WIPE_ORDER:
            session.run(WIPE, label=label).consume()


@contextmanager
def store_maker(driver: Driver, chunk_rows: int) -> Iterator[Callable[[], GraphStore]]:
    """A ``make_store`` function: each call empties the graph and returns an initialised store."""
    opened: list[Neo4jGraphStore] = []

    def make() -> GraphStore:
        wipe(driver)
        store = Neo4jGraphStore(driver, clock=FakeClock(), chunk_rows=chunk_rows)
        store.init_schema()
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture(params=["neo4j", "neo4j-chunk2"])
def make_store(
    request: pytest.FixtureRequest, neo4j_driver: Driver
) -> Iterator[Callable[[], GraphStore]]:
    """Fresh Neo4j stores; "neo4j-chunk2" splits every table into 2-row UNWINDs."""
    with store_maker(neo4j_driver, 2 if request.param == "neo4j-chunk2" else 5000) as make:
        yield make


@pytest.fixture
def store(make_store: Callable[[], GraphStore]) -> GraphStore:
    return make_store()


@pytest.fixture
def neo4j_store(neo4j_driver: Driver) -> Neo4jGraphStore:
    """One fresh store with the default chunking, for the Neo4j-specific tests."""
    wipe(neo4j_driver)
    store = Neo4jGraphStore(neo4j_driver, clock=FakeClock())
    store.init_schema()
    return store
