"""An Elasticsearch index records its embedder in the mapping's _meta and refuses another."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from elasticsearch import Elasticsearch

from apexmem_neo.search import EmbedderMismatchError
from apexmem_neo.search.backends.elasticsearch import ElasticsearchIndex, mapping

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


def test_the_record_is_kept_and_another_model_refused(
    make_index: Callable[[], ElasticsearchIndex],
) -> None:
    index = make_index()
    assert index.embedder_info() is None
    index.create(16, "model-a")
    index.create(16, "model-a")  # the same model reopens
    assert index.embedder_info() == ("model-a", 16)
    with pytest.raises(EmbedderMismatchError) as caught:
        index.create(16, "model-b")
    message = str(caught.value)
    assert "\n" not in message and index.name in message
    assert "'model-a' (16-d)" in message and "'model-b' (16-d)" in message
    with pytest.raises(EmbedderMismatchError, match=r"'model-a' \(16-d\).*\(8-d\)"):
        index.create(8, "model-a")


def test_an_index_without_a_name_adopts_the_first_one(
    es_client: Elasticsearch, make_index: Callable[[], ElasticsearchIndex]
) -> None:
    index = make_index()
    older = {k: v for k, v in mapping(16).items() if k != "_meta"}
    es_client.indices.create(index=index.name, mappings=older)
    assert index.embedder_info() == ("", 16)
    with pytest.raises(EmbedderMismatchError, match="an unrecorded embedder"):
        index.create(8, "model-a")
    index.create(16, "model-a")
    assert index.embedder_info() == ("model-a", 16)
    found = es_client.indices.get_mapping(index=index.name)[index.name]["mappings"]
    assert found["_meta"] == {"embedder": "model-a"}
    with pytest.raises(EmbedderMismatchError):
        index.create(16, "model-b")


def test_drop_forgets_the_record(make_index: Callable[[], ElasticsearchIndex]) -> None:
    index = make_index()
    index.create(16, "model-a")
    index.drop()
    assert index.embedder_info() is None
    index.create(8, "model-b")
    assert index.embedder_info() == ("model-b", 8)
