"""Elasticsearch vector formats: named, validated before any request, rescored if quantised."""

from __future__ import annotations

import pytest
from elasticsearch import Elasticsearch

from apexmem_neo.search.backends.elasticsearch import (
    ElasticsearchIndex,
    mapping,
    vector_index_options,
)


def test_quantised_formats_rescore_with_the_float_vectors() -> None:
    assert "rescore_vector" not in vector_index_options("hnsw")
    assert vector_index_options("bbq_hnsw")["rescore_vector"]["oversample"] > 1
    fields = mapping(768, "int8_hnsw")["properties"]
    assert fields["turn_text_vector"]["index_options"]["type"] == "int8_hnsw"


def test_auto_takes_bbq_where_it_has_the_dimensions_it_needs() -> None:
    assert vector_index_options("auto", 768)["type"] == "bbq_hnsw"
    assert vector_index_options("auto", 16)["type"] == "int8_hnsw"


def test_an_unknown_format_is_named_before_any_request() -> None:
    client = Elasticsearch("http://127.0.0.1:9")  # never contacted
    with pytest.raises(ValueError, match="unknown vector index 'pq'.*bbq_hnsw"):
        ElasticsearchIndex(client, "x", "http://127.0.0.1:9", vector_index="pq")
    client.close()
