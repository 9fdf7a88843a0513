"""``SQLiteGraphStore.erase``: the selection and deletion of an ``ErasureTarget`` in SQL.

The ids to erase are collected into TEMP tables (``x_<kind>``), then every table deletes the
rows they name, all in one transaction that drops and re-creates the facts' append-only
trigger around the delete. ``secure_delete`` zeroes the freed bytes, and the caller VACUUMs
and truncates the WAL afterwards, so no copy of the text stays in the file.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Final

from apexmem_neo.store.erasure import Erasure, ErasureTarget

NO_DELETE_TRIGGER: Final = (
    "CREATE TRIGGER facts_no_delete BEFORE DELETE ON facts "
    "BEGIN SELECT RAISE(ABORT, 'facts are append-only: DELETE is not allowed'); END"
)
KINDS: Final = ("session", "turn", "evidence", "event", "fact", "entity", "property")
SELECT_BY_SCOPE: Final[dict[str, str]] = {
    "session": "SELECT session_id FROM sessions WHERE scope = :s",
    "turn": "SELECT turn_id FROM turns WHERE scope = :s",
    "evidence": "SELECT evidence_id FROM evidence WHERE scope = :s",
    "event": "SELECT event_id FROM events WHERE scope = :s",
    "fact": "SELECT fact_id FROM facts WHERE scope = :s",
    "entity": "SELECT entity_id FROM entities WHERE scope = :s",
    "property": "SELECT property_id FROM properties WHERE scope = :s",
}
SELECT_BY_SESSIONS: Final[dict[str, str]] = {
    "session": "SELECT session_id FROM sessions WHERE scope = :s AND session_id IN x_target",
    "turn": "SELECT turn_id FROM turns WHERE scope = :s AND session_id IN x_target",
    "evidence": "SELECT evidence_id FROM evidence WHERE scope = :s AND turn_id IN x_turn",
    "event": "SELECT event_id FROM events WHERE scope = :s "
    "AND (turn_id IN x_turn OR evidence_id IN x_evidence)",
    "fact": "SELECT fact_id FROM facts WHERE scope = :s "
    "AND (event_id IN x_event OR evidence_id IN x_evidence)",
}
SELECT_BY_ENTITIES: Final[dict[str, str]] = {
    "entity": "SELECT entity_id FROM entities WHERE scope = :s AND entity_id IN x_target",
    "fact": "SELECT fact_id FROM facts WHERE scope = :s AND entity_id IN x_entity",
}
DELETES: Final = (
    ("facts", "fact_id", "x_fact"),
    ("event_participants", "event_id", "x_event"),
    ("event_participants", "entity_id", "x_entity"),
    ("events", "event_id", "x_event"),
    ("evidence", "evidence_id", "x_evidence"),
    ("turns", "turn_id", "x_turn"),
    ("sessions", "session_id", "x_session"),
    ("entities", "entity_id", "x_entity"),
    ("properties", "property_id", "x_property"),
)
"""(table, key, the TEMP table of ids) in an order no foreign key objects to."""


def erase(conn: sqlite3.Connection, target: ErasureTarget) -> Erasure:
    """Erase ``target`` in one transaction and record it; the ids and counts come back."""
    erasure = Erasure(
        scope=target.scope, kind=target.kind, targets=target.sessions or target.entities
    )
    conn.execute("PRAGMA secure_delete = ON")
    conn.execute("BEGIN IMMEDIATE")
    try:
        _select(conn, target)
        erasure.touched_entities = _touched(conn, target.scope)
        _select_orphans(conn, target.scope, target.kind)
        erasure.erased_ids = {k: _column(conn, f"SELECT id FROM x_{k}") for k in KINDS}
        erasure.touched_entities = sorted(
            set(erasure.touched_entities) - set(erasure.erased_ids["entity"])
        )
        erasure.counts = _delete(conn)
        _record(conn, erasure)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    finally:
        _drop_temp(conn)
    conn.execute("COMMIT")
    return erasure


def _select(conn: sqlite3.Connection, target: ErasureTarget) -> None:
    conn.execute("CREATE TEMP TABLE x_target (id TEXT PRIMARY KEY)")
    conn.executemany(
        "INSERT OR IGNORE INTO x_target VALUES (?)",
        [(i,) for i in (*target.sessions, *target.entities)],
    )
    chosen = {"scope": SELECT_BY_SCOPE, "sessions": SELECT_BY_SESSIONS}.get(
        target.kind, SELECT_BY_ENTITIES
    )
    for kind in KINDS:
        conn.execute(f"CREATE TEMP TABLE x_{kind} (id TEXT PRIMARY KEY)")
    for kind, select in chosen.items():  # in the order each selection needs the last
        # the SELECTs are the fixed statements above; the scope is a parameter
        conn.execute(f"INSERT OR IGNORE INTO x_{kind} {select}", {"s": target.scope})


def _touched(conn: sqlite3.Connection, scope: str) -> list[str]:
    """Entities whose facts or participant rows are about to go."""
    return _column(
        conn,
        "SELECT entity_id FROM facts WHERE fact_id IN x_fact UNION "
        "SELECT entity_id FROM event_participants WHERE event_id IN x_event AND scope = :s",
        {"s": scope},
    )


def _select_orphans(conn: sqlite3.Connection, scope: str, kind: str) -> None:
    """After a session or entity erase: the scope's entities and properties nothing else
    uses any more go too (their names came from the erased words)."""
    if kind == "scope":
        return
    if kind == "sessions":
        conn.execute(
            "INSERT OR IGNORE INTO x_entity SELECT entity_id FROM entities e "
            "WHERE e.scope = :s AND e.entity_id IN (SELECT entity_id FROM facts WHERE fact_id "
            "IN x_fact UNION SELECT entity_id FROM event_participants WHERE event_id IN x_event)"
            " AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.entity_id = e.entity_id "
            "AND f.fact_id NOT IN x_fact) AND NOT EXISTS (SELECT 1 FROM event_participants p "
            "WHERE p.entity_id = e.entity_id AND p.event_id NOT IN x_event)",
            {"s": scope},
        )
    conn.execute(
        "INSERT OR IGNORE INTO x_property SELECT property_id FROM properties p "
        "WHERE p.scope = :s AND NOT EXISTS (SELECT 1 FROM facts f "
        "WHERE f.property_id = p.property_id AND f.fact_id NOT IN x_fact)",
        {"s": scope},
    )


def _delete(conn: sqlite3.Connection) -> dict[str, int]:
    counts: dict[str, int] = {}
    conn.execute("DROP TRIGGER facts_no_delete")
    for table, key, ids in DELETES:
        # table, key and the TEMP table come from the fixed DELETES list
        cursor = conn.execute(f"DELETE FROM {table} WHERE {key} IN (SELECT id FROM {ids})")
        counts[table] = counts.get(table, 0) + cursor.rowcount
    # the erased sessions' turn counters (numbers only): a session added again starts at 0
    conn.execute("DELETE FROM turn_seqs WHERE session_id IN (SELECT id FROM x_session)")
    conn.execute(NO_DELETE_TRIGGER)
    return counts


def _record(conn: sqlite3.Connection, erasure: Erasure) -> None:
    conn.execute(
        "INSERT INTO erasures VALUES (?, ?, ?, ?, ?, ?)",
        (
            erasure.erasure_id,
            erasure.scope,
            erasure.kind,
            json.dumps(list(erasure.targets)),
            json.dumps(erasure.counts, sort_keys=True),
            erasure.erased_at,
        ),
    )


def _drop_temp(conn: sqlite3.Connection) -> None:
    for name in ("target", *KINDS):
        conn.execute(f"DROP TABLE IF EXISTS temp.x_{name}")


def _column(conn: sqlite3.Connection, sql: str, params: dict[str, str] | None = None) -> list[str]:
    return sorted(str(row[0]) for row in conn.execute(sql, params or {}))


def compact(conn: sqlite3.Connection) -> None:
    """Rewrite the file from its live rows (VACUUM) and empty the WAL, so no freed page keeps
    an erased byte."""
    conn.execute("VACUUM")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
