"""Security on SQLite: every hostile query is refused or bounded; the database is unchanged."""

from __future__ import annotations

import hashlib
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest

from apexmem_neo.query.graph_mapping import QUERYABLE_TABLES
from apexmem_neo.tools import QueryLimits, SQLiteQueryBackend, run_graph_query
from tests.unit.tools.hostile import (
    BOUNDED_CYPHER,
    BOUNDED_SQL,
    RECURSIVE_SQL,
    REFUSED_CYPHER,
    REFUSED_SQL,
)
from tests.unit.tools.results import error_title

LIMITS = QueryLimits(max_rows=50, timeout_s=1.0)


def checksum(path: Path) -> str:
    """The database file's bytes and every row of every table (read by a separate connection)."""
    digest = hashlib.sha256(path.read_bytes())
    with closing(sqlite3.connect(path)) as connection:
        names = connection.execute("SELECT name FROM sqlite_master ORDER BY name").fetchall()
        digest.update(repr(names).encode())
        for table in QUERYABLE_TABLES:
            rows = connection.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
            digest.update(repr(rows).encode())
    return digest.hexdigest()


def test_hostile_queries_are_refused_or_bounded(sqlite_path: Path) -> None:
    backend = SQLiteQueryBackend(sqlite_path)
    before = checksum(sqlite_path)
    refused = [(q, "sql") for q in REFUSED_SQL] + [(q, "cypher") for q in REFUSED_CYPHER]
    assert len(refused) >= 50
    for query, language in refused:
        out = run_graph_query(backend, query, language, None, LIMITS)
        assert out.error is not None, (query, out)
    for query in [*BOUNDED_SQL, RECURSIVE_SQL]:
        start = time.monotonic()
        out = run_graph_query(backend, query, "sql", None, LIMITS)
        assert time.monotonic() - start < LIMITS.timeout_s + 2, query
        assert out.error is not None or out.text.startswith(("**50 rows shown", "**1 row")), (
            query,
            out,
        )
    assert checksum(sqlite_path) == before
    assert not list(Path("/tmp").glob("tqx_hostile*"))


@pytest.mark.parametrize("query", BOUNDED_CYPHER)
def test_cypher_is_refused_on_sqlite(sqlite_path: Path, query: str) -> None:
    out = run_graph_query(SQLiteQueryBackend(sqlite_path), query, "cypher")
    assert error_title(out).startswith("Cypher is not available")


def test_the_read_only_connection_itself_refuses_writes(sqlite_path: Path) -> None:
    """The second lock, below the guard: the authorizer and mode=ro refuse what slips past."""
    backend = SQLiteQueryBackend(sqlite_path)
    connection = backend._connect(LIMITS)
    try:
        for sql in ("DELETE FROM facts", "SELECT * FROM sqlite_master", "PRAGMA query_only=OFF"):
            with pytest.raises(Exception, match="not authorized|prohibited"):
                connection.execute(sql)
        connection.set_authorizer(None)
        with pytest.raises(Exception, match="readonly|read-only"):
            connection.execute("DELETE FROM events")
    finally:
        connection.close()
