"""Memory.forget on Neo4j (+ its native index) and with Elasticsearch: nothing of it stays.

The scans query the servers for the erased words everywhere a copy could live: every node
with any label and every property, every relationship, the search nodes, every
Elasticsearch index of the memory (including deleted documents the index still holds), and
the bytes of the local checkpoint and embedding cache files.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch
from neo4j import Driver

from apexmem_neo import Memory
from apexmem_neo.search.embedder import CachedEmbedder
from apexmem_neo.testing import HashingEmbedder
from tests.unit.memory.test_forget import files_holding
from tests.unit.store.test_contract import scoped_batch

pytestmark = [pytest.mark.integration]

RUN = uuid.uuid4().hex[:8]
ALICE, BOB = f"fg-alice-{RUN}", f"fg-bob-{RUN}"
SECRET = f"okapisecret{RUN}"
OTHER = f"narwhalsafe{RUN}"
BOB_SECRET = f"bobkeeps{RUN}"


def neo4j_holding(driver: Driver, word: str) -> int:
    """Nodes or relationships with any property value containing ``word``."""
    text = (
        "CASE WHEN v IS :: LIST<ANY> THEN reduce(s = '', x IN v | s + ' ' + toString(x)) "
        "ELSE toString(v) END CONTAINS $w"
    )
    query = (
        f"CALL () {{ MATCH (n) WHERE any(k IN keys(n) WHERE "
        f"any(v IN [n[k]] WHERE {text})) RETURN count(n) AS a }} "
        f"CALL () {{ MATCH ()-[r]->() WHERE any(k IN keys(r) WHERE "
        f"any(v IN [r[k]] WHERE {text})) RETURN count(r) AS b }} RETURN a + b AS n"
    )
    records, _, _ = driver.execute_query(query, w=word)
    return int(records[0]["n"])


def es_holding(client: Elasticsearch, prefix: str, word: str) -> int:
    client.indices.refresh(index=f"{prefix}*")
    found = client.search(index=f"{prefix}*", query={"query_string": {"query": f"*{word}*"}})
    return int(found["hits"]["total"]["value"])


def fill(memory: Memory) -> None:
    say = [{"role": "user", "content": f"my {SECRET} lives in the attic"}]
    memory.add(say, scope=ALICE, session="s1", extract=False)
    memory.add(
        [{"role": "user", "content": f"{OTHER} stays"}], scope=ALICE, session="s2", extract=False
    )
    memory.add([{"role": "user", "content": f"{BOB_SECRET} here"}], scope=BOB, extract=False)
    memory.store.write(scoped_batch(ALICE, "Lisbon", seq=9))


def cached(tmp_path: Path) -> CachedEmbedder:
    return CachedEmbedder(HashingEmbedder(), tmp_path / "home" / "cache" / "embeddings.db")


@pytest.fixture
def neo4j_memory(neo4j_driver: Driver, tmp_path: Path) -> Iterator[Memory]:
    namespace = f"fg{RUN}"
    with Memory.neo4j(
        neo4j_driver,
        lm=None,
        embedder=cached(tmp_path),
        index_name=namespace,
        home=tmp_path / "home",
    ) as memory:
        fill(memory)
        yield memory
    neo4j_driver.execute_query(
        "MATCH (n) WHERE n.scope IN $scopes DETACH DELETE n", scopes=[ALICE, BOB]
    )


@pytest.mark.neo4j
def test_forget_a_session_on_neo4j_leaves_nothing_anywhere(
    neo4j_memory: Memory, neo4j_driver: Driver, tmp_path: Path
) -> None:
    assert neo4j_holding(neo4j_driver, SECRET) > 0
    result = neo4j_memory.forget(scope=ALICE, session="s1")
    assert result.erasure.counts["turns"] == 1
    assert neo4j_holding(neo4j_driver, SECRET) == 0
    assert files_holding(tmp_path, SECRET) == []
    assert neo4j_memory.search(OTHER, scope=ALICE).turns
    assert neo4j_memory.search(BOB_SECRET, scope=BOB).turns
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (e:Erasure {erasure_id: $id}) RETURN e.kind AS kind", id=result.erasure.erasure_id
    )
    assert records[0]["kind"] == "sessions"


@pytest.mark.neo4j
def test_forget_a_scope_on_neo4j(neo4j_memory: Memory, neo4j_driver: Driver) -> None:
    neo4j_memory.forget(scope=ALICE)
    for word in (SECRET, OTHER):
        assert neo4j_holding(neo4j_driver, word) == 0
    assert neo4j_holding(neo4j_driver, BOB_SECRET) > 0


@pytest.mark.elasticsearch
def test_forget_a_session_with_elasticsearch_leaves_nothing_in_the_index(
    es_client: Elasticsearch, es_url: str, tmp_path: Path
) -> None:
    prefix = f"fg{RUN}"
    with Memory.sqlite(
        tmp_path / "m.sqlite",
        lm=None,
        embedder=cached(tmp_path),
        search="elasticsearch",
        elasticsearch=es_client,
        index_name=prefix,
        home=tmp_path / "home",
    ) as memory:
        fill(memory)
        assert es_holding(es_client, prefix, SECRET) > 0
        memory.forget(scope=ALICE, session="s1")
        assert es_holding(es_client, prefix, SECRET) == 0
        assert files_holding(tmp_path, SECRET) == []
        assert memory.search(OTHER, scope=ALICE).turns
    for name in es_client.indices.get(index=f"{prefix}*"):
        es_client.indices.delete(index=name)
