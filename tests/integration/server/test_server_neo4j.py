"""The REST server over a Neo4j memory: the temporal reads, Cypher GraphQuery and export answer
the key's scope only, and another scope's key is refused.

The Neo4j server is shared: the test uses its own scopes and search namespace and deletes only
its own scopes' nodes."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from apexmem_neo import Memory
from apexmem_neo.server.app import create_app
from apexmem_neo.server.keys import KeyStore
from apexmem_neo.server.state import SqliteServerState
from apexmem_neo.testing import HashingEmbedder
from tests.unit.agent.alice import alice_batch

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]


@pytest.fixture
def scopes() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:10]
    return f"rest-a-{tag}", f"rest-b-{tag}"


@pytest.fixture
def memory(neo4j_driver: Driver, tmp_path: Path, scopes: tuple[str, str]) -> Iterator[Memory]:
    memory = Memory.neo4j(
        neo4j_driver, embedder=HashingEmbedder(), lm=None, home=tmp_path / "home",
        index_name=f"rs{uuid.uuid4().hex[:8]}",
    )  # fmt: skip
    first, second = scopes
    try:
        memory.store.write(alice_batch(prefix=f"{first}_", scope=first))
        memory.store.write(alice_batch(prefix=f"{second}_", name="Bea", scope=second))
        yield memory
    finally:
        if memory.search_index is not None:
            memory.search_index.index.drop()
        neo4j_driver.execute_query(
            "MATCH (n) WHERE n.scope IN $scopes DETACH DELETE n", scopes=list(scopes)
        )
        memory.close()


def test_a_key_reads_its_scope_on_neo4j(
    memory: Memory, scopes: tuple[str, str], tmp_path: Path
) -> None:
    first, second = scopes
    state = SqliteServerState(tmp_path / "server.sqlite")
    app = create_app(memory, state)
    key = KeyStore(state).create([first]).key
    auth = {"Authorization": f"Bearer {key}"}
    base = f"/v1/scopes/{first}"
    with TestClient(app) as client:
        params = {"entity": "Alice", "property": "favorite restaurant", "at": "2024-02-01"}
        fact = client.get(f"{base}/as_of", params=params, headers=auth).json()["fact"]
        assert fact["value"] == "Italian Garden"
        cypher = {"query": "MATCH (f:Fact) RETURN f.fact_id AS id", "language": "cypher"}
        rows = client.post(f"{base}/query", json=cypher, headers=auth).json()["rows"]
        assert len(rows) == 2 and all(r[0].startswith(f"{first}_") for r in rows)
        exported = client.get(f"{base}/export", headers=auth).text
        assert "Italian Garden" in exported and f"{second}_" not in exported
        other = client.get(f"/v1/scopes/{second}/entities", headers=auth)
        assert other.status_code == 403 and "Bea" not in other.text
