"""The SQL guard: exactly one SELECT (or WITH ... SELECT, or a UNION of them) over allowed tables.

``check_sql`` parses with sqlglot (SQLite dialect) and returns the one query's tree, or raises
``ToolError`` naming what it refused. It is the first line only: on SQLite the query also runs
on a read-only connection whose authorizer re-checks every table and function, and on Neo4j
the translated Cypher passes the Cypher guard, EXPLAIN and a READ transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import Final

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from apexmem_neo.errors import ToolError

WRITE_NODES: Final[tuple[type[exp.Expr], ...]] = (
    exp.Insert,
    exp.Update,
    exp.Delete,
    exp.Merge,
    exp.Create,
    exp.Drop,
    exp.Alter,
    exp.Pragma,
    exp.Attach,
    exp.Detach,
    exp.Command,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.Set,
    exp.Into,
    exp.Use,
    exp.LoadData,
    exp.Copy,
    exp.Analyze,
    exp.TruncateTable,
)
"""Statements and clauses that are never part of a read-only SELECT."""

DENIED_FUNCTIONS: Final = frozenset(
    {
        "load_extension",
        "readfile",
        "writefile",
        "edit",
        "fts3_tokenizer",
        "randomblob",
        "zeroblob",
        "printf",
        "format",
        "sqlite_compileoption_get",
        "sqlite_compileoption_used",
        "sqlite_offset",
        "sqlite_source_id",
        "sqlite_version",
        "changes",
        "total_changes",
        "last_insert_rowid",
    }
)
"""SQLite functions that touch files, extensions or connection state, or can build a huge
string or blob in one call (where the time limit cannot interrupt them)."""

READ_ONLY_HINT: Final = (
    "GraphQuery is read-only: send one SELECT (or WITH ... SELECT) over the tables "
    "listed by SchemaViewer."
)


def check_sql(sql: str, allowed_tables: Collection[str]) -> exp.Query:
    """Parse ``sql`` and return its single read-only query, or raise ``ToolError``."""
    try:
        return _checked(sql, allowed_tables)
    except RecursionError as exc:
        raise too_large() from exc


def too_large() -> ToolError:
    """The refusal for SQL whose nesting or chain of operators is too deep to parse or walk:
    sqlglot and the translation recurse once per level, so such a query ends in
    RecursionError, which must reach the agent as a one-line error, not a traceback."""
    return ToolError(
        "SQL too large",
        "the query nests or chains too many expressions; split it or simplify it.",
    )


def circular_cte(name: str) -> ToolError:
    """The refusal for a CTE that reads itself, directly or through another CTE: in SQLite
    a CTE's name means the CTE everywhere in its WITH, its own body included, so
    ``WITH turns AS (SELECT ... FROM turns)`` does not read the table (the shim follows)."""
    return ToolError(
        "Circular CTE",
        f"the CTE {name!r} reads itself (inside the WITH its name means the CTE, not a "
        "table); give it another name: WITH t AS (SELECT ... FROM turns) SELECT ... FROM t.",
    )


def _checked(sql: str, allowed_tables: Collection[str]) -> exp.Query:
    statement = _single_statement(sql)
    if isinstance(statement, exp.Intersect | exp.Except):
        _check_nodes(statement)
    if not isinstance(statement, exp.Select | exp.Union):
        first = sql.strip().split(maxsplit=1)[0].upper() if sql.strip() else ""
        raise ToolError("Not a SELECT", f"{first} statements are refused. {READ_ONLY_HINT}")
    _check_nodes(statement)
    _check_tables(statement, {t.lower() for t in allowed_tables})
    return statement


def _single_statement(sql: str) -> exp.Expr:
    if not sql.strip():
        raise ToolError("Empty query", "the query text is empty.")
    try:
        with _quiet_sqlglot():
            parsed = sqlglot.parse(sql, read="sqlite")
    except (ParseError, TokenError) as exc:
        raise ToolError("SQL syntax error", _first_line(str(exc))) from exc
    statements = [s for s in parsed if s is not None and not _only_comment(s)]
    if len(statements) != 1:
        raise ToolError(
            "Multiple statements",
            f"found {len(statements)} statements; send exactly one SELECT per call.",
        )
    return statements[0]


def _only_comment(statement: exp.Expr) -> bool:
    """sqlglot keeps a comment after the last ';' as a statement of its own (a Semicolon
    node holding the comment); SQLite ignores it, so it does not count as a statement."""
    return isinstance(statement, exp.Semicolon)


@contextmanager
def _quiet_sqlglot() -> Iterator[None]:
    """sqlglot logs a warning for statements it keeps as raw commands; we refuse them anyway."""
    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _check_nodes(tree: exp.Expr) -> None:
    for node in tree.walk():
        if isinstance(node, WRITE_NODES):
            raise ToolError("Write refused", f"{_kind(node)} is not allowed. {READ_ONLY_HINT}")
        if isinstance(node, exp.Intersect | exp.Except):
            raise ToolError(
                "Unsupported SQL",
                f"{node.key.upper()} is not supported; use WHERE [NOT] EXISTS (SELECT ...).",
            )
        if isinstance(node, exp.Placeholder) and node.this is None:
            raise ToolError(
                "Positional parameter",
                "'?' placeholders are not supported: name them (:entity_id) and pass "
                'params={"entity_id": ...}.',
            )
        if isinstance(node, exp.Func) and _function_name(node) in DENIED_FUNCTIONS:
            raise ToolError(
                "Function refused", f"{_function_name(node)}() is not allowed in GraphQuery."
            )


def _check_tables(tree: exp.Expr, allowed: set[str]) -> None:
    cte_names = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            raise ToolError(
                "Table function refused",
                f"{table.sql(dialect='sqlite')} is not a table; read only the tables "
                f"{', '.join(sorted(allowed))}.",
            )
        if table.args.get("db") is not None or table.args.get("catalog") is not None:
            raise ToolError(
                "Schema-qualified table",
                f"{table.sql(dialect='sqlite')}: use the plain table name (no schema prefix).",
            )
        name = table.name.lower()
        if name not in allowed and name not in cte_names:
            raise ToolError(
                "Unknown table",
                f"{table.name!r} is not a table GraphQuery may read; the tables are "
                f"{', '.join(sorted(allowed))} (see SchemaViewer).",
            )


def _function_name(node: exp.Func) -> str:
    return (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()


def _kind(node: exp.Expr) -> str:
    return node.key.upper()


def _first_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0] if lines else text


__all__ = ["DENIED_FUNCTIONS", "check_sql", "circular_cte", "too_large"]
