"""What both search benchmarks share: backend construction at the edge, embedder, output."""

from __future__ import annotations

import argparse
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from apexmem_neo.search.embedder import DEFAULT_MODEL, CachedEmbedder, make_embedder
from apexmem_neo.search.protocol import SearchIndex
from apexmem_neo.settings import Settings

RESULTS = Path(__file__).resolve().parents[1] / "results"
SETTINGS = Settings()
BACKENDS = ("embedded", "elasticsearch", "neo4j")


def embedder(model: str = DEFAULT_MODEL) -> CachedEmbedder:
    made = make_embedder(model, models_dir=SETTINGS.models_dir, cache_path=SETTINGS.embed_cache)
    assert isinstance(made, CachedEmbedder)
    return made


def make_index(
    backend: str, es_url: str, neo4j_uri: str, tag: str, es_vector_index: str = "auto"
) -> tuple[SearchIndex, Callable[[], None]]:
    """A fresh, uniquely named index on ``backend`` and a function that drops and closes it
    (``es_vector_index``: Elasticsearch's HNSW vector format, float, int8 or BBQ)."""
    name = f"bench_{tag}_{uuid.uuid4().hex[:8]}"
    if backend == "embedded":
        from apexmem_neo.search.backends.embedded import EmbeddedIndex

        index: Any = EmbeddedIndex()
        return index, index.close
    if backend == "elasticsearch":
        from elasticsearch import Elasticsearch

        from apexmem_neo.search.backends.elasticsearch import ElasticsearchIndex

        client = Elasticsearch(es_url, request_timeout=120)
        index = ElasticsearchIndex(client, name, url=es_url, vector_index=es_vector_index)

        def _close_es() -> None:
            index.drop()
            client.close()

        return index, _close_es
    if backend == "neo4j":
        from neo4j import GraphDatabase

        from apexmem_neo.search.backends.neo4j_native import Neo4jNativeIndex

        driver = GraphDatabase.driver(neo4j_uri, auth=None)
        index = Neo4jNativeIndex(driver, namespace=name, url=neo4j_uri)

        def _close_neo4j() -> None:
            index.drop()
            driver.close()

        return index, _close_neo4j
    raise ValueError(f"unknown backend {backend!r}; known: {BACKENDS}")


def add_es_vector_index_argument(parser: argparse.ArgumentParser) -> None:
    from apexmem_neo.search.backends.elasticsearch import DEFAULT_VECTOR_INDEX, VECTOR_INDEX_TYPES

    parser.add_argument(
        "--es-vector-index",
        choices=("auto", *VECTOR_INDEX_TYPES),
        default=DEFAULT_VECTOR_INDEX,
        help="Elasticsearch vector format: float HNSW, int8 or BBQ (quantised, rescored); "
        "auto: BBQ from 64 dimensions",
    )


def write_json(name: str, payload: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
    return path
