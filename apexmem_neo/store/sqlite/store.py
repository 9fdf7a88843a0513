"""SQLiteGraphStore: the paper's tables in an embedded SQLite database.

The constructor does no I/O; ``init_schema()`` opens the connection (WAL journal, foreign keys
on) and applies the numbered migrations in ``migrations/`` that ``schema_version`` does not
list yet. Each ``write()`` is one ``BEGIN IMMEDIATE`` transaction of ``INSERT OR IGNORE``
statements, so a batch lands whole or not at all and re-writing it adds nothing. The
temporal rules are those of ``apexmem_neo.store.protocol``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, Final

from apexmem_neo.ontology import Entity, EntityType, Event, GraphBatch
from apexmem_neo.ontology.ids import DEFAULT_SCOPE, normalize_text
from apexmem_neo.ontology.types import TimeLike, normalize_time
from apexmem_neo.store import columns
from apexmem_neo.store.backend import StoreBackend, in_scope
from apexmem_neo.store.erasure import Erasure, ErasureTarget
from apexmem_neo.store.pages import PageRequest
from apexmem_neo.store.protocol import (
    TABLES,
    FactRecord,
    Item,
    StoreCounts,
    StoreError,
    StoreNotReadyError,
    check_interval,
    ensure_references,
)
from apexmem_neo.store.sqlite import erase as sqlite_erase
from apexmem_neo.store.sqlite import pages as sqlite_pages
from apexmem_neo.store.timeutil import Clock, utc_now

FACT_COLUMNS: Final = (
    "fact_id, entity_id, property, value_json, dtype, t_from, t_to, confidence, "
    "event_id, evidence_id, recorded_at"
)
K_DESC: Final = "ORDER BY t_from DESC, recorded_at DESC, fact_id DESC LIMIT 1"
HOLDS_AT: Final = "t_from <= :t AND (t_to IS NULL OR t_to >= :t)"
PAIR: Final = "entity_id = :e AND property = :p"

QUERIES: Final[dict[str, str]] = {
    "current": f"SELECT {FACT_COLUMNS} FROM facts WHERE {PAIR} {K_DESC}",
    "as_of": f"SELECT {FACT_COLUMNS} FROM facts WHERE {PAIR} AND {HOLDS_AT} {K_DESC}",
    "history": (
        f"SELECT {FACT_COLUMNS} FROM facts WHERE {PAIR} " "ORDER BY t_from, recorded_at, fact_id"
    ),
    "facts_between": (
        f"SELECT {FACT_COLUMNS} FROM facts WHERE entity_id = :e "
        "AND t_from BETWEEN :t1 AND :t2 "
        "ORDER BY t_from, property, recorded_at, fact_id"
    ),
    "known_as_of": (
        f"SELECT {FACT_COLUMNS} FROM facts WHERE {PAIR} AND recorded_at <= :r {K_DESC}"
    ),
    "known_as_of_at": (
        f"SELECT {FACT_COLUMNS} FROM facts WHERE {PAIR} AND recorded_at <= :r "
        f"AND {HOLDS_AT} {K_DESC}"
    ),
}
"""The temporal queries, named so benchmarks can EXPLAIN QUERY PLAN them."""

INSERTS: Final[dict[str, str]] = {
    table: (
        f"INSERT OR IGNORE INTO {table} ({', '.join(cols)}) "
        f"VALUES ({', '.join('?' * len(cols))})"
    )
    for table, cols in columns.COLUMNS.items()
}
ENTITY_COLUMNS: Final = ", ".join(columns.COLUMNS["entities"])
EVENT_COLUMNS: Final = ", ".join(columns.COLUMNS["events"])

ID_COLUMNS: Final[dict[str, tuple[str, str]]] = {
    "session": ("sessions", "session_id"),
    "turn": ("turns", "turn_id"),
    "entity": ("entities", "entity_id"),
    "evidence": ("evidence", "evidence_id"),
    "event": ("events", "event_id"),
}
IN_CHUNK: Final = 500
PAGE_SIZE: Final = 65536
"""Page size of a new database file (SQLite's maximum)."""


class SQLiteGraphStore(StoreBackend):
    """GraphStore on SQLite. ``path`` is a file path or ``":memory:"``.

    ``clock`` stamps ``recorded_at`` on rows that carry none (default: the UTC wall clock).
    The connection is opened by ``init_schema()`` and closed by ``close()``.
    """

    concurrent_writes: ClassVar[bool] = False
    """One connection, one writer: ``store.bulk.write_batches`` takes writers=1 only."""

    def __init__(self, path: str | Path, clock: Clock | None = None) -> None:
        self.path = str(path)
        self._clock = clock or utc_now
        self._conn: sqlite3.Connection | None = None

    # ---- lifecycle ----

    def init_schema(self) -> None:
        if self._conn is None:
            self._conn = _connect(self.path)
        _migrate(self._conn, normalize_time(self._clock()))

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @property
    def connection(self) -> sqlite3.Connection:
        """The open connection (for benchmarks and the read-only SQL tool)."""
        if self._conn is None:
            raise StoreNotReadyError("SQLiteGraphStore: call init_schema() first")
        return self._conn

    def checkpoint(self) -> None:
        """Copy the WAL back into the database file and truncate it (after a bulk load)."""
        self.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def schema_version(self) -> int:
        row = self.connection.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return int(row[0] or 0)

    # ---- writing ----

    def write(self, batch: GraphBatch) -> None:
        self.write_many([batch])

    def write_many(self, batches: Sequence[GraphBatch]) -> None:
        """Write ``batches`` in one transaction: all of them or none (bulk loads).

        Each commit copies every page it dirtied into the WAL, and random ids dirty pages all
        over the indexes, so at a million facts a commit costs in proportion to the database,
        not the batch; committing several batches at once is clearly faster there.
        """
        conn = self.connection
        now = normalize_time(self._clock())
        conn.execute("BEGIN IMMEDIATE")
        try:
            for batch in batches:
                # inside the transaction, so a batch may reference ids an earlier one defined
                ensure_references(batch, self._existing_in(batch.scope))
                table_rows = columns.batch_tuples(batch, batch.recorded_at or now)
                for table in TABLES:
                    if table_rows[table]:
                        conn.executemany(INSERTS[table], table_rows[table])
        except sqlite3.DatabaseError as exc:
            conn.execute("ROLLBACK")
            raise StoreError(f"SQLiteGraphStore.write rolled back: {exc}") from exc
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def reserve_turn_seqs(self, session_id: str, count: int) -> int:
        """The first of ``count`` turn numbers of the session, reserved in one ``BEGIN
        IMMEDIATE`` transaction (SQLite's write lock), so another connection or process that
        reserves at the same time waits and gets the numbers after these."""
        if count < 1:
            raise ValueError(f"count must be positive, got {count}")
        conn = self.connection
        conn.execute("BEGIN IMMEDIATE")
        try:
            first = _next_seq(conn, session_id)
            conn.execute(
                "INSERT INTO turn_seqs (session_id, next_seq) VALUES (?, ?) "
                "ON CONFLICT (session_id) DO UPDATE SET next_seq = excluded.next_seq",
                (session_id, first + count),
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return first

    def _existing_in(self, scope: str) -> Callable[[str, Collection[str]], set[str]]:
        """The stored ids of a kind within ``scope``: a batch cannot point into another."""

        def existing(kind: str, wanted: Collection[str]) -> set[str]:
            table, column = ID_COLUMNS[kind]
            found: set[str] = set()
            ordered = sorted(wanted)
            for start in range(0, len(ordered), IN_CHUNK):
                chunk = ordered[start : start + IN_CHUNK]
                marks = ",".join("?" * len(chunk))
                # table and column come from the fixed ID_COLUMNS map, never from input
                sql = f"SELECT {column} FROM {table} WHERE {column} IN ({marks}) AND scope = ?"
                found.update(r[0] for r in self.connection.execute(sql, [*chunk, scope]))
            return found

        return existing

    # ---- erasure ----

    def erase(self, target: ErasureTarget) -> Erasure:
        """Delete what ``target`` names (see ``apexmem_neo.store.erasure``) and record it."""
        return sqlite_erase.erase(self.connection, target)

    def compact(self) -> None:
        """Leave no erased byte in the file or its WAL (VACUUM, then truncate the WAL)."""
        sqlite_erase.compact(self.connection)

    # ---- lookups ----

    def counts(self, scope: str | None = None) -> StoreCounts:
        conn = self.connection
        if scope is not None:
            return sqlite_pages.scope_counts(conn, scope)
        # table names come from the constant TABLES
        values = {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}
        return StoreCounts(**values)

    def scopes(self) -> list[str]:
        return sqlite_pages.scopes(self.connection)

    def _page_rows(self, request: PageRequest[Item]) -> list[Any]:
        """``sqlite3.Row`` reads as a mapping, though its type does not say so."""
        return sqlite_pages.page_rows(self.connection, request)

    def get_entity(self, entity_id: str, scope: str | None = None) -> Entity | None:
        sql = f"SELECT {ENTITY_COLUMNS} FROM entities WHERE entity_id = ?"
        row = in_scope(self.connection.execute(sql, (entity_id,)).fetchone(), scope)
        return None if row is None else columns.entity_from_row(row)

    def find_entities(
        self, name: str, entity_type: EntityType | None = None, *, scope: str = DEFAULT_SCOPE
    ) -> list[Entity]:
        sql = f"SELECT {ENTITY_COLUMNS} FROM entities WHERE scope = ? AND norm_name = ?"
        params: list[str] = [scope, normalize_text(name)]
        if entity_type is not None:
            sql += " AND entity_type = ?"
            params.append(EntityType(entity_type).value)
        sql += " ORDER BY entity_id"
        return [columns.entity_from_row(r) for r in self.connection.execute(sql, params)]

    def list_entities(self, *, scope: str = DEFAULT_SCOPE) -> list[Entity]:
        sql = f"SELECT {ENTITY_COLUMNS} FROM entities WHERE scope = ? ORDER BY entity_id"
        return [columns.entity_from_row(r) for r in self.connection.execute(sql, (scope,))]

    def get_event(self, event_id: str, scope: str | None = None) -> Event | None:
        sql = f"SELECT {EVENT_COLUMNS} FROM events WHERE event_id = ?"
        row = in_scope(self.connection.execute(sql, (event_id,)).fetchone(), scope)
        return None if row is None else columns.event_from_row(row)

    # ---- temporal queries ----

    def _latest(self, entity_id: str, property: str) -> FactRecord | None:
        return self._one("current", e=entity_id, p=property)

    def as_of(self, entity_id: str, property: str, t: TimeLike) -> FactRecord | None:
        return self._one("as_of", e=entity_id, p=property, t=normalize_time(t))

    def history(self, entity_id: str, property: str) -> list[FactRecord]:
        return self._many("history", e=entity_id, p=property)

    def facts_between(self, entity_id: str, t1: TimeLike, t2: TimeLike) -> list[FactRecord]:
        start, end = check_interval(t1, t2)
        return self._many("facts_between", e=entity_id, t1=start, t2=end)

    def _known(
        self, entity_id: str, property: str, cutoff: str, at: str | None
    ) -> FactRecord | None:
        if at is None:
            return self._one("known_as_of", e=entity_id, p=property, r=cutoff)
        return self._one("known_as_of_at", e=entity_id, p=property, r=cutoff, t=at)

    def _one(self, query: str, **params: Any) -> FactRecord | None:
        row = self.connection.execute(QUERIES[query], params).fetchone()
        return None if row is None else columns.fact_from_row(row)

    def _many(self, query: str, **params: Any) -> list[FactRecord]:
        """Every row of ``query`` as a ``FactRecord`` (the reader looked up once, not per row)."""
        read = columns.fact_from_row
        return [read(r) for r in self.connection.execute(QUERIES[query], params)]


def _next_seq(conn: sqlite3.Connection, session_id: str) -> int:
    """One past both the session's counter and its last stored turn (turns written by an
    ingest, an import or before counters existed take numbers without reserving them)."""
    row = conn.execute(
        "SELECT next_seq FROM turn_seqs WHERE session_id = ?", (session_id,)
    ).fetchone()
    (last,) = conn.execute(
        "SELECT MAX(seq) FROM turns WHERE session_id = ?", (session_id,)
    ).fetchone()
    return max(row[0] if row is not None else 0, 0 if last is None else int(last) + 1)


def _connect(path: str) -> sqlite3.Connection:
    # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE ... COMMIT).
    # check_same_thread=False: a Memory serves reads from worker threads (AsyncMemory, the MCP
    # server); sqlite3 serialises use of one connection, and the Memory keeps one writer.
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    # Before WAL, and effective only on a new (empty) database: an existing file keeps its
    # page size. 64 KiB pages make bulk ingest much cheaper (fewer, fuller pages to split,
    # write to the WAL and checkpoint, above all in the fact_id index whose keys are random).
    conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA cache_size = -131072")  # 128 MiB page cache
    conn.execute("PRAGMA temp_store = MEMORY")
    return conn


def migrations() -> Iterator[tuple[int, str, str]]:
    """(number, file name, SQL) of every packaged migration, in order."""
    folder = resources.files("apexmem_neo.store.sqlite").joinpath("migrations")
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    for file in files:
        yield int(file.name.split("_", 1)[0]), file.name, file.read_text(encoding="utf-8")


def _migrate(conn: sqlite3.Connection, now: str) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_version ("
        "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    applied = {r[0] for r in conn.execute("SELECT version FROM schema_version")}
    for number, name, sql in migrations():
        if number in applied:
            continue
        # executescript commits first, so BEGIN ... COMMIT makes one migration atomic; the
        # values spliced in are the packaged file's number and name and a normalised time.
        record = f"INSERT INTO schema_version VALUES ({number}, '{name}', '{now}');"
        # Foreign keys off (it cannot change inside a transaction) so that a migration may
        # rebuild a table that others reference, SQLite's documented way to alter a table.
        conn.execute("PRAGMA foreign_keys = OFF")
        try:
            conn.executescript(f"BEGIN IMMEDIATE;\n{sql}\n{record}\nCOMMIT;")
        except sqlite3.DatabaseError as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise StoreError(f"SQLite migration {name} failed: {exc}") from exc
        finally:
            conn.execute("PRAGMA foreign_keys = ON")
        if conn.execute("PRAGMA foreign_key_check").fetchone() is not None:
            raise StoreError(f"SQLite migration {name} left rows with dangling references")


def explain(conn: sqlite3.Connection, sql: str, params: Sequence[Any] | dict[str, Any]) -> str:
    """The EXPLAIN QUERY PLAN of ``sql`` as one string (details joined by '; ')."""
    plan = conn.execute(f"EXPLAIN QUERY PLAN {sql}", params).fetchall()
    return "; ".join(str(row[3]) for row in plan)


__all__ = ["QUERIES", "SQLiteGraphStore", "explain", "migrations"]
