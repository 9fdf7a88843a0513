"""A real Elasticsearch answers a dense_vector kNN query and a BM25 match query.

The server comes from the ``es_client`` fixture (environment, running server, Docker or the
local launcher); nothing here stands in for Elasticsearch.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from elasticsearch import Elasticsearch

pytestmark = [pytest.mark.integration, pytest.mark.elasticsearch]

DOCS: dict[str, dict[str, object]] = {
    "cat": {"text": "the cat sleeps on the warm windowsill", "vec": [1.0, 0.0, 0.0, 0.0]},
    "dog": {"text": "a dog chases the ball across the park", "vec": [0.0, 1.0, 0.0, 0.0]},
    "tax": {
        "text": "quarterly tax return filed with the revenue office",
        "vec": [0.0, 0.0, 1.0, 0.0],
    },
}


@pytest.fixture(scope="module")
def index(es_client: Elasticsearch) -> Iterator[str]:
    """A uniquely named index holding DOCS, deleted afterwards."""
    name = f"apexmem-test-es-{uuid.uuid4().hex[:10]}"
    es_client.indices.create(
        index=name,
        settings={"number_of_shards": 1, "number_of_replicas": 0},
        mappings={
            "properties": {
                "text": {"type": "text"},
                "vec": {"type": "dense_vector", "dims": 4, "index": True, "similarity": "cosine"},
            }
        },
    )
    try:
        for doc_id, doc in DOCS.items():
            es_client.index(index=name, id=doc_id, document=doc)
        es_client.indices.refresh(index=name)
        yield name
    finally:
        es_client.indices.delete(index=name, ignore_unavailable=True)


def test_knn_query_finds_the_nearest_vector(es_client: Elasticsearch, index: str) -> None:
    response = es_client.search(
        index=index,
        knn={"field": "vec", "query_vector": [0.1, 0.9, 0.05, 0.0], "k": 1, "num_candidates": 10},
        source=False,
    )
    hits = response["hits"]["hits"]
    assert [h["_id"] for h in hits] == ["dog"]
    assert hits[0]["_score"] > 0.9  # cosine kNN score is (1 + cos) / 2


def test_bm25_match_query_finds_the_document_with_the_words(
    es_client: Elasticsearch, index: str
) -> None:
    response = es_client.search(index=index, query={"match": {"text": "tax revenue"}})
    hits = response["hits"]["hits"]
    assert [h["_id"] for h in hits] == ["tax"]
    assert hits[0]["_source"]["text"] == DOCS["tax"]["text"]
