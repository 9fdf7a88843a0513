"""APEXMEM_SEARCH picks the search index of `apexmem index` / `ask` / `mcp`, and a search
server that is down is an error naming it, never "no index"."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from apexmem_neo.cli.app import app
from apexmem_neo.cli.search_index import es_index_name, open_search, search_backend, where
from apexmem_neo.errors import ApexMemError, ServiceUnavailableError
from apexmem_neo.settings import Settings
from tests.unit.agent.alice import alice_store

runner = CliRunner()
DEAD_URL = "http://127.0.0.1:9"  # discard port: nothing listens


def settings(tmp_path: Path, search: str, url: str = DEAD_URL) -> Settings:
    return Settings(APEXMEM_HOME=tmp_path, APEXMEM_SEARCH=search, ELASTICSEARCH_URL=url)


def test_auto_means_embedded_for_sqlite_and_native_for_neo4j(tmp_path: Path) -> None:
    s = settings(tmp_path, "auto")
    assert search_backend("sqlite", s) == "embedded"
    assert search_backend("neo4j", s) == "neo4j"
    assert search_backend("sqlite", settings(tmp_path, "elasticsearch")) == "elasticsearch"


def test_embedded_search_needs_a_sqlite_store(tmp_path: Path) -> None:
    with pytest.raises(ApexMemError, match="APEXMEM_SEARCH=embedded needs --store sqlite"):
        search_backend("neo4j", settings(tmp_path, "embedded"))


def test_each_sqlite_file_gets_its_own_elasticsearch_index(tmp_path: Path) -> None:
    s = settings(tmp_path, "elasticsearch")
    one = es_index_name("sqlite", tmp_path / "a.sqlite", s, "apexmem")
    two = es_index_name("sqlite", tmp_path / "b.sqlite", s, "apexmem")
    assert one != two and one.startswith("apexmem-") and one == one.lower()
    assert es_index_name("neo4j", None, s, "Team") == "team-neo4j"
    assert where("sqlite", tmp_path / "a.sqlite", s, "apexmem") == (
        f"Elasticsearch index {one!r} at {DEAD_URL}"
    )


def test_a_dead_search_server_is_an_error_not_a_missing_index(tmp_path: Path) -> None:
    db = tmp_path / "alice.sqlite"
    alice_store(db).close()
    with (
        pytest.raises(ServiceUnavailableError, match="127.0.0.1:9"),
        open_search("sqlite", db, settings(tmp_path, "elasticsearch")),
    ):
        pass


@pytest.fixture
def dead_es_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Alice store, with the environment pointing its search at a dead Elasticsearch."""
    db = tmp_path / "alice.sqlite"
    alice_store(db).close()
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path))
    monkeypatch.setenv("APEXMEM_SEARCH", "elasticsearch")
    monkeypatch.setenv("ELASTICSEARCH_URL", DEAD_URL)
    return db


def test_index_command_names_a_dead_search_server(dead_es_store: Path) -> None:
    res = runner.invoke(app, ["index", "--db", str(dead_es_store)])
    assert res.exit_code == 1
    assert "elasticsearch" in res.output and "127.0.0.1:9" in res.output


def test_ask_names_a_dead_search_server_in_one_line(dead_es_store: Path) -> None:
    res = runner.invoke(app, ["ask", "Where does Alice like to eat?", "--db", str(dead_es_store)])
    assert res.exit_code == 1
    assert "error:" in res.output and "127.0.0.1:9" in res.output
    assert "Traceback" not in res.output
