"""Keyset pages, scope counts and the list of scopes on SQLite (``GraphStore.page``).

A page is one SELECT over the kind's table: the scope and the filters as equalities, each
wanted metadata entry as a ``json_each`` row of the same key, JSON type and value, the
key's first column from the cursor on (a range its index seeks, so a page reads only its
own rows and the next one), the whole key compared as a row value past the cursor's, in
key order, one row more than the page holds. Table and column names come from the fixed
kinds and ``columns.COLUMNS``; values are always parameters.
"""

from __future__ import annotations

import json
import sqlite3
from functools import cache
from typing import Final

from apexmem_neo.ontology.metadata import MetadataValue
from apexmem_neo.store import columns
from apexmem_neo.store.pages import PageRequest, fixed_prefix
from apexmem_neo.store.protocol import TABLES, Item, StoreCounts

SCOPE_TABLES: Final = ("sessions", "entities", "properties", "evidence", "events")
"""Tables whose scopes are every scope: a turn needs its session, a fact its entity and a
participant its event, all in the same scope."""


@cache
def page_sql(
    table: str, key: tuple[str, ...], filters: tuple[str, ...], after: bool, tags: int = 0
) -> str:
    """The SELECT of one page of ``table`` (``after``: past a cursor's key ``:k0``...;
    ``tags``: metadata entries ``:mk0, :mt0, :ma0``... its rows must hold)."""
    terms = ["scope = :scope", *(f"{column} = :{column}" for column in filters)]
    terms += [
        f"EXISTS (SELECT 1 FROM json_each({table}.metadata_json) AS m "
        f"WHERE m.key = :mk{i} AND m.type = :mt{i} AND m.atom IS :ma{i})"
        for i in range(tags)
    ]
    first = fixed_prefix(key, filters)  # the first key column no filter fixes: a range
    if first < len(key) and (after or first == 0):
        strict = after and first == len(key) - 1
        terms.append(f"{key[first]} {'>' if strict else '>='} :k{first}")
    if after and len(key) - first > 1:
        marks = ", ".join(f":k{i}" for i in range(len(key)))
        terms.append(f"({', '.join(key)}) > ({marks})")
    return (
        f"SELECT {', '.join(columns.COLUMNS[table])} FROM {table} "
        f"WHERE {' AND '.join(terms)} ORDER BY {', '.join(key)} LIMIT :limit"
    )


def page_rows(conn: sqlite3.Connection, request: PageRequest[Item]) -> list[sqlite3.Row]:
    """The rows of one page (the rules of ``GraphStore.page``), one more than its limit
    when that many follow."""
    kind, wanted, start = request.kind, request.filters, request.start
    tags = sorted(request.metadata.items())
    sql = page_sql(kind.table, kind.key, tuple(sorted(wanted)), start is not None, len(tags))
    params: dict[str, object] = {"scope": request.scope, "limit": request.limit + 1, **wanted}
    params |= {f"k{i}": value for i, value in enumerate(start or [""])}
    for i, (name, value) in enumerate(tags):
        params |= {f"mk{i}": name, f"mt{i}": _json_type(value), f"ma{i}": value}
    return conn.execute(sql, params).fetchall()


def _json_type(value: MetadataValue) -> str:
    """The ``json_each`` type of a metadata value (its ``atom`` is the value itself: true and
    false are 1 and 0, null is NULL)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return "integer"
    return "real" if isinstance(value, float) else "text"


def scope_counts(conn: sqlite3.Connection, scope: str) -> StoreCounts:
    """Rows per table in ``scope``."""
    # table names come from the constant TABLES
    sql = "SELECT COUNT(*) FROM {} WHERE scope = ?"
    return StoreCounts(
        **{table: conn.execute(sql.format(table), (scope,)).fetchone()[0] for table in TABLES}
    )


def scopes(conn: sqlite3.Connection) -> list[str]:
    """Every scope holding a row, sorted."""
    union = " UNION ".join(f"SELECT scope FROM {table}" for table in SCOPE_TABLES)
    return [row[0] for row in conn.execute(f"{union} ORDER BY 1")]
