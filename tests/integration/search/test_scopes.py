"""Scopes on the search servers: an index that follows written batches keeps each batch's
scope (a Neo4j store read through the SQL shim into the Neo4j-native index; a SQLite store
into Elasticsearch), and an index written before scopes is refused with the rebuild command.
The two-scope search cases themselves run in test_elasticsearch_index.py and
test_neo4j_index.py (tests/unit/search/scope_contract.py)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch
from neo4j import Driver

from apexmem_neo.ontology.ids import scope_label
from apexmem_neo.search import UnscopedIndexError, documents_from_batch
from apexmem_neo.search.backends.elasticsearch import VECTOR_FIELDS, ElasticsearchIndex
from apexmem_neo.search.backends.neo4j_native import Neo4jNativeIndex
from apexmem_neo.search.config import BM25_ONLY, DENSE_ONLY, HYBRID, SearchConfig
from apexmem_neo.search.documents import ALL_KINDS
from apexmem_neo.search.engine import HybridSearch
from apexmem_neo.search.indexer import index_batches
from apexmem_neo.search.protocol import SearchFilters, SearchIndex
from apexmem_neo.store import GraphStore
from apexmem_neo.store.neo4j import Neo4jGraphStore
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.testing import HashingEmbedder
from tests.unit.search.test_scopes import mom_batch

pytestmark = [pytest.mark.integration]
MODES = [BM25_ONLY, DENSE_ONLY, HYBRID]


@pytest.fixture
def scopes() -> dict[str, str]:
    """Two fresh scopes (the Neo4j database is shared: their ids are the test's own)."""
    run = uuid.uuid4().hex[:8]
    return {f"a-{run}": "Lisbon", f"b-{run}": "Oslo"}


@pytest.fixture
def neo4j_graph(neo4j_driver: Driver, scopes: dict[str, str]) -> Iterator[Neo4jGraphStore]:
    """A Neo4j store; the scopes' nodes are deleted afterwards."""
    store = Neo4jGraphStore(neo4j_driver)
    store.init_schema()
    yield store
    for scope in scopes:
        neo4j_driver.execute_query(f"MATCH (n:{scope_label(scope)}) DETACH DELETE n")
    store.close()


def _follow_and_search(
    index: SearchIndex,
    store: GraphStore,
    scopes: dict[str, str],
    config: SearchConfig,
) -> None:
    """Write each scope's batch, index it with ``index_batches``, then check every document's
    scope and that a search in each scope finds only that scope's documents."""
    search = HybridSearch(index, HashingEmbedder(dimensions=48, seed=3), config)
    batches = {scope: mom_batch(scope, city) for scope, city in scopes.items()}
    for batch in batches.values():
        store.write(batch)
        index_batches(search, store, [batch])
    expected = [d for b in batches.values() for d in documents_from_batch(b)]
    stored = index.get([d.doc_id for d in expected])
    assert {i: d.scope for i, d in stored.items()} == {d.doc_id: d.scope for d in expected}
    for scope, batch in batches.items():
        own = {d.graph_id for d in documents_from_batch(batch)}
        for query in ("Where does Mom live? home city Lisbon", "Mom moved to Oslo, home city"):
            results = search.search(query, k=10, filters=SearchFilters(scope=scope))
            for kind in ALL_KINDS:
                found = {h.graph_id for h in results.group(kind)}
                assert found and found <= own, (scope, query, kind)


@pytest.mark.neo4j
@pytest.mark.parametrize("config", MODES, ids=lambda c: c.name)
def test_a_neo4j_index_following_a_neo4j_store_keeps_the_scopes(
    neo4j_driver: Driver,
    neo4j_graph: Neo4jGraphStore,
    scopes: dict[str, str],
    config: SearchConfig,
) -> None:
    index = Neo4jNativeIndex(neo4j_driver, namespace=f"T{uuid.uuid4().hex[:10]}")
    try:
        _follow_and_search(index, neo4j_graph, scopes, config)
    finally:
        index.drop()


@pytest.mark.elasticsearch
@pytest.mark.parametrize("config", MODES, ids=lambda c: c.name)
def test_an_elasticsearch_index_following_a_sqlite_store_keeps_the_scopes(
    es_client: Elasticsearch, es_url: str, tmp_path: Path, scopes: dict[str, str],
    config: SearchConfig,
) -> None:  # fmt: skip
    store = SQLiteGraphStore(tmp_path / "graph.sqlite")
    store.init_schema()
    index = ElasticsearchIndex(es_client, f"test_search_{uuid.uuid4().hex[:10]}", es_url)
    try:
        _follow_and_search(index, store, scopes, config)
    finally:
        index.drop()
        store.close()


@pytest.mark.elasticsearch
def test_an_elasticsearch_index_from_before_scopes_is_refused(
    es_client: Elasticsearch, es_url: str
) -> None:
    """Its documents keep vectors and JSON out of _source, so they cannot be given a scope
    in place: create() names the command that rebuilds the index."""
    index = ElasticsearchIndex(es_client, f"test_search_{uuid.uuid4().hex[:10]}", es_url)
    properties = {
        VECTOR_FIELDS[0]: {"type": "dense_vector", "dims": 16, "similarity": "cosine"},
        "doc_id": {"type": "keyword"},
        "doc_json": {"type": "binary", "doc_values": True},
    }
    es_client.indices.create(index=index.name, mappings={"properties": properties})
    try:
        with pytest.raises(UnscopedIndexError, match=r"before scopes.*`apexmem index --rebuild`"):
            index.create(16)
        assert index.embedder_info() == ("", 16)  # reading the record still works
        index.drop()  # what --rebuild does first
        index.create(16)
    finally:
        index.drop()


@pytest.mark.neo4j
def test_a_neo4j_namespace_from_before_scopes_is_refused(neo4j_driver: Driver) -> None:
    index = Neo4jNativeIndex(neo4j_driver, namespace=f"T{uuid.uuid4().hex[:10]}")
    try:
        index.create(16)
        # The test plays an older version's document (no scope), so it reads the private label.
        neo4j_driver.execute_query(f"CREATE (:{index._label} {{doc_id: 'turn:old', kind: 'turn'}})")
        with pytest.raises(UnscopedIndexError, match="apexmem index --store neo4j --rebuild"):
            index.create(16)
        index.drop()
        index.create(16)
        assert index.count() == 0
    finally:
        index.drop()
