"""Forgetting on the search servers: the shared cases on Elasticsearch and Neo4j, then a
direct look into each index for the secret after it was erased.

On Elasticsearch every erase that deleted something waits for the shard's retention lease
(renewed every 30 s) before it merges the deleted documents away, so these cases are slow.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from elasticsearch import Elasticsearch
from neo4j import Driver

from apexmem_neo.search.backends.elasticsearch import ElasticsearchIndex
from apexmem_neo.search.backends.neo4j_native import Neo4jNativeIndex
from apexmem_neo.search.protocol import SearchIndex
from tests.unit.search.forget_contract import *  # noqa: F403
from tests.unit.search.forget_contract import (
    B_TURNS,
    SCOPE_A,
    SECRET,
    SECRET_IDS,
    SECRET_TURNS,
    built,
)

pytestmark = [pytest.mark.integration]


@pytest.fixture(
    params=[
        pytest.param("elasticsearch", marks=pytest.mark.elasticsearch),
        pytest.param("neo4j", marks=pytest.mark.neo4j),
    ]
)
def make_index(request: pytest.FixtureRequest) -> Iterator[Callable[[], SearchIndex]]:
    """Fresh, uniquely named indexes on the server the case is parametrised with."""
    made: list[SearchIndex] = []

    def _make() -> SearchIndex:
        name = uuid.uuid4().hex[:10]
        if request.param == "elasticsearch":
            client = request.getfixturevalue("es_client")
            made.append(ElasticsearchIndex(client, f"test_forget_{name}"))
        else:
            made.append(Neo4jNativeIndex(request.getfixturevalue("neo4j_driver"), f"F{name}"))
        return made[-1]

    yield _make
    for index in made:
        index.drop()


@pytest.mark.elasticsearch
def test_elasticsearch_keeps_no_copy_of_the_erased_documents(es_client: Elasticsearch) -> None:
    index = ElasticsearchIndex(es_client, f"test_forget_{uuid.uuid4().hex[:10]}")
    try:
        search = built(index)
        name = index.name
        assert _es_matches(es_client, name) == len(SECRET_IDS) + 1  # and scope B's turn
        search.forget(SCOPE_A, SECRET_IDS)
        assert _es_matches(es_client, name) == 1  # scope B's own turn
        docs = es_client.indices.stats(index=name, metric="docs")["indices"][name]["primaries"]
        assert docs["docs"]["deleted"] == 0  # merged away, not only marked deleted
    finally:
        index.drop()


def _es_matches(client: Elasticsearch, name: str) -> int:
    """Documents whose terms hold the secret, counted by the server itself."""
    query = {"multi_match": {"query": SECRET, "fields": ["text_terms", "context_terms"]}}
    return int(client.count(index=name, query=query)["count"])


@pytest.mark.neo4j
def test_neo4j_keeps_no_node_link_or_index_entry_of_the_erased_documents(
    neo4j_driver: Driver,
) -> None:
    label = f"ForgetTestTurn{uuid.uuid4().hex[:8]}"
    turn_ids = [t.turn_id for t in SECRET_TURNS]
    neo4j_driver.execute_query(
        f"UNWIND $ids AS id CREATE (:Turn:{label} {{turn_id: id}})", {"ids": turn_ids}
    )
    namespace = f"F{uuid.uuid4().hex[:10]}"
    index = Neo4jNativeIndex(neo4j_driver, namespace)
    try:
        search = built(index)
        assert _neo4j_links(neo4j_driver, label) == len(turn_ids)
        search.forget(SCOPE_A, SECRET_IDS)
        assert _neo4j_links(neo4j_driver, label) == 0
        records, _, _ = neo4j_driver.execute_query(
            f"MATCH (n:SearchDoc_{namespace}) WHERE n.doc_json CONTAINS $secret "
            "RETURN n.graph_id AS graph_id",
            {"secret": SECRET},
        )
        assert [r["graph_id"] for r in records] == [B_TURNS[0].turn_id]
        for field in ("text", "context"):
            records, _, _ = neo4j_driver.execute_query(
                "CALL db.index.fulltext.queryNodes($index, $secret) YIELD node "
                "RETURN node.graph_id AS graph_id",
                {"index": f"search_{namespace.lower()}_{field}_terms", "secret": SECRET},
            )
            assert [r["graph_id"] for r in records] == [B_TURNS[0].turn_id]
    finally:
        index.drop()
        neo4j_driver.execute_query(f"MATCH (t:{label}) DETACH DELETE t")


def _neo4j_links(driver: Driver, label: str) -> int:
    records, _, _ = driver.execute_query(
        f"MATCH (:Turn:{label})<-[r:INDEXES]-() RETURN count(r) AS n"
    )
    return int(records[0]["n"])
