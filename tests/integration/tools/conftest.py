"""The tool test graph in Neo4j (written through Neo4jGraphStore) and in SQLite, side by side.

The Neo4j server is shared: the graph's nodes all carry ``tqx`` ids or names, the fixture
deletes exactly those before and after, and never touches anyone else's nodes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver

from apexmem_neo.store.neo4j import Neo4jGraphStore
from apexmem_neo.tools import Neo4jQueryBackend, SQLiteQueryBackend
from tests.unit.store.backends import FakeClock
from tests.unit.tools.conftest import make_sqlite_graph
from tests.unit.tools.graph_data import P, build_batch

ID_KEYS = {
    "Session": "session_id",
    "Turn": "turn_id",
    "Entity": "entity_id",
    "Evidence": "evidence_id",
    "Event": "event_id",
    "Fact": "fact_id",
    "Property": "name",
}
"""Per label, the property that starts with the test prefix (an indexed key: prefix seeks)."""
MINE = (
    "CALL () { "
    + " UNION ".join(
        f"MATCH (n:{label}) WHERE n.{key} STARTS WITH $prefix RETURN n"
        for label, key in ID_KEYS.items()
    )
    + " }"
)
"""Binds ``n`` to each node of the test graph, found by index seeks (the server is shared)."""


def delete_test_graph(driver: Driver) -> None:
    with driver.session() as session:
        session.run(MINE + " DETACH DELETE n", prefix=f"{P}_").consume()


def write_test_graph(driver: Driver) -> None:
    store = Neo4jGraphStore(driver, clock=FakeClock())
    store.init_schema()
    store.write(build_batch())
    store.close()


def count_test_graph(driver: Driver) -> int:
    with driver.session() as session:
        record = session.run(MINE + " RETURN count(n) AS n", prefix=f"{P}_").single()
    return int(record["n"]) if record else 0


@pytest.fixture(scope="module")
def neo4j_graph(neo4j_driver: Driver) -> Iterator[Driver]:
    delete_test_graph(neo4j_driver)
    write_test_graph(neo4j_driver)
    yield neo4j_driver
    delete_test_graph(neo4j_driver)


@pytest.fixture
def neo4j_backend(neo4j_graph: Driver) -> Neo4jQueryBackend:
    return Neo4jQueryBackend(neo4j_graph)


@pytest.fixture(scope="module")
def sqlite_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_sqlite_graph(tmp_path_factory.mktemp("tools") / "graph.sqlite3")


@pytest.fixture
def sqlite_backend(sqlite_path: Path) -> SQLiteQueryBackend:
    return SQLiteQueryBackend(sqlite_path)
