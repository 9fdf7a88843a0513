"""The shared SearchIndex suite on a real Neo4j, plus linking and error behaviour."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from neo4j import Driver, GraphDatabase

from apexmem_neo.errors import ServiceUnavailableError
from apexmem_neo.search.backends.neo4j_native import Neo4jNativeIndex
from apexmem_neo.search.documents import DocKind, SearchDocument
from apexmem_neo.search.engine import HybridSearch
from apexmem_neo.testing import HashingEmbedder
from tests.unit.search.contract import *  # noqa: F403
from tests.unit.search.scope_contract import *  # noqa: F403

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]


@pytest.fixture
def make_index(neo4j_driver: Driver) -> Iterator[Callable[[], Neo4jNativeIndex]]:
    made: list[Neo4jNativeIndex] = []

    def _make() -> Neo4jNativeIndex:
        made.append(Neo4jNativeIndex(neo4j_driver, namespace=f"T{uuid.uuid4().hex[:10]}"))
        return made[-1]

    yield _make
    for index in made:
        index.drop()


def test_documents_link_to_their_graph_nodes(
    neo4j_driver: Driver, make_index: Callable[[], Neo4jNativeIndex]
) -> None:
    label = f"SearchTestTurn{uuid.uuid4().hex[:8]}"
    turn_id = f"turn_{uuid.uuid4().hex}"
    # A stand-in graph node: label Turn (as the store writes it) plus a unique test label.
    neo4j_driver.execute_query(f"CREATE (:Turn:{label} {{turn_id: $id}})", {"id": turn_id})
    try:
        index = make_index()
        search = HybridSearch(index, HashingEmbedder(dimensions=16))
        search.create()
        doc = SearchDocument(
            kind=DocKind.TURN, graph_id=turn_id, scope="s", text="Caroline: hello there"
        )
        search.index_documents([doc])
        search.index_documents([doc])
        records, _, _ = neo4j_driver.execute_query(
            f"MATCH (d)-[r:INDEXES]->(t:{label}) RETURN count(r) AS n"
        )
        assert records[0]["n"] == 1
    finally:
        neo4j_driver.execute_query(f"MATCH (t:{label}) DETACH DELETE t")


def test_unreachable_server_names_the_url() -> None:
    url = "bolt://127.0.0.1:9"
    driver = GraphDatabase.driver(url, auth=None, connection_timeout=2)
    search = HybridSearch(Neo4jNativeIndex(driver, "Nowhere", url=url), HashingEmbedder())
    with pytest.raises(ServiceUnavailableError, match="127.0.0.1:9"):
        search.create()
    driver.close()


def test_a_namespace_of_an_older_version_is_refused(
    neo4j_driver: Driver, make_index: Callable[[], Neo4jNativeIndex]
) -> None:
    """A namespace indexed before per-kind vector indexes has one shared vector index: its
    vectors are where the dense queries no longer look, so create() says to index again."""
    from apexmem_neo.search.protocol import SearchError

    index = make_index()
    # The test plays an older version's schema, so it reads the index's private names.
    prefix, label = index._prefix, index._label
    neo4j_driver.execute_query(
        f"CREATE VECTOR INDEX {prefix}_text_vector FOR (n:{label}) ON n.text_vector "
        "OPTIONS {indexConfig: {`vector.dimensions`: 16, `vector.similarity_function`: 'cosine'}}"
    )
    with pytest.raises(SearchError, match="older version"):
        index.create(16)
    index.drop()  # drops the legacy index too
    index.create(16)
