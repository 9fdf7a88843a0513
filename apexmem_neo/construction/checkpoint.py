"""Per-turn checkpoints, the resolution state and the provenance of decisions, in SQLite.

The tables live in the SQLite store's own file (prefixed ``construction_``, beside the
graph tables) or, for Neo4j, in a sidecar file under APEXMEM_HOME. A turn goes through a
write-ahead protocol that makes a killed ingest resume with no duplicate and no lost fact:

1. ``stage``: one transaction records the turn's finished ``GraphBatch`` (as JSON), the
   catalog changes (new entities, aliases, properties) and the decisions, status ``pending``;
2. the pipeline writes the batch to the graph store (all-or-nothing, idempotent);
3. ``mark_done``.

On restart ``pending()`` returns the staged batches, which are written again (idempotent) and
marked done without calling the LLM again; done turns are skipped; failed turns (with their
raw LLM output) are skipped unless asked to retry.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict

from apexmem_neo.construction.candidates import EntityCatalog, PropertyCatalog
from apexmem_neo.ontology import Entity, GraphBatch, Property
from apexmem_neo.ontology.ids import DEFAULT_SCOPE
from apexmem_neo.store.erasure import Erasure

TurnStatus = Literal["pending", "done", "failed"]

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS construction_turns (
    turn_id     TEXT PRIMARY KEY,
    source_key  TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
    batch_json  TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    llm_calls   INTEGER NOT NULL DEFAULT 0,
    error       TEXT,
    raw_output  TEXT,
    updated_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS construction_turns_status ON construction_turns (status);
CREATE TABLE IF NOT EXISTS construction_entities (
    entity_id    TEXT PRIMARY KEY,
    entity_json  TEXT NOT NULL,
    scope        TEXT NOT NULL DEFAULT 'default'
);
CREATE TABLE IF NOT EXISTS construction_property_catalog (
    property_id   TEXT PRIMARY KEY,
    scope         TEXT NOT NULL,
    property_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS construction_decisions (
    decision_id INTEGER PRIMARY KEY AUTOINCREMENT,
    turn_id     TEXT NOT NULL,
    kind        TEXT NOT NULL,
    mention     TEXT NOT NULL,
    decision    TEXT NOT NULL,
    chosen      TEXT,
    confidence  REAL NOT NULL,
    via         TEXT NOT NULL,
    rationale   TEXT NOT NULL,
    recorded_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS construction_decisions_turn ON construction_decisions (turn_id);
CREATE TABLE IF NOT EXISTS construction_runs (
    run_id      TEXT PRIMARY KEY,
    source      TEXT NOT NULL,
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    stats_json  TEXT NOT NULL
);
"""


class DecisionRecord(BaseModel):
    """Provenance of one decision: entity/property resolution, merge, or time grounding.

    ``decision`` is choose_existing | propose_new | none for resolutions, ``fused`` or
    ``kept_apart`` for merges, the time source (``anchor_default``, ...) for times, and
    ``choose_existing`` for a ``subject`` moved to the speaker (a first-person statement
    whose extracted subject was its own value) or a ``value`` a correction puts in place of
    the one it takes back.
    """

    model_config = ConfigDict(frozen=True)

    turn_id: str
    kind: Literal["entity", "property", "subject", "value", "merge", "time", "dropped", "end"]
    mention: str
    decision: str
    chosen: str | None = None
    confidence: float = 1.0
    via: str = "rule"
    rationale: str = ""


class FailedTurn(BaseModel):
    turn_id: str
    source_key: str
    attempts: int
    error: str
    raw_output: str | None


def _now() -> str:
    return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="seconds")


class Checkpoint:
    """The construction tables in the SQLite file at ``path``. ``open()`` does the I/O."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._conn: sqlite3.Connection | None = None

    def open(self) -> None:
        if self._conn is None:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA busy_timeout = 10000")
            conn.executescript(SCHEMA)
            _upgrade(conn)
            self._conn = conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("Checkpoint: call open() first")
        return self._conn

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # ---- turn status ----

    def statuses(self, turn_ids: Collection[str]) -> dict[str, TurnStatus]:
        found: dict[str, TurnStatus] = {}
        ordered = list(turn_ids)
        for start in range(0, len(ordered), 500):
            chunk = ordered[start : start + 500]
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT turn_id, status FROM construction_turns WHERE turn_id IN ({marks})"
            found.update({row[0]: row[1] for row in self.conn.execute(sql, chunk)})
        return found

    def pending(self) -> list[tuple[str, GraphBatch]]:
        rows = self.conn.execute(
            "SELECT turn_id, batch_json FROM construction_turns "
            "WHERE status = 'pending' ORDER BY updated_at, turn_id"
        ).fetchall()
        return [(r[0], GraphBatch.model_validate_json(r[1])) for r in rows]

    def stage(
        self,
        turn_id: str,
        source_key: str,
        batch: GraphBatch,
        entities: Sequence[Entity],
        properties: Sequence[Property],
        decisions: Sequence[DecisionRecord],
        attempts: int,
        llm_calls: int,
    ) -> None:
        """Record a finished turn as pending, with its catalog changes, in one transaction."""
        now = _now()
        with self._transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO construction_turns (turn_id, source_key, status, "
                "batch_json, attempts, llm_calls, error, raw_output, updated_at) "
                "VALUES (?, ?, 'pending', ?, ?, ?, NULL, NULL, ?)",
                (turn_id, source_key, batch.model_dump_json(), attempts, llm_calls, now),
            )
            conn.executemany(
                "INSERT OR REPLACE INTO construction_entities VALUES (?, ?, ?)",
                [(e.entity_id, e.model_dump_json(), e.scope) for e in entities],
            )
            conn.executemany(
                "INSERT OR REPLACE INTO construction_property_catalog VALUES (?, ?, ?)",
                [(p.property_id, p.scope, p.model_dump_json()) for p in properties],
            )
            conn.executemany(
                "INSERT INTO construction_decisions (turn_id, kind, mention, decision, chosen, "
                "confidence, via, rationale, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [_decision_row(d, now) for d in decisions],
            )

    def mark_done(self, turn_id: str) -> None:
        self.conn.execute(
            "UPDATE construction_turns SET status = 'done', batch_json = NULL, updated_at = ? "
            "WHERE turn_id = ?",
            (_now(), turn_id),
        )

    def mark_failed(
        self,
        turn_id: str,
        source_key: str,
        error: str,
        raw_output: str | None,
        attempts: int,
        llm_calls: int,
    ) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO construction_turns (turn_id, source_key, status, batch_json, "
            "attempts, llm_calls, error, raw_output, updated_at) "
            "VALUES (?, ?, 'failed', NULL, ?, ?, ?, ?, ?)",
            (turn_id, source_key, attempts, llm_calls, error, raw_output, _now()),
        )

    def failed(self) -> list[FailedTurn]:
        rows = self.conn.execute(
            "SELECT turn_id, source_key, attempts, error, raw_output FROM construction_turns "
            "WHERE status = 'failed' ORDER BY updated_at, turn_id"
        ).fetchall()
        return [
            FailedTurn(turn_id=r[0], source_key=r[1], attempts=r[2], error=r[3], raw_output=r[4])
            for r in rows
        ]

    def counts(self) -> dict[str, int]:
        rows = self.conn.execute(
            "SELECT status, COUNT(*) FROM construction_turns GROUP BY status"
        ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    # ---- resolution state and provenance ----

    def load_catalogs(self, scope: str = DEFAULT_SCOPE) -> tuple[EntityCatalog, PropertyCatalog]:
        """The entities and properties resolution may choose from: ``scope``'s only."""
        entities, properties = EntityCatalog(), PropertyCatalog()
        sql = "SELECT entity_json FROM construction_entities WHERE scope = ?"
        for (text,) in self.conn.execute(sql, (scope,)):
            entities.add(Entity.model_validate_json(text))
        sql = (
            "SELECT property_json FROM construction_property_catalog WHERE scope = ? "
            "ORDER BY rowid"
        )
        for (text,) in self.conn.execute(sql, (scope,)):
            properties.add(Property.model_validate_json(text))
        return entities, properties

    def decisions(self, turn_id: str | None = None) -> list[DecisionRecord]:
        sql = (
            "SELECT turn_id, kind, mention, decision, chosen, confidence, via, rationale "
            "FROM construction_decisions"
        )
        params: tuple[str, ...] = ()
        if turn_id is not None:
            sql += " WHERE turn_id = ?"
            params = (turn_id,)
        keys = ("turn_id", "kind", "mention", "decision", "chosen", "confidence", "via")
        return [
            DecisionRecord(**dict(zip(keys, row[:7], strict=True)), rationale=row[7])
            for row in self.conn.execute(sql + " ORDER BY decision_id", params)
        ]

    # ---- erasure ----

    def forget(self, erasure: Erasure) -> int:
        """Delete every row built from what ``erasure`` erased: the turns' staged batches, raw
        LLM output and decisions, the catalog entries of erased entities and properties, and
        decisions that chose an erased entity. Returns the rows deleted."""
        turns = erasure.erased_ids.get("turn", [])
        entities = erasure.erased_ids.get("entity", [])
        properties = erasure.erased_ids.get("property", [])
        deletes = [
            ("construction_turns", "turn_id", turns),
            ("construction_decisions", "turn_id", turns),
            ("construction_decisions", "chosen", entities),
            ("construction_entities", "entity_id", entities),
            ("construction_property_catalog", "property_id", properties),
        ]
        self.conn.execute("PRAGMA secure_delete = ON")
        deleted = 0
        with self._transaction() as conn:
            for table, column, values in deletes:
                for start in range(0, len(values), 500):
                    chunk = values[start : start + 500]
                    marks = ",".join("?" * len(chunk))
                    # table and column come from the fixed list above
                    sql = f"DELETE FROM {table} WHERE {column} IN ({marks})"
                    deleted += conn.execute(sql, chunk).rowcount
            if erasure.kind == "scope":
                for table in ("construction_entities", "construction_property_catalog"):
                    # the table names are the two fixed ones above
                    sql = f"DELETE FROM {table} WHERE scope = ?"
                    deleted += conn.execute(sql, (erasure.scope,)).rowcount
        return deleted

    def compact(self) -> None:
        """Rewrite the file from its live rows and empty the WAL (no erased byte stays)."""
        self.conn.execute("VACUUM")
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # ---- runs ----

    def save_run(
        self, run_id: str, source: str, started_at: str, stats: dict[str, Any], finished: bool
    ) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO construction_runs VALUES (?, ?, ?, ?, ?)",
            (run_id, source, started_at, _now() if finished else None, json.dumps(stats)),
        )

    def runs(self) -> list[dict[str, Any]]:
        """The saved stats of every run on this file, oldest first (a killed run's as of
        its last finished turn)."""
        # Within one second, rowid: a save replaces the row, so the run saved last is last.
        sql = "SELECT stats_json FROM construction_runs ORDER BY started_at, rowid"
        return [json.loads(row[0]) for row in self.conn.execute(sql)]


def _upgrade(conn: sqlite3.Connection) -> None:
    """Bring a checkpoint file from before scopes to today's tables (its rows: 'default')."""
    entity_columns = {row[1] for row in conn.execute("PRAGMA table_info(construction_entities)")}
    if "scope" not in entity_columns:
        conn.execute(
            "ALTER TABLE construction_entities ADD COLUMN scope TEXT NOT NULL DEFAULT 'default'"
        )
    old = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'construction_properties'"
    ).fetchone()
    if old is not None:
        conn.executescript(
            "BEGIN IMMEDIATE;"
            "INSERT OR IGNORE INTO construction_property_catalog "
            "SELECT json_extract(property_json, '$.property_id'), 'default', property_json "
            "FROM construction_properties;"
            "DROP TABLE construction_properties;"
            "COMMIT;"
        )


def _decision_row(d: DecisionRecord, now: str) -> tuple[Any, ...]:
    return (
        d.turn_id, d.kind, d.mention, d.decision, d.chosen, d.confidence, d.via, d.rationale, now,
    )  # fmt: skip
