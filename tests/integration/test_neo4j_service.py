"""A real Neo4j 5.26 answers vector and full-text index queries; the launcher starts and stops.

The shared server comes from the ``neo4j_driver`` fixture (environment, running server, Docker
or the local launcher). Every node and index made here carries a label or name unique to this
run and is removed at the end; nothing stands in for Neo4j.
"""

from __future__ import annotations

import shutil
import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from neo4j import Driver

from apexmem_neo.services.base import ServiceState
from apexmem_neo.services.neo4j_server import private_neo4j
from apexmem_neo.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

DOCS: dict[str, tuple[str, list[float]]] = {
    "cat": ("the cat sleeps on the warm windowsill", [1.0, 0.0, 0.0, 0.0]),
    "dog": ("a dog chases the ball across the park", [0.0, 1.0, 0.0, 0.0]),
    "tax": ("quarterly tax return filed with the revenue office", [0.0, 0.0, 1.0, 0.0]),
}


@dataclass(frozen=True)
class Schema:
    label: str
    vector_index: str
    fulltext_index: str


@pytest.fixture(scope="module")
def schema(neo4j_driver: Driver) -> Iterator[Schema]:
    """DOCS as nodes with a run-unique label, plus a vector and a full-text index on them."""
    # Labels and index names cannot be query parameters; these are generated, never user data.
    suffix = uuid.uuid4().hex[:10]
    made = Schema(
        f"ApexmemTest_{suffix}", f"apexmem_test_vec_{suffix}", f"apexmem_test_ft_{suffix}"
    )
    try:
        neo4j_driver.execute_query(
            f"UNWIND $docs AS d CREATE (:{made.label} {{key: d.key, text: d.text, emb: d.emb}})",
            docs=[{"key": k, "text": t, "emb": e} for k, (t, e) in DOCS.items()],
        )
        neo4j_driver.execute_query(
            f"CREATE VECTOR INDEX {made.vector_index} FOR (n:{made.label}) ON n.emb "
            "OPTIONS {indexConfig: {`vector.dimensions`: 4, "
            "`vector.similarity_function`: 'cosine'}}"
        )
        neo4j_driver.execute_query(
            f"CREATE FULLTEXT INDEX {made.fulltext_index} FOR (n:{made.label}) ON EACH [n.text]"
        )
        neo4j_driver.execute_query("CALL db.awaitIndexes(120)")
        yield made
    finally:
        for index in (made.vector_index, made.fulltext_index):
            neo4j_driver.execute_query(f"DROP INDEX {index} IF EXISTS")
        neo4j_driver.execute_query(f"MATCH (n:{made.label}) DETACH DELETE n")


def test_server_is_neo4j_5_26(neo4j_driver: Driver) -> None:
    records, _, _ = neo4j_driver.execute_query(
        "CALL dbms.components() YIELD name, versions WHERE name = 'Neo4j Kernel' "
        "RETURN versions[0] AS version"
    )
    assert str(records[0]["version"]).startswith("5.26.")


def test_vector_index_returns_the_nearest_node(neo4j_driver: Driver, schema: Schema) -> None:
    records, _, _ = neo4j_driver.execute_query(
        "CALL db.index.vector.queryNodes($index, 2, $query) YIELD node, score "
        "RETURN node.key AS key, score",
        index=schema.vector_index,
        query=[0.1, 0.9, 0.05, 0.0],
    )
    assert [r["key"] for r in records] == ["dog", "cat"]
    assert records[0]["score"] > records[1]["score"]


def test_fulltext_index_returns_the_matching_node(neo4j_driver: Driver, schema: Schema) -> None:
    records, _, _ = neo4j_driver.execute_query(
        "CALL db.index.fulltext.queryNodes($index, $query) YIELD node, score "
        "RETURN node.key AS key, score",
        index=schema.fulltext_index,
        query="revenue tax",
    )
    assert [r["key"] for r in records] == ["tax"]
    assert records[0]["score"] > 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


PAGECACHE_SETTING = (
    "SHOW SETTINGS YIELD name, value WHERE name = 'server.memory.pagecache.size' RETURN value"
)


@pytest.mark.skipif(shutil.which("java") is None, reason="the local launcher needs java")
def test_launcher_starts_answers_and_stops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second, private server on a free port: up, healthy, marked PID file, down; its page
    cache is the size APEXMEM_NEO4J_PAGECACHE_MB asks for."""
    monkeypatch.setenv("APEXMEM_NEO4J_PAGECACHE_MB", "96")
    # borrow the shared build and Maven cache; data, logs, PID file and cache dir stay private,
    # so nothing here can prune a build that the shared server runs from
    home = tmp_path / "home"
    service = private_neo4j(Settings().apexmem_home, home, free_port())
    result = service.up()
    try:
        assert result.started
        assert service.status().state is ServiceState.RUNNING
        assert service.pid_file.live_pid() == result.pid
        assert service.version().startswith("5.26.")
        assert (home / "data" / "neo4j" / "data" / "databases").is_dir()
        assert service._query_one(PAGECACHE_SETTING) == "96.00MiB"
        again = service.up()
        assert not again.started
        assert again.pid == result.pid
    finally:
        stopped = service.down()
    assert stopped
    assert service.status().state is ServiceState.STOPPED
    assert not service.pid_file.path.exists()
    assert "apexmem-neo4j-launcher stopped" in service.log_path.read_text()
