"""The SQLite file of the embedded index: schema, embedder record, migrations, erasure.

Migrations: files written by the FTS5 version (schema 1) get their terms copied out of the
FTS5 tables into ``search_docs`` the first time they are opened; the FTS5 tables are dropped.
Files written before scopes (schema 2) get a ``scope`` column, and their documents the scope
``default``: the scope the graph store gives every row written before scopes.

Erasure: every connection zeroes the space its writes free (``sqlite_erase.connect``), so
neither a deleted document nor the old version of a re-indexed one stays readable in the
file. A file created that way is marked (meta key ``secure_delete``); one that older versions
wrote is rewritten by ``VACUUM`` on its first erase, then marked.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection

from apexmem_neo.ontology.ids import DEFAULT_SCOPE
from apexmem_neo.search.config import DocField
from apexmem_neo.search.documents import SearchDocument, doc_ids_of
from apexmem_neo.search.protocol import EmbedderInfo, reconcile_embedder
from apexmem_neo.search.sqlite_erase import truncate_wal

SCHEMA_VERSION = 3
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS search_docs (rowid INTEGER PRIMARY KEY, doc_id TEXT UNIQUE "
    "NOT NULL, kind TEXT NOT NULL, conversation_id TEXT, session_id TEXT, speaker TEXT, "
    "time TEXT, doc_json TEXT NOT NULL, text_vector BLOB NOT NULL, context_vector BLOB NOT NULL, "
    "text_terms TEXT NOT NULL DEFAULT '', context_terms TEXT NOT NULL DEFAULT '', "
    "scope TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS search_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)
_SCOPE_INDEX = "CREATE INDEX IF NOT EXISTS search_docs_scope ON search_docs (scope)"
_OLD_FTS = {DocField.TEXT: "search_fts_text", DocField.CONTEXT: "search_fts_context"}
TABLES = ("search_docs", "search_meta", *_OLD_FTS.values())
"""Every table an index file of any version holds: what ``drop()`` removes."""
_SECURE_MARK = "INSERT OR REPLACE INTO search_meta VALUES ('secure_delete', '1')"


def create_schema(db: sqlite3.Connection, where: str, dimensions: int, embedder: str) -> None:
    """Make (or migrate) the tables and record the embedder; an index recorded with another
    embedder raises ``EmbedderMismatchError`` before anything is migrated. The caller commits."""
    fresh = not _has_table(db, "search_docs")
    for statement in _SCHEMA:
        db.execute(statement)
    if reconcile_embedder(where, recorded(db), (embedder, dimensions)):
        db.executemany(
            "INSERT OR REPLACE INTO search_meta VALUES (?, ?)",
            (("dimensions", str(dimensions)), ("embedder", embedder)),
        )
    _migrate_from_fts5(db)
    migrate_to_scopes(db)
    db.execute("INSERT OR REPLACE INTO search_meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
    if fresh:  # every write to these tables comes from a connection that zeroes what it frees
        db.execute(_SECURE_MARK)


def recorded(db: sqlite3.Connection) -> EmbedderInfo | None:
    """The embedder the index recorded ("" as name for files written before names were kept);
    None when it recorded nothing (never created, or dropped)."""
    table = _has_table(db, "search_meta")
    meta = dict(db.execute("SELECT key, value FROM search_meta").fetchall()) if table else {}
    if "dimensions" not in meta:
        return None
    return meta.get("embedder", ""), int(meta["dimensions"])


def erase(
    db: sqlite3.Connection, scope: str, graph_ids: Collection[str] | None, where: str
) -> list[SearchDocument]:
    """Delete the scope's documents of ``graph_ids`` (all when None) and scrub the file of
    them; the deleted documents."""
    found = _scope_documents(db, scope, graph_ids)
    if found:
        with db:
            db.executemany("DELETE FROM search_docs WHERE doc_id = ?", [(i,) for i in found])
    scrub(db, where)
    return list(found.values())


def _scope_documents(
    db: sqlite3.Connection, scope: str, graph_ids: Collection[str] | None
) -> dict[str, SearchDocument]:
    """The scope's stored documents of ``graph_ids`` (all when None), by doc_id."""
    select = "SELECT doc_id, doc_json FROM search_docs WHERE scope = ?"
    if graph_ids is None:
        rows = db.execute(select, (scope,)).fetchall()
    else:
        ids, rows = doc_ids_of(graph_ids), []
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows += db.execute(f"{select} AND doc_id IN ({marks})", (scope, *chunk)).fetchall()
    return {doc_id: SearchDocument.model_validate_json(raw) for doc_id, raw in rows}


def scrub(db: sqlite3.Connection, where: str) -> None:
    """Leave no copy of deleted rows in the file: a file not marked as written with
    ``secure_delete`` throughout is rewritten (VACUUM copies only live rows) and marked; then
    the write-ahead log, if any, is truncated."""
    mark = db.execute("SELECT 1 FROM search_meta WHERE key = 'secure_delete'").fetchone()
    if mark is None:
        db.execute("VACUUM")
        with db:
            db.execute(_SECURE_MARK)
    truncate_wal(db, where)


def _has_table(db: sqlite3.Connection, name: str) -> bool:
    found = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
    return found.fetchone() is not None


def _migrate_from_fts5(db: sqlite3.Connection) -> None:
    """Schema 1 kept terms only in FTS5 tables: copy them into search_docs, drop the tables."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(search_docs)")}
    for field in _OLD_FTS:
        if f"{field.value}_terms" not in columns:
            db.execute(
                f"ALTER TABLE search_docs ADD COLUMN {field.value}_terms TEXT NOT NULL DEFAULT ''"
            )
    for field, table in _OLD_FTS.items():
        if _has_table(db, table):
            db.execute(
                f"UPDATE search_docs SET {field.value}_terms = (SELECT terms FROM {table} "
                f"WHERE {table}.rowid = search_docs.rowid)"
            )
            db.execute(f"DROP TABLE {table}")


def migrate_to_scopes(db: sqlite3.Connection) -> None:
    """Schema 2 had no scopes: its documents join the scope ``default`` (column and JSON),
    as the graph store's rows written before scopes do. Idempotent."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(search_docs)")}
    if "scope" not in columns:
        db.execute(
            f"ALTER TABLE search_docs ADD COLUMN scope TEXT NOT NULL DEFAULT '{DEFAULT_SCOPE}'"
        )
        db.execute(
            "UPDATE search_docs SET doc_json = json_set(doc_json, '$.scope', ?)", (DEFAULT_SCOPE,)
        )
    indexed = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'search_docs_scope'"
    ).fetchone()
    if not indexed:  # looked up first: a reader of an up-to-date file writes nothing
        db.execute(_SCOPE_INDEX)
