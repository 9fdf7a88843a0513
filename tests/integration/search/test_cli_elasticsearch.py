"""`apexmem index` and `ask`'s search on Elasticsearch (APEXMEM_SEARCH=elasticsearch): the
Alice store indexed through the real embedding model into a real server, force-merged after
the bulk load, then found again by a fresh open_search."""

from __future__ import annotations

from pathlib import Path

import pytest
from elasticsearch import Elasticsearch

from apexmem_neo.cli.search_index import build_index, es_index_name, open_search
from apexmem_neo.search.documents import DocKind
from apexmem_neo.search.protocol import SearchFilters
from apexmem_neo.settings import Settings
from tests.unit.agent.alice import alice_store

pytestmark = [pytest.mark.integration, pytest.mark.elasticsearch]


@pytest.mark.timeout(900)  # loads the embedding model
def test_index_on_elasticsearch_is_merged_and_searchable(
    tmp_path: Path, es_url: str, es_client: Elasticsearch
) -> None:
    db = tmp_path / "alice.sqlite"
    alice_store(db).close()
    settings = Settings(
        APEXMEM_HOME=tmp_path / "home",
        APEXMEM_SEARCH="elasticsearch",
        ELASTICSEARCH_URL=es_url,
        APEXMEM_EMBED_MODEL="all-MiniLM-L6-v2",
    )
    name = es_index_name("sqlite", db, settings, "apexmem")
    try:
        assert build_index("sqlite", db, settings) == 6
        segments = es_client.cat.segments(index=name, format="json")
        assert len(segments) == 1  # the bulk load was force-merged
        assert build_index("sqlite", db, settings) == 6  # idempotent
        assert es_client.count(index=name)["count"] == 6
        with open_search("sqlite", db, settings) as search:
            assert search is not None
            turns = search.rank("Sakura Sushi", 3, SearchFilters(kinds=(DocKind.TURN,)))
        assert turns and "Sakura Sushi" in turns[0].text
    finally:
        es_client.indices.delete(index=name, ignore_unavailable=True)
