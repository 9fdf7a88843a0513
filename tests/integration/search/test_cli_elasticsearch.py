"""`apexmem index` and `search` on Elasticsearch (APEXMEM_SEARCH=elasticsearch): the Alice
store indexed through the real embedding model into a real server, force-merged after the
bulk load, then found again by `apexmem search`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch
from typer.testing import CliRunner

from apexmem_neo.cli.app import app
from apexmem_neo.memory import Memory
from apexmem_neo.settings import Settings
from tests.unit.agent.alice import alice_store

pytestmark = [pytest.mark.integration, pytest.mark.elasticsearch]

runner = CliRunner()


@pytest.mark.timeout(900)  # loads the embedding model
def test_index_on_elasticsearch_is_merged_and_searchable(
    tmp_path: Path, es_url: str, es_client: Elasticsearch, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "alice.sqlite"
    alice_store(db).close()
    env = {"APEXMEM_HOME": str(tmp_path / "home"), "APEXMEM_SEARCH": "elasticsearch",
           "ELASTICSEARCH_URL": es_url, "APEXMEM_EMBED_MODEL": "all-MiniLM-L6-v2"}  # fmt: skip
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("APEXMEM_STORE", raising=False)
    with Memory.from_settings(Settings(), db=db) as memory:  # opening connects to nothing
        name = memory.search_index.index.name  # type: ignore[union-attr, attr-defined]
    try:
        first = runner.invoke(app, ["index", "--db", str(db)])
        assert first.exit_code == 0 and "indexed 6 documents" in first.output, first.output
        assert name in first.output
        segments = es_client.cat.segments(index=name, format="json")
        assert len(segments) == 1  # the bulk load was force-merged
        again = runner.invoke(app, ["index", "--db", str(db)])  # idempotent
        assert again.exit_code == 0 and "indexed 6 documents" in again.output, again.output
        assert es_client.count(index=name)["count"] == 6
        found = runner.invoke(app, ["search", "Sakura Sushi", "--db", str(db), "--kind", "turn",
                                    "--k", "3", "--json"])  # fmt: skip
        assert found.exit_code == 0, found.output
        turns = json.loads(found.stdout)["turns"]
        assert turns and "Sakura Sushi" in turns[0]["text"]
    finally:
        es_client.indices.delete(index=name, ignore_unavailable=True)
