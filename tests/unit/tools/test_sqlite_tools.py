"""GraphQuery and SchemaViewer on a small SQLite graph (the tools as the agent calls them)."""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from apexmem_neo.query.backend import Example, Language, QueryResult, SchemaInfo, ToolError
from apexmem_neo.query.examples import SQL_EXAMPLES
from apexmem_neo.query.graph_mapping import column_type, is_nullable, table_columns
from apexmem_neo.tools import (
    QueryBackend,
    QueryLimits,
    SQLiteQueryBackend,
    graph_query_tool,
    run_graph_query,
    schema_viewer_tool,
)
from tests.unit.tools.graph_data import ALICE
from tests.unit.tools.hostile import RECURSIVE_SQL
from tests.unit.tools.results import error_title

PARAMS = {
    "entity_id": ALICE,
    "property": "tqx_city",
    "t": "2022-01-01T00:00:00",
    "t1": "2021-01-01T00:00:00",
    "t2": "2023-12-31T00:00:00",
    "now": "2024-01-01T00:00:00",
    "event_id": "tqx_ev_job",
}


def test_backend_is_a_query_backend(sqlite_backend: SQLiteQueryBackend) -> None:
    assert isinstance(sqlite_backend, QueryBackend)


def test_graph_query_returns_a_markdown_table(sqlite_backend: SQLiteQueryBackend) -> None:
    tool = graph_query_tool(sqlite_backend)
    out = tool(
        "SELECT value_json, t_from FROM facts WHERE entity_id = :e AND property = :p "
        "ORDER BY t_from",
        params={"e": ALICE, "p": "tqx_city"},
    )
    assert out.text.splitlines() == [
        "**3 rows.**",
        "",
        "| value_json | t_from |",
        "|---|---|",
        '| "Berlin" | 2020-01-01T00:00:00 |',
        '| "Paris" | 2021-07-01T00:00:00 |',
        '| "London" | 2023-03-15T00:00:00 |',
    ]


def test_tool_signature_and_docstring(sqlite_backend: SQLiteQueryBackend) -> None:
    tool = graph_query_tool(sqlite_backend)
    assert tool.__name__ == "GraphQuery"
    signature = inspect.signature(tool)
    assert list(signature.parameters) == ["query", "language", "params"]
    assert signature.parameters["language"].default == "sql"
    assert tool.__doc__ is not None and "SQLite" in tool.__doc__ and "200 rows" in tool.__doc__
    assert "cypher" not in tool.__doc__.lower()  # a SQL-only memory never suggests Cypher
    viewer = schema_viewer_tool(sqlite_backend)
    assert viewer.__name__ == "SchemaViewer"
    assert list(inspect.signature(viewer).parameters) == ["include_examples", "include_guide"]


def test_no_rows_and_nulls(sqlite_backend: SQLiteQueryBackend) -> None:
    out = run_graph_query(sqlite_backend, "SELECT fact_id FROM facts WHERE 0", "sql")
    assert out.text.startswith("**0 rows.**") and "fact_id" in str(out)
    out = run_graph_query(
        sqlite_backend, "SELECT listener FROM turns WHERE listener IS NULL LIMIT 1", "sql"
    )
    assert "| NULL |" in str(out)


def test_row_limit_and_cell_truncation(sqlite_backend: SQLiteQueryBackend) -> None:
    limits = QueryLimits(max_rows=3, max_cell_chars=10)
    out = run_graph_query(
        sqlite_backend, "SELECT text FROM turns ORDER BY turn_id", "sql", None, limits
    )
    assert out.text.startswith("**3 rows shown; more exist (row limit 3).**")
    assert "| I moved t… |" in str(out)
    body = [line for line in str(out).splitlines() if line.startswith("| ") and "text" not in line]
    assert len(body) == 3


def test_pipes_and_newlines_stay_in_their_cell(sqlite_backend: SQLiteQueryBackend) -> None:
    out = run_graph_query(sqlite_backend, "SELECT text FROM turns WHERE speaker = 'World'", "sql")
    assert "| Acme \\| announced \\| layoffs in 2022 |" in str(out)


def test_time_limit_stops_a_runaway_query(sqlite_backend: SQLiteQueryBackend) -> None:
    out = run_graph_query(sqlite_backend, RECURSIVE_SQL, "sql", None, QueryLimits(timeout_s=0.3))
    assert error_title(out).startswith("Time limit")


def test_errors_are_markdown_never_exceptions(sqlite_backend: SQLiteQueryBackend) -> None:
    assert (
        error_title(run_graph_query(sqlite_backend, "SELECT nope FROM facts", "sql"))
        == "SQLite error"
    )
    assert error_title(run_graph_query(sqlite_backend, "SELECT 1", "klingon")).startswith(
        "Unknown language"
    )
    assert error_title(run_graph_query(sqlite_backend, "SELECT :x", "sql", {"1x": 1})).startswith(
        "Bad params"
    )
    cypher = run_graph_query(sqlite_backend, "MATCH (n) RETURN n", "cypher")
    assert error_title(cypher).startswith("Cypher is not available")
    missing = SQLiteQueryBackend(Path("/nonexistent/graph.sqlite3"))
    assert error_title(run_graph_query(missing, "SELECT 1", "sql")).startswith("No database")


def test_a_query_in_the_other_language_is_named_as_such(
    sqlite_backend: SQLiteQueryBackend,
) -> None:
    cypher = "MATCH (e:Entity {name: 'Alice'})-[:HAS_FACT]->(f) RETURN f.value_json"
    out = run_graph_query(sqlite_backend, cypher, "sql")
    assert error_title(out).startswith("Cypher sent as SQL")
    assert "starts with MATCH, which is Cypher" in str(out) and "takes SQL only" in str(out)
    assert "JOIN entities e ON e.entity_id = f.entity_id" in str(out)  # a SQL form to copy
    optional = run_graph_query(sqlite_backend, "  optional match (n) return n", "sql")
    assert error_title(optional).startswith("Cypher sent as SQL")
    sql_as_cypher = run_graph_query(sqlite_backend, "SELECT 1", "cypher")
    assert error_title(sql_as_cypher).startswith("SQL sent as Cypher")
    assert "language='sql'" in str(sql_as_cypher)
    # the suggested form runs as it is
    from apexmem_neo.tools.graph_query import SQL_BY_NAME

    assert str(run_graph_query(sqlite_backend, SQL_BY_NAME, "sql")).startswith("**0 rows.**")
    alices = SQL_BY_NAME.replace("'Some Name' AND f.property = 'some_property'", "'Alice Tqx'")
    assert str(run_graph_query(sqlite_backend, alices, "sql")).startswith("**5 rows.**")


class ExplodingBackend:
    name = "Exploding"
    native_language: Language = "sql"

    def run(
        self, query: str, language: Language, params: Mapping[str, Any], limits: QueryLimits
    ) -> QueryResult:
        raise RuntimeError("boom")

    def schema(self) -> SchemaInfo:
        raise ToolError("Schema unavailable", "no server")

    def examples(self) -> Sequence[Example]:
        return ()


def test_unexpected_failures_become_error_results() -> None:
    backend = ExplodingBackend()
    failed = graph_query_tool(backend)("SELECT 1").error
    assert failed is not None and (failed.title, failed.detail) == (
        "Query failed",
        "RuntimeError: boom",
    )
    assert error_title(schema_viewer_tool(backend)()) == "Schema unavailable"


@pytest.mark.parametrize("example", SQL_EXAMPLES, ids=[e.title for e in SQL_EXAMPLES])
def test_sql_examples_run_and_find_rows(
    sqlite_backend: SQLiteQueryBackend, example: Example
) -> None:
    params = {k: PARAMS[k] for k in example.params}
    result = sqlite_backend.run(example.query, "sql", params, QueryLimits())
    assert result.rows


def test_sql_examples_answer_the_temporal_questions(sqlite_backend: SQLiteQueryBackend) -> None:
    by_title = {e.title.split(" (")[0]: e for e in SQL_EXAMPLES}

    def rows(title: str, **params: str) -> list[tuple[Any, ...]]:
        ex = by_title[title]
        values = {k: params.get(k, PARAMS[k]) for k in ex.params}
        return list(sqlite_backend.run(ex.query, "sql", values, QueryLimits()).rows)

    assert rows("Current value")[0][0] == '"London"'
    assert rows("Value as of a time t", t="2021-03-01T00:00:00")[0][0] == '"Berlin"'
    assert [r[0] for r in rows("When did it change")] == [
        "2020-01-01T00:00:00", "2021-07-01T00:00:00", "2023-03-15T00:00:00"
    ]  # fmt: skip
    assert rows("Value before an event X")[0][0] == '"Paris"'


def test_schema_viewer_shows_tables_types_counts_indexes(
    sqlite_backend: SQLiteQueryBackend,
) -> None:
    out = schema_viewer_tool(sqlite_backend)()
    text = out.text
    assert text.startswith("# Memory schema (SQLite; query language: sql)")
    assert "### `facts`: table, 15 rows, key (fact_id)" in text
    assert "| confidence | REAL | no |" in text
    assert "| t_to | TEXT | yes |" in text
    assert "`facts.entity_id = entities.entity_id`" in text
    assert (
        "facts_timeline: facts(entity_id, property, t_from, recorded_at, fact_id) [index]" in text
    )
    assert "Temporal query examples" not in str(out) and "Which tool when" not in str(out)


def test_schema_viewer_examples_and_guide(sqlite_backend: SQLiteQueryBackend) -> None:
    out = schema_viewer_tool(sqlite_backend)(include_examples=True, include_guide=True)
    assert "## Temporal query examples (sql)" in str(out)
    assert "julianday(coalesce(t_to, :now))" in str(out)
    for tool in ("SchemaViewer", "EntityLookup", "GraphQuery", "Search"):
        assert f"**{tool}" in str(out)


def test_mapping_types_match_the_sqlite_schema(sqlite_backend: SQLiteQueryBackend) -> None:
    info = sqlite_backend.schema()
    for table in info.tables:
        assert tuple(c.name for c in table.columns) == table_columns(table.name)
        for column in table.columns:
            assert column.type == column_type(column.name), (table.name, column.name)
            assert column.nullable == is_nullable(table.name, column.name), column.name
