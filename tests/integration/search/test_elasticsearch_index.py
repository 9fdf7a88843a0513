"""The shared SearchIndex suite on a real Elasticsearch, plus its error behaviour."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from elasticsearch import Elasticsearch

from apexmem_neo.errors import ServiceUnavailableError
from apexmem_neo.search.backends.elasticsearch import VECTOR_FIELDS, ElasticsearchIndex
from apexmem_neo.search.engine import HybridSearch
from apexmem_neo.testing import HashingEmbedder
from tests.unit.search.contract import *  # noqa: F403
from tests.unit.search.contract import IN_SCOPE
from tests.unit.search.scope_contract import *  # noqa: F403

pytestmark = [pytest.mark.integration, pytest.mark.elasticsearch]


@pytest.fixture
def make_index(es_client: Elasticsearch, es_url: str) -> Iterator[Callable[[], ElasticsearchIndex]]:
    made: list[ElasticsearchIndex] = []

    def _make() -> ElasticsearchIndex:
        made.append(ElasticsearchIndex(es_client, f"test_search_{uuid.uuid4().hex[:10]}", es_url))
        return made[-1]

    yield _make
    for index in made:
        index.drop()


def test_unreachable_server_names_the_url() -> None:
    url = "http://127.0.0.1:9"
    client = Elasticsearch(url, request_timeout=2, max_retries=0)
    search = HybridSearch(ElasticsearchIndex(client, "nowhere", url), HashingEmbedder())
    with pytest.raises(ServiceUnavailableError, match="127.0.0.1:9"):
        search.create()
    with pytest.raises(ServiceUnavailableError, match="elasticsearch"):
        search.search("anything", filters=IN_SCOPE)
    client.close()


def test_a_never_created_index_counts_zero(
    make_index: Callable[[], ElasticsearchIndex],
) -> None:
    assert make_index().count() == 0


def test_creating_twice_keeps_the_documents(make_index: Callable[[], ElasticsearchIndex]) -> None:
    from tests.unit.search.contract import corpus

    search = HybridSearch(make_index(), HashingEmbedder(dimensions=16))
    search.create()
    search.index_documents(corpus())
    search.create()
    assert search.index.count() == len(corpus())


@pytest.mark.parametrize("missing", ["doc_id", "doc_json", VECTOR_FIELDS[0]])
def test_an_index_of_an_older_mapping_is_refused(
    es_client: Elasticsearch, es_url: str, missing: str
) -> None:
    """An index made by an older mapping cannot serve hits or documents from doc values: say
    which field it lacks."""
    from apexmem_neo.search.protocol import SearchError

    index = ElasticsearchIndex(es_client, f"test_search_{uuid.uuid4().hex[:10]}", es_url)
    properties = {
        VECTOR_FIELDS[0]: {"type": "dense_vector", "dims": 16, "similarity": "cosine"},
        "doc_id": {"type": "keyword"},
        "doc_json": {"type": "binary", "doc_values": True},
    }
    del properties[missing]
    es_client.indices.create(index=index.name, mappings={"properties": properties})
    try:
        with pytest.raises(SearchError, match=f"older version \\(no {missing} field\\)"):
            index.create(16)
    finally:
        index.drop()


def test_one_refresh_makes_a_streamed_upsert_searchable(
    make_index: Callable[[], ElasticsearchIndex],
) -> None:
    from tests.unit.search.contract import corpus

    search = HybridSearch(make_index(), HashingEmbedder(dimensions=16))
    search.create()
    written = search.index_documents(corpus(), batch_size=2)  # three embedding batches
    assert written == len(corpus()) == search.index.count()
    assert (
        search.search("necklace", k=1, filters=IN_SCOPE)
        .turns[0]
        .text.startswith("Caroline: My friends")
    )


def test_optimize_merges_to_one_segment_and_keeps_the_rankings(
    make_index: Callable[[], ElasticsearchIndex],
) -> None:
    from tests.unit.search.contract import corpus

    index = make_index()
    search = HybridSearch(index, HashingEmbedder(dimensions=16))
    search.create()
    for start in range(0, len(corpus()), 2):  # one refresh, one segment per upsert
        search.index_documents(corpus()[start : start + 2])
    assert index.segments() > 1
    queries = ("necklace", "When did Melanie paint a sunrise?", "support group")
    before = [search.search(q, k=5, filters=IN_SCOPE) for q in queries]
    index.optimize()
    assert index.segments() == 1
    assert [search.search(q, k=5, filters=IN_SCOPE) for q in queries] == before
    with pytest.raises(ValueError, match="max_segments"):
        index.optimize(0)
