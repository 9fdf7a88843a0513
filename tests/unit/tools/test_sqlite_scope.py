# ruff: noqa: E501 - a table of queries reads best one per line
"""The scope wall on SQLite: CTEs of every shape read the caller's scope, all of it and only it.

Two files: one shared by alice and bob, and one holding alice's rows alone. A query run in
alice's scope on the shared file must give exactly the rows the same query gives, unscoped, on
alice's own file. Below the guard, the connection's authorizer refuses what the guard would
have caught (a qualified ``main.`` table, a CTE named like the table it reads around).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from apexmem_neo.query.backend import ToolError
from apexmem_neo.query.sqlite_backend import _fetch
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools import QueryLimits, SQLiteQueryBackend
from tests.unit.store.backends import FakeClock
from tests.unit.store.test_contract import scoped_batch

ALICE, BOB = "alice", "bob"
LIMITS = QueryLimits(max_rows=100, timeout_s=2.0)

CTE_QUERIES: tuple[str, ...] = (
    "WITH x AS (SELECT text FROM turns) SELECT text FROM x",
    "WITH x AS (SELECT * FROM turns) SELECT * FROM x",
    "WITH t AS (SELECT text FROM turns), f AS (SELECT value_json FROM facts) SELECT t.text, f.value_json FROM t, f",
    "WITH a AS (SELECT text FROM turns), b AS (SELECT text FROM a) SELECT text FROM b",
    "WITH b AS (SELECT text FROM a), a AS (SELECT text FROM turns) SELECT text FROM b",
    "SELECT text FROM (WITH x AS (SELECT text FROM turns) SELECT text FROM x)",
    "WITH x AS (SELECT text FROM (WITH y AS (SELECT text FROM turns) SELECT text FROM y)) SELECT text FROM x",
    "WITH e AS (SELECT entity_id FROM entities) SELECT value_json FROM facts WHERE entity_id IN (SELECT entity_id FROM e)",
    "WITH x AS (SELECT text FROM turns) SELECT (SELECT group_concat(text, '|') FROM x) AS everything",
    "WITH x AS (SELECT text FROM turns) SELECT text FROM x UNION SELECT value_json FROM facts",
    "WITH x AS (SELECT text FROM turns UNION ALL SELECT value_json FROM facts) SELECT count(*) FROM x",
    "WITH turns AS (SELECT value_json AS text FROM facts) SELECT text FROM turns",
    "WITH facts AS (SELECT * FROM turns) SELECT text FROM facts",
    "WITH x(words, said_at) AS (SELECT text, anchor_datetime FROM turns) SELECT words, said_at FROM x",
    "WITH m AS (SELECT entity_id FROM entities WHERE name = 'Mom') SELECT f.value_json, e.name FROM facts f JOIN m ON m.entity_id = f.entity_id JOIN entities e ON e.entity_id = m.entity_id",
    "WITH RECURSIVE r(n, text) AS (SELECT 1, text FROM turns UNION ALL SELECT n + 1, text FROM r WHERE n < 3) SELECT n, text FROM r",
    "WITH RECURSIVE r(id) AS (SELECT entity_id FROM entities UNION SELECT f.entity_id FROM facts f JOIN r ON r.id = f.entity_id) SELECT id FROM r",
    "WITH c AS (SELECT scope, count(*) AS n FROM facts GROUP BY scope) SELECT scope, n FROM c",
)
"""CTEs plain, several, reading each other (in either order), nested, in subqueries, in a
UNION, named like a table, with a column list, joined, recursive, aggregated."""


def make_store(path: Path, *scopes: tuple[str, str]) -> Path:
    store = SQLiteGraphStore(path, clock=FakeClock())
    store.init_schema()
    for scope, city in scopes:
        store.write(scoped_batch(scope, city))
    store.close()
    return path


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> SQLiteQueryBackend:
    path = tmp_path_factory.mktemp("scope") / "shared.sqlite3"
    return SQLiteQueryBackend(make_store(path, (ALICE, "Lisbon"), (BOB, "Oslotown")))


@pytest.fixture(scope="module")
def alice_alone(tmp_path_factory: pytest.TempPathFactory) -> SQLiteQueryBackend:
    path = tmp_path_factory.mktemp("scope") / "alice.sqlite3"
    return SQLiteQueryBackend(make_store(path, (ALICE, "Lisbon")))


def rows(backend: SQLiteQueryBackend, sql: str, scope: str | None = None) -> list[Any]:
    return sorted(backend.run(sql, "sql", {}, LIMITS, scope=scope).rows, key=repr)


@pytest.mark.parametrize("sql", CTE_QUERIES)
def test_a_cte_reads_exactly_the_scopes_rows(
    sql: str, shared: SQLiteQueryBackend, alice_alone: SQLiteQueryBackend
) -> None:
    expected = rows(alice_alone, sql)
    assert expected, sql
    assert rows(shared, sql, scope=ALICE) == expected
    assert "Oslotown" not in repr(rows(shared, sql, scope=ALICE))


def test_the_other_scope_reads_its_own_rows_through_a_cte(shared: SQLiteQueryBackend) -> None:
    sql = "WITH x AS (SELECT text FROM turns) SELECT text FROM x"
    assert rows(shared, sql, scope=BOB) == [("Mom lives in Oslotown",)]


@pytest.mark.parametrize(
    "sql",
    [
        "WITH turns AS (SELECT text FROM turns) SELECT text FROM turns",
        "WITH a AS (SELECT text FROM b), b AS (SELECT text FROM a) SELECT text FROM a",
    ],
)
def test_a_cte_that_reads_itself_is_named_with_the_fix(
    sql: str, shared: SQLiteQueryBackend
) -> None:
    with pytest.raises(ToolError) as info:
        shared.run(sql, "sql", {}, LIMITS, scope=ALICE)
    assert info.value.title == "Circular CTE"
    assert "another name" in info.value.detail


@pytest.mark.parametrize(
    ("sql", "ctes"),
    [
        ("WITH turns AS (SELECT * FROM main.turns) SELECT text FROM turns", {"turns"}),
        (
            "WITH facts AS (SELECT value_json FROM main.facts) SELECT value_json FROM facts",
            {"facts"},
        ),
        ("WITH x AS (SELECT * FROM main.turns) SELECT text FROM x", {"x"}),
        ("SELECT text FROM turns UNION SELECT text FROM main.turns", set()),
        ("SELECT text FROM (SELECT text FROM main.turns)", set()),
        ("SELECT name FROM sqlite_temp_master", set()),
    ],
)
def test_the_authorizer_alone_refuses_reads_around_the_scope_view(
    sql: str, ctes: set[str], shared: SQLiteQueryBackend
) -> None:
    """No SQL guard here: the query goes straight to the scoped connection."""
    connection = shared._connect(LIMITS, frozenset(ctes), scope=ALICE)
    try:
        with pytest.raises(ToolError) as info:
            _fetch(connection, sql, {}, LIMITS)
    finally:
        connection.close()
    assert info.value.title == "Refused by the read-only guard"


def test_the_scope_filter_has_a_new_name_on_every_connection(shared: SQLiteQueryBackend) -> None:
    def temp_views() -> set[str]:
        connection = shared._connect(None, scope=ALICE)
        try:
            names = connection.execute("SELECT name FROM sqlite_temp_master").fetchall()
        finally:
            connection.close()
        return {name for (name,) in names}

    first, second = temp_views(), temp_views()
    assert {"turns", "facts"} <= first & second
    assert first - second and second - first


def test_the_store_file_is_unchanged_by_scoped_queries(shared: SQLiteQueryBackend) -> None:
    rows(shared, CTE_QUERIES[0], scope=ALICE)
    connection = sqlite3.connect(shared.path)
    try:
        names = connection.execute("SELECT name FROM sqlite_master WHERE type = 'view'").fetchall()
    finally:
        connection.close()
    assert names == []
