"""APEXMEM_SEARCH picks the search index of `apexmem index` / `search` / `ask` / `mcp`, and a
search server that is down is an error naming it, never "no index"."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from apexmem_neo.cli.app import app
from apexmem_neo.errors import ApexMemError
from apexmem_neo.memory import Memory
from apexmem_neo.settings import Settings
from tests.unit.agent.alice import alice_store

runner = CliRunner()
DEAD_URL = "http://127.0.0.1:9"  # discard port: nothing listens


def settings(tmp_path: Path, search: str, url: str = DEAD_URL) -> Settings:
    return Settings(APEXMEM_HOME=tmp_path, APEXMEM_SEARCH=search, ELASTICSEARCH_URL=url,
                    APEXMEM_STORE="sqlite")  # fmt: skip


def location(s: Settings, db: Path) -> str | None:
    """Where the memory at ``db`` keeps its search index (opening connects to nothing)."""
    with Memory.from_settings(s, db=db) as memory:
        return memory.search_location


def test_auto_means_embedded_beside_a_sqlite_store(tmp_path: Path) -> None:
    db = tmp_path / "a.sqlite"
    assert location(settings(tmp_path, "auto"), db) == str(tmp_path / "a.search.sqlite")


def test_embedded_search_needs_a_sqlite_store(tmp_path: Path) -> None:
    with pytest.raises(ApexMemError, match="APEXMEM_SEARCH=embedded needs the SQLite store"):
        Memory.from_settings(settings(tmp_path, "embedded"), store="neo4j")


def test_each_sqlite_file_gets_its_own_elasticsearch_index(tmp_path: Path) -> None:
    s = settings(tmp_path, "elasticsearch")
    one = location(s, tmp_path / "a.sqlite")
    two = location(s, tmp_path / "b.sqlite")
    assert one is not None and two is not None and one != two
    assert one.startswith("Elasticsearch index 'apexmem-") and one.endswith(f"at {DEAD_URL}")
    name = one.split("'")[1]
    assert name == name.lower()


@pytest.fixture
def dead_es_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Alice store, with the environment pointing its search at a dead Elasticsearch."""
    db = tmp_path / "alice.sqlite"
    alice_store(db).close()
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path))
    monkeypatch.setenv("APEXMEM_SEARCH", "elasticsearch")
    monkeypatch.setenv("ELASTICSEARCH_URL", DEAD_URL)
    monkeypatch.setenv("APEXMEM_EMBED_MODEL", "all-MiniLM-L6-v2")  # packaged, loads offline
    monkeypatch.delenv("APEXMEM_STORE", raising=False)
    return db


@pytest.mark.parametrize(
    "command",
    [["index"], ["search", "Sakura"], ["ask", "Where does Alice like to eat?"]],
    ids=["index", "search", "ask"],
)
def test_a_dead_search_server_is_one_error_line(dead_es_store: Path, command: list[str]) -> None:
    res = runner.invoke(app, [*command, "--db", str(dead_es_store)])
    assert res.exit_code == 1
    lines = [x for x in res.stderr.splitlines() if x.strip() and "Loading weights" not in x]
    assert len(lines) == 1 and lines[0].startswith("error:"), res.stderr
    assert "elasticsearch" in lines[0] and "127.0.0.1:9" in lines[0]
    assert "Traceback" not in res.output and "no search index" not in res.output
