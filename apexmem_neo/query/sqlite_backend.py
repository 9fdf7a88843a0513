"""GraphQuery and SchemaViewer on SQLite: SQL on a read-only connection, Cypher refused.

Every query gets its own connection opened with ``mode=ro`` (the file cannot be written
through it), ``PRAGMA query_only=ON``, an authorizer that allows only SELECT, reads of the
paper's tables and functions outside ``query.sql.guard.DENIED_FUNCTIONS``, a progress handler that
stops the query at the time limit, a cap on string / blob size, and rows fetched one at a
time until ``max_rows`` or ``max_result_bytes`` is reached. The query text's length is checked
first, then the SQL guard runs for clear error messages.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from sqlglot import exp

from apexmem_neo.query import examples, graph_mapping
from apexmem_neo.query.backend import (
    ColumnInfo,
    Example,
    IndexInfo,
    Language,
    QueryLimits,
    QueryResult,
    RelationInfo,
    SchemaInfo,
    TableInfo,
    ToolError,
    check_query_size,
    collect_rows,
)
from apexmem_neo.query.sql.guard import DENIED_FUNCTIONS, check_sql, circular_cte

MAX_VALUE_BYTES: Final = 1_000_000
CIRCULAR: Final = "circular reference: "
"""How SQLite starts the error for a CTE that reads itself."""
PROGRESS_STEPS: Final = 1000
_ALLOWED_ACTIONS: Final = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)


class SQLiteQueryBackend:
    """Read-only queries over the SQLite store file at ``path`` (the constructor does no I/O)."""

    def __init__(self, path: str | Path, tables: Sequence[str] = graph_mapping.QUERYABLE_TABLES):
        self.path = Path(path)
        self.tables = tuple(tables)

    @property
    def name(self) -> str:
        return "SQLite"

    @property
    def native_language(self) -> Language:
        return "sql"

    def run(
        self,
        query: str,
        language: Language,
        params: Mapping[str, Any],
        limits: QueryLimits,
        scope: str | None = None,
    ) -> QueryResult:
        """Run ``query``; with ``scope`` it sees that scope's rows only (``_scope_views``)."""
        check_query_size(query, limits)
        if language != "sql":
            raise ToolError(
                "Cypher is not available on this memory",
                "this memory is stored in SQLite; send SQL over the paper's tables with "
                "language='sql' (SchemaViewer lists them).",
            )
        tree = check_sql(query, self.tables)
        ctes = frozenset(c.alias_or_name.lower() for c in tree.find_all(exp.CTE))
        connection = self._connect(limits, ctes, scope)
        try:
            return _fetch(connection, query, params, limits)
        finally:
            connection.close()

    def _connect(
        self,
        limits: QueryLimits | None,
        ctes: frozenset[str] = frozenset(),
        scope: str | None = None,
    ) -> sqlite3.Connection:
        """A read-only connection; with ``limits`` also the authorizer, time limit and caps;
        with ``scope`` the tables are that scope's views."""
        if not self.path.is_file():
            raise ToolError("No database", f"the SQLite file {self.path} does not exist.")
        uri = self.path.resolve().as_uri() + "?mode=ro"
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
        filters = None if scope is None else _scope_views(connection, self.tables, scope)
        connection.execute("PRAGMA query_only=ON")
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        connection.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        if limits is not None:
            deadline = time.monotonic() + limits.timeout_s
            connection.set_progress_handler(
                lambda: 1 if time.monotonic() > deadline else 0, PROGRESS_STEPS
            )
            allowed = frozenset(t.lower() for t in self.tables)
            connection.set_authorizer(_authorizer(allowed, ctes, filters))
        return connection

    # ---- schema ----

    def schema(self, scope: str | None = None) -> SchemaInfo:
        """The tables, relationships and indexes, with ``scope``'s row counts if given."""
        connection = self._connect(None, scope=scope)
        try:
            present = [t for t in self.tables if _has_table(connection, t)]
            tables = tuple(_table_info(connection, t, scope is not None) for t in present)
            relations = tuple(r for t in present for r in _foreign_keys(connection, t))
            indexes = tuple(i for t in present for i in _indexes(connection, t))
        finally:
            connection.close()
        notes = (
            "Times are TEXT 'YYYY-MM-DDTHH:MM:SS' (UTC): compare them as strings; "
            "date(), julianday() and strftime() work on them.",
            "facts.value_json is the value as canonical JSON text (a string value keeps its "
            "quotes: '\"Paris\"').",
        )
        return SchemaInfo("SQLite", "sql", tables, relations, indexes, notes)

    def examples(self) -> Sequence[Example]:
        return examples.SQL_EXAMPLES


def _scope_views(
    connection: sqlite3.Connection, tables: Sequence[str], scope: str
) -> dict[str, str]:
    """Shadow every table by a TEMP view of ``scope``'s rows (SQLite resolves an unqualified
    name in temp first). The view reads through a filter view whose name is random per
    connection, so no query can name it; the authorizer lets only that filter read the table
    (``_authorizer``). Returns each table's filter view name."""
    literal = "'" + scope.replace("'", "''") + "'"
    token = secrets.token_hex(8)
    filters = {table.lower(): f"scope_{token}_{table}".lower() for table in tables}
    for table in tables:
        # names come from the fixed allow-list and a hex token; the scope is a quoted literal
        inner = filters[table.lower()]
        connection.execute(
            f"CREATE TEMP VIEW {inner} AS SELECT * FROM main.{table} WHERE scope = {literal}"
        )
        connection.execute(f"CREATE TEMP VIEW {table} AS SELECT * FROM {inner}")
    return filters


def _authorizer(
    allowed: frozenset[str], ctes: frozenset[str], filters: Mapping[str, str] | None = None
) -> Any:
    """SQLite's own check of every step: SELECT, reads of allowed tables (or of the query's
    CTEs, which SQLite reports without a database name) and functions not denied.

    With ``filters`` (a scoped query, ``_scope_views``) a stored table is read only by its
    scope filter view: SQLite names the innermost view or CTE a read comes from, and a CTE
    may share a table's name but not the filter's random one. Reads of the TEMP views, from
    anywhere in the query, see the scope's rows only."""
    views = allowed | frozenset(filters.values()) if filters is not None else frozenset()

    def read_ok(table: str, db: str | None, source: str | None) -> bool:
        if db is None and table in ctes:
            return True
        if filters is None:
            return db in (None, "main") and table in allowed
        if db == "temp":
            return table in views
        return db == "main" and source is not None and filters.get(table) == source

    def authorize(
        action: int, arg1: str | None, arg2: str | None, db: str | None, source: str | None
    ) -> int:
        if action not in _ALLOWED_ACTIONS:
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_READ:
            ok = read_ok((arg1 or "").lower(), db, (source or "").lower() or None)
            return sqlite3.SQLITE_OK if ok else sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in DENIED_FUNCTIONS:
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    return authorize


def _fetch(
    connection: sqlite3.Connection, query: str, params: Mapping[str, Any], limits: QueryLimits
) -> QueryResult:
    try:
        cursor = connection.execute(query, dict(params))
        rows, cut = collect_rows(map(tuple, cursor), limits)
    except sqlite3.Error as exc:
        raise _query_error(exc, limits) from exc
    except (ValueError, TypeError, OverflowError) as exc:
        raise ToolError("SQLite error", str(exc)) from exc
    columns = tuple(d[0] for d in cursor.description or ())
    return QueryResult(columns, tuple(rows), cut is not None, truncated_by=cut)


def _query_error(exc: sqlite3.Error, limits: QueryLimits) -> ToolError:
    """The one-line account of a failed query; the authorizer's refusals come as
    ``DatabaseError`` ("prohibited") or ``OperationalError`` ("not authorized")."""
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and "interrupted" in text:
        return ToolError(
            "Time limit",
            f"the query ran longer than {limits.timeout_s:g} s and was stopped; "
            "filter earlier (WHERE on entity_id / property / t_from) or add LIMIT.",
        )
    if "not authorized" in text or "prohibited" in text:
        return ToolError(
            "Refused by the read-only guard",
            "the query touches something other than reading the paper's tables.",
        )
    if text.startswith(CIRCULAR):
        return circular_cte(text.removeprefix(CIRCULAR))
    return ToolError("SQLite error", text)


def _has_table(connection: sqlite3.Connection, table: str) -> bool:
    row = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    return row is not None


def _table_info(connection: sqlite3.Connection, table: str, scoped: bool = False) -> TableInfo:
    """A table's columns and key, and its row count (through the scope view if ``scoped``)."""
    info = connection.execute(f"PRAGMA main.table_info({table})").fetchall()
    columns = tuple(ColumnInfo(r[1], r[2], not r[3] and not r[5]) for r in info)
    key = tuple(r[1] for r in sorted(info, key=lambda r: r[5]) if r[5])
    source = table if scoped else f"main.{table}"
    (count,) = connection.execute(f"SELECT count(*) FROM {source}").fetchone()
    return TableInfo(table, "table", table, columns, key, int(count))


def _foreign_keys(connection: sqlite3.Connection, table: str) -> list[RelationInfo]:
    rows = connection.execute(f"PRAGMA main.foreign_key_list({table})").fetchall()
    return [
        RelationInfo(f"{table}.{r[3]} = {r[2]}.{r[4]}", f"join {table} to {r[2]}") for r in rows
    ]


def _indexes(connection: sqlite3.Connection, table: str) -> list[IndexInfo]:
    out: list[IndexInfo] = []
    for row in connection.execute(f"PRAGMA main.index_list({table})").fetchall():
        name, unique, origin = row[1], row[2], row[3]
        cols = [r[2] for r in connection.execute(f"PRAGMA index_info('{name}')").fetchall()]
        kind = {"pk": "primary key", "u": "unique"}.get(origin, "unique" if unique else "index")
        out.append(IndexInfo(name, f"{table}({', '.join(cols)})", kind))
    return out
