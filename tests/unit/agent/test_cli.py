"""`apexmem query | schema | entity | history` on the Alice store (default path and --db)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from apexmem_neo.cli.app import app
from tests.unit.agent.alice import alice_store

runner = CliRunner()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path))
    monkeypatch.setenv("APEXMEM_EMBED_MODEL", "all-MiniLM-L6-v2")  # packaged, loads offline
    for name in ("APEXMEM_STORE", "APEXMEM_DB", "APEXMEM_SEARCH"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "data" / "apexmem.sqlite"  # the file `apexmem ingest` writes
    path.parent.mkdir(parents=True)
    alice_store(path).close()
    return tmp_path


def test_entity_uses_the_default_store(home: Path) -> None:
    res = runner.invoke(app, ["entity", "Alice"])
    assert res.exit_code == 0, res.output
    assert "Sakura Sushi" in res.output and "last_anchor" in res.output


def test_history_shows_facts_and_changes(home: Path) -> None:
    res = runner.invoke(app, ["history", "Alice", "favourite_restaurant"])
    assert res.exit_code == 0, res.output
    changes = res.output.split("## Changes")[1]
    assert "2024-03-20T00:00:00 | Italian Garden | Sakura Sushi" in changes


def test_history_unknown_entity_fails(home: Path) -> None:
    res = runner.invoke(app, ["history", "Zorro", "city"])
    assert res.exit_code == 1 and "no entity named 'Zorro'" in res.stderr


def test_query_sql_and_refused_cypher(home: Path) -> None:
    ok = runner.invoke(app, ["query", "--sql", "SELECT COUNT(*) AS n FROM facts"])
    assert ok.exit_code == 0 and "| 2 |" in ok.output
    native = runner.invoke(app, ["query", "SELECT COUNT(*) AS n FROM facts"])  # SQL on SQLite
    assert native.exit_code == 0 and "| 2 |" in native.output
    refused = runner.invoke(app, ["query", "MATCH (e:Entity) RETURN e", "--lang", "cypher"])
    assert refused.exit_code == 1 and refused.stderr.startswith("error:")
    assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.output


def test_schema_with_db_option(home: Path) -> None:
    db = home / "data" / "apexmem.sqlite"
    res = runner.invoke(app, ["schema", "--db", str(db), "--examples"])
    assert res.exit_code == 0 and "# Memory schema (SQLite" in res.output


def test_ask_rejects_bad_mode(home: Path) -> None:
    res = runner.invoke(app, ["ask", "x?", "--mode", "slow"])
    assert res.exit_code == 2 and "--mode" in res.output  # a usage error, before any LLM call


def test_ask_rejects_unknown_tools_and_dates(home: Path) -> None:
    tools = runner.invoke(app, ["ask", "x?", "--tools", "Search,Oracle"])
    assert tools.exit_code == 1 and "unknown tool(s) Oracle" in tools.stderr
    date = runner.invoke(app, ["ask", "x?", "--date", "someday"])
    assert date.exit_code == 1 and "--date 'someday'" in date.stderr
