"""The SQL guard's edges: keyword-named aliases, trailing comments, and SQL too deep to parse.

Each is checked at the guard, through the SQL-compat shim, and (where SQLite itself accepts
the query) through GraphQuery on SQLite.
"""

from __future__ import annotations

import pytest

from apexmem_neo.query.backend import ToolError
from apexmem_neo.query.cypher.guard import check_cypher
from apexmem_neo.query.graph_mapping import QUERYABLE_TABLES
from apexmem_neo.query.shim import sql_to_cypher
from apexmem_neo.query.sql.guard import check_sql
from apexmem_neo.tools import SQLiteQueryBackend, run_graph_query

KEYWORD_NAMES = ("set", "load", "use", "SET")

ALIAS_FORMS = (
    "SELECT name AS {w} FROM entities",
    "SELECT name {w} FROM entities",
    "SELECT e.name FROM entities AS {w} JOIN entities e ON e.entity_id = {w}.entity_id",
    "SELECT {w}.name FROM entities {w}",
    "WITH {w} AS (SELECT name FROM entities) SELECT name FROM {w}",
    "SELECT x.{w} FROM (SELECT name AS {w} FROM entities) AS x",
)


@pytest.mark.parametrize("word", KEYWORD_NAMES)
@pytest.mark.parametrize("form", ALIAS_FORMS)
def test_keywords_used_as_aliases_are_names(form: str, word: str) -> None:
    sql = form.format(w=word)
    check_sql(sql, QUERYABLE_TABLES)
    check_cypher(sql_to_cypher(sql).cypher)  # the shim quotes or renames them


@pytest.mark.parametrize("word", ("load", "use"))
def test_a_keyword_alias_runs_on_sqlite(sqlite_backend: SQLiteQueryBackend, word: str) -> None:
    out = run_graph_query(sqlite_backend, f"SELECT {word}.name FROM entities AS {word}", "sql")
    assert out.ok, out


@pytest.mark.parametrize(
    "sql",
    [
        "SET x = 1",
        "set x = 1",
        "USE main",
        "LOAD DATA INFILE '/etc/passwd' INTO TABLE entities",
        "SELECT 1; SET x = 1",
        "SELECT name AS set FROM entities; USE main",
    ],
)
def test_keyword_statements_stay_refused(sql: str) -> None:
    with pytest.raises(ToolError):
        check_sql(sql, QUERYABLE_TABLES)


TRAILING_COMMENTS = (
    "SELECT 1 -- note",
    "SELECT 1; -- note",
    "SELECT 1; /* note */",
    "SELECT 1 /* a */ ; -- b\n",
    "SELECT 1;\n-- one\n-- two\n",
)


@pytest.mark.parametrize("sql", TRAILING_COMMENTS)
def test_a_trailing_comment_is_not_a_statement(
    sqlite_backend: SQLiteQueryBackend, sql: str
) -> None:
    check_sql(sql, QUERYABLE_TABLES)
    assert sql_to_cypher(sql).cypher.startswith("RETURN 1 AS ")
    assert str(run_graph_query(sqlite_backend, sql, "sql")).startswith("**1 row.**")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1; SELECT 2",
        "SELECT 1; -- note\nSELECT 2",
        "SELECT 1; /* note */ SELECT 2",
        "SELECT 1 -- note\n; SELECT 2",
        "SELECT 1; -- note\nUPDATE entities SET name = 'x'",
    ],
)
def test_a_second_statement_after_a_comment_is_refused(sql: str) -> None:
    with pytest.raises(ToolError, match="Multiple statements|Write refused|Not a SELECT"):
        check_sql(sql, QUERYABLE_TABLES)


LONG_SUM = "SELECT " + "+".join(["1"] * 5000)
LONG_AND = "SELECT name FROM entities WHERE " + " AND ".join(["1 = 1"] * 3000)
DEEP_PARENS = "SELECT " + "(" * 3000 + "1" + ")" * 3000
DEEP_SUBQUERIES = "SELECT * FROM " + "(SELECT * FROM " * 1000 + "entities" + ")" * 1000
TOO_LARGE = (LONG_SUM, LONG_AND, DEEP_PARENS, DEEP_SUBQUERIES)


def _assert_one_line_refusal(exc: ToolError) -> None:
    assert exc.title == "SQL too large"
    assert "\n" not in str(exc) and exc.suggestion is None


@pytest.mark.parametrize("sql", TOO_LARGE, ids=["sum", "and", "parens", "subqueries"])
def test_sql_too_large_for_the_shim_is_a_refusal(sql: str) -> None:
    with pytest.raises(ToolError) as caught:
        sql_to_cypher(sql)
    _assert_one_line_refusal(caught.value)


@pytest.mark.parametrize("sql", (DEEP_PARENS, DEEP_SUBQUERIES), ids=["parens", "subqueries"])
def test_sql_too_deep_for_the_guard_is_a_refusal(sql: str) -> None:
    with pytest.raises(ToolError) as caught:
        check_sql(sql, QUERYABLE_TABLES)
    _assert_one_line_refusal(caught.value)


@pytest.mark.parametrize("sql", TOO_LARGE, ids=["sum", "and", "parens", "subqueries"])
def test_sql_too_large_is_an_error_block_on_sqlite(
    sqlite_backend: SQLiteQueryBackend, sql: str
) -> None:
    out = run_graph_query(sqlite_backend, sql, "sql")
    assert out.error is not None and "RecursionError" not in str(out)


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (load:Entity) RETURN load.name",
        "MATCH (e:Entity) RETURN e.name AS set",
        "MATCH (e) WITH e AS use WHERE use IS NOT NULL RETURN use ORDER BY use",
        "MATCH (set) RETURN set, set",
    ],
)
def test_cypher_variables_named_set_load_use_are_names(query: str) -> None:
    assert check_cypher(query)


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (n) SET n.x = 1",
        'LOAD CSV FROM "file:///x" AS row RETURN row',
        "USE neo4j MATCH (n) RETURN n",
        "MATCH (set) SET set.x = 1",
    ],
)
def test_cypher_clauses_set_load_use_stay_refused(query: str) -> None:
    with pytest.raises(ToolError):
        check_cypher(query)
