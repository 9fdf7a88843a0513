"""The `apexmem` commands as thin callers of Memory, on SQLite with no service and no LLM:
--version, search, query (language, limit), --json on the read commands, config masking,
index progress, missing stores and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from apexmem_neo import __version__
from apexmem_neo.cli.app import app
from apexmem_neo.samples import sample_path
from tests.unit.agent.alice import ALICE, TURN_2

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    """Exit code and stdout (stderr also carries the model loader's own progress)."""
    res = runner.invoke(app, list(args))
    assert "Traceback" not in res.output, res.output
    return res.exit_code, res.stdout


def errors(*args: str) -> tuple[int, str]:
    """Exit code and stderr."""
    res = runner.invoke(app, list(args))
    assert "Traceback" not in res.output, res.output
    return res.exit_code, res.stderr


def one_error_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip() and "Loading weights" not in x]
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    return lines[0]


def test_version() -> None:
    code, out = run("--version")
    assert code == 0 and out.strip() == f"apexmem-neo {__version__}"


def test_search_json_ranks_the_turn_and_keeps_to_the_kinds(indexed_db: Path) -> None:
    code, out = run("search", "Sakura Sushi", "--db", str(indexed_db), "--k", "2",
                    "--kind", "turn", "--kind", "entity", "--json")  # fmt: skip
    assert code == 0, out
    found = json.loads(out)
    assert found["turns"][0]["graph_id"] == TURN_2
    assert [h["graph_id"] for h in found["entities"]] == [ALICE]
    assert found["properties"] == [] and found["events"] == []


def test_search_markdown_has_one_section_per_kind(indexed_db: Path) -> None:
    code, out = run("search", "favourite restaurant", "--db", str(indexed_db), "--kind", "turn")
    assert code == 0, out
    assert out.startswith("## turn (") and "## entity" not in out and TURN_2 in out


def test_search_without_an_index_says_how_to_build_it(alice_db: Path) -> None:
    res = runner.invoke(app, ["search", "Sakura", "--db", str(alice_db), "--json"])
    flat = " ".join(res.stderr.split())
    assert res.exit_code == 0 and "no search index" in flat
    assert f"apexmem index --db {alice_db}" in flat
    assert json.loads(res.stdout)["turns"] == []


def test_query_runs_sql_on_sqlite_by_default_with_a_row_limit(alice_db: Path) -> None:
    sql = "SELECT turn_id FROM turns ORDER BY turn_id"
    code, out = run("query", sql, "--db", str(alice_db), "--limit", "1", "--json")
    assert code == 0, out
    assert json.loads(out) == {
        "columns": ["turn_id"], "rows": [["alice_turn_1"]], "truncated": True, "translated": None,
    }  # fmt: skip
    code, out = run("query", sql, "--db", str(alice_db), "--lang", "sql")
    assert code == 0 and "**2 rows.**" in out and "| alice_turn_2 |" in out


def test_query_in_cypher_on_sqlite_is_one_error_line(alice_db: Path) -> None:
    code, out = errors("query", "MATCH (e:Entity) RETURN e", "--db", str(alice_db))
    assert code == 1
    one_error_line(out)
    code, out = errors("query", "DELETE FROM facts", "--db", str(alice_db), "--sql")
    assert code == 1 and "DELETE" in one_error_line(out)


@pytest.mark.parametrize(
    "command",
    [
        ["query", "SELECT 1"],
        ["schema"],
        ["entity", "Alice"],
        ["history", "Alice", "city"],
        ["search", "Alice"],
        ["ask", "Where?"],
        ["stats"],
        ["index"],
    ],
)
def test_read_commands_on_a_missing_store_create_nothing(
    home: Path, tmp_path: Path, command: list[str]
) -> None:
    db = tmp_path / "nowhere" / "missing.sqlite"
    code, out = errors(*command, "--db", str(db))
    assert code == 1 and str(db) in one_error_line(out)
    assert not db.parent.exists()
    assert not (home / "data").exists()


def test_config_json_masks_secrets(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_PASSWORD", "neo-secret-1234")
    monkeypatch.setenv("APEXMEM_LM_API_KEY", "lm-secret-5678")
    code, out = run("config", "--json")
    assert code == 0, out
    shown = json.loads(out)
    assert shown["NEO4J_PASSWORD"] == "****" and shown["APEXMEM_LM_API_KEY"] == "****"
    assert shown["APEXMEM_HOME"] == str(home)
    code, table = run("config")
    assert code == 0 and "APEXMEM_HOME" in table
    for text in (out, table):
        assert "neo-secret-1234" not in text and "lm-secret-5678" not in text


def test_history_entity_and_stats_as_json(alice_db: Path) -> None:
    code, out = run("history", "Alice", "favourite_restaurant", "--db", str(alice_db), "--json")
    assert code == 0, out
    hist = json.loads(out)
    assert [f["value"] for f in hist["facts"]] == ["Italian Garden", "Sakura Sushi"]
    assert hist["changes"][0]["new_value"] == "Sakura Sushi"
    code, out = run("entity", "Alice", "--db", str(alice_db), "--json")
    assert code == 0 and json.loads(out)["entity_id"] == ALICE
    code, out = run("stats", "--db", str(alice_db), "--json")
    stats = json.loads(out)
    assert code == 0 and stats["counts"]["facts"] == 2 and stats["search_documents"] == 0
    assert stats["embedder"] == "all-MiniLM-L6-v2"


def test_schema_json_lists_the_tables(alice_db: Path) -> None:
    code, out = run("schema", "--db", str(alice_db), "--json")
    assert code == 0, out
    info = json.loads(out)
    assert info["language"] == "sql" and "facts" in [t["name"] for t in info["tables"]]


def test_index_shows_progress_and_the_count(alice_db: Path) -> None:
    code, out = run("index", "--db", str(alice_db))
    assert code == 0, out
    bar = next(line for line in out.splitlines() if line.startswith("index"))
    assert "6/6" in bar and "100%" in bar
    assert "indexed 6 documents into" in out and alice_db.with_suffix(".search.sqlite").is_file()


def test_ingest_without_extraction_stores_turns_without_an_llm(home: Path, tmp_path: Path) -> None:
    db = tmp_path / "plain.sqlite"
    code, out = run("ingest", str(sample_path()), "--db", str(db), "--no-extract",
                    "--scope", "alice", "--no-index")  # fmt: skip
    assert code == 0, out
    assert "6 stored without extraction" in out and "search index" not in out
    assert not db.with_suffix(".search.sqlite").exists()
    count = "SELECT COUNT(*) AS n FROM turns"
    code, out = run("query", count, "--db", str(db), "--json", "--scope", "alice")
    assert json.loads(out)["rows"] == [[6]]
    code, out = run("query", count, "--db", str(db), "--json")  # another scope sees none
    assert json.loads(out)["rows"] == [[0]]


def test_unknown_entity_with_brackets_prints_whole(alice_db: Path) -> None:
    code, out = errors("history", "[bold]Zorro[/]", "city", "--db", str(alice_db))
    assert code == 1 and "'[bold]Zorro[/]'" in one_error_line(out)


def test_a_bad_scope_is_one_error_line(alice_db: Path) -> None:
    code, out = errors("query", "SELECT 1", "--db", str(alice_db), "--scope", "no spaces!")
    assert code == 1 and "scope" in one_error_line(out)


def test_a_bad_setting_is_one_error_line(alice_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APEXMEM_SEARCH", "everywhere")
    code, out = errors("stats", "--db", str(alice_db))
    assert code == 1 and "APEXMEM_SEARCH" in one_error_line(out)
