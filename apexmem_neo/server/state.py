"""The REST server's own state: API keys and ingest jobs, behind one protocol
(``ServerStateStore``) with two stores. Every server that shares a state store shares its
keys and its jobs, so a job one server took is finished by another when the first dies.

- ``SqliteServerState``: a SQLite file beside the memory store (``<store>.server.sqlite``),
  for the servers of one machine;
- ``Neo4jServerState`` (``server.state_neo4j``): nodes in the memory's own Neo4j database,
  for servers on any number of machines.

Keys are stored as hashes. A job holds its messages until it ends, so another server can run
it; then only its counts, turn ids and error lines stay, and ``forget`` leaves nothing of an
erased session here. A server holds the job it runs under a lease that it renews; a job whose
lease ran out is taken up again by the next server that polls (``claim_job``, one atomic
update). Constructors do no I/O; ``create()`` makes the tables or constraints.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final, Protocol

from apexmem_neo.server.records import (
    Claim,
    Job,
    JobState,
    JobSummary,
    JobWork,
    StoredKey,
    claim_from,
    job_from,
    utc_now,
)

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS api_keys (
    key_id TEXT PRIMARY KEY,
    key_hash TEXT NOT NULL,
    scopes TEXT NOT NULL,
    admin INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
CREATE TABLE IF NOT EXISTS ingest_jobs (
    job_id TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    state TEXT NOT NULL,
    turns INTEGER NOT NULL,
    extract INTEGER NOT NULL,
    owner TEXT NOT NULL,
    created_at TEXT NOT NULL,
    finished_at TEXT,
    error TEXT,
    summary TEXT
);
CREATE INDEX IF NOT EXISTS ingest_jobs_state ON ingest_jobs (state);
"""
JOB_COLUMNS_ADDED: Final = (
    ("work", "TEXT"),
    ("lease_until", "REAL"),
    ("attempts", "INTEGER NOT NULL DEFAULT 0"),
)
"""Columns that files of earlier versions lack; ``create()`` adds them."""
NO_OWNER: Final = ""
"""The owner column of a job no server holds (the column is NOT NULL in earlier files)."""
BUSY_TIMEOUT_S: Final = 10.0
"""How long a write waits for another process's write on the same file."""
HELD_FIELDS: Final = frozenset({"state", "owner", "error", "summary", "work", "finished_at"})
"""The fields a server changes on a job it holds (``_update_held``)."""


class ServerStateStore(Protocol):
    """Keys and jobs of the servers that share this store. A store implements the methods
    declared here and ``_update_held``, one conditional update, over which the changes a
    server makes to a job it holds are written: each only while the server still holds the
    job (True), never to another server's job (False: its lease ran out and another took it
    up)."""

    def create(self) -> ServerStateStore: ...

    def add_key(self, key: StoredKey) -> None: ...

    def get_key(self, key_id: str) -> StoredKey | None: ...

    def list_keys(self) -> list[StoredKey]: ...

    def revoke_key(self, key_id: str, at: str) -> StoredKey | None: ...

    def add_job(
        self, job: Job, work: JobWork, owner: str | None = None, lease_s: float = 0.0
    ) -> None: ...

    def get_job(self, job_id: str) -> Job | None: ...

    def claim_job(
        self, owner: str, lease_s: float, job_id: str | None = None, extract: bool = True
    ) -> Claim | None: ...

    def _update_held(
        self, job_id: str, owner: str, values: dict[str, str | None], lease_s: float | None
    ) -> bool: ...

    def renew_lease(self, job_id: str, owner: str, lease_s: float) -> bool:
        """Hold the job ``lease_s`` seconds more."""
        return self._update_held(job_id, owner, {}, lease_s)

    def save_progress(
        self, job_id: str, owner: str, work: JobWork, summary: JobSummary, lease_s: float
    ) -> bool:
        """Record the job's work (numbered turns, batches done) and what it stored so far."""
        values: dict[str, str | None] = {
            "work": work.model_dump_json(),
            "summary": summary.model_dump_json(),
        }
        return self._update_held(job_id, owner, values, lease_s)

    def finish_job(
        self,
        job_id: str,
        owner: str,
        state: JobState,
        error: str | None = None,
        summary: JobSummary | None = None,
    ) -> bool:
        """End the job as ``state`` (done or failed) and drop its messages."""
        values = {
            "state": state,
            "error": error,
            "summary": summary.model_dump_json() if summary is not None else None,
            "finished_at": utc_now(),
            "work": None,
        }
        return self._update_held(job_id, owner, values, None)

    def release_job(self, job_id: str, owner: str) -> bool:
        """Give the job back, unfinished, for any server to take up (a server stopping)."""
        return self._update_held(job_id, owner, {"state": "queued", "owner": None}, None)


def state_path(store_file: Path) -> Path:
    """The state file that belongs to a memory file: ``alice.sqlite`` ->
    ``alice.server.sqlite`` (for Neo4j, the checkpoint file stands for the store)."""
    return store_file.with_name(f"{store_file.stem}.server.sqlite")


class SqliteServerState(ServerStateStore):
    """The state file at ``path``; ``create()`` makes it (and its folder) if missing and adds
    the columns an earlier version's file lacks. Every call opens its own connection (the
    server's threads share none); writes take the file's write lock first."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def create(self) -> SqliteServerState:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.connect() as db:
            db.executescript(SCHEMA)
            have = {row["name"] for row in db.execute("PRAGMA table_info(ingest_jobs)")}
            for name, kind in JOB_COLUMNS_ADDED:
                if name not in have:
                    db.execute(f"ALTER TABLE ingest_jobs ADD COLUMN {name} {kind}")
        return self

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A connection for one unit of work, committed on success and always closed."""
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level="IMMEDIATE")
        db.row_factory = sqlite3.Row
        try:
            with db:
                yield db
        finally:
            db.close()

    # ---- keys ----

    def add_key(self, key: StoredKey) -> None:
        with self.connect() as db:
            db.execute(
                "INSERT INTO api_keys (key_id, key_hash, scopes, admin, created_at, revoked_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (key.key_id, key.key_hash, json.dumps(key.scopes), int(key.admin),
                 key.created_at, key.revoked_at),
            )  # fmt: skip

    def get_key(self, key_id: str) -> StoredKey | None:
        with self.connect() as db:
            row = db.execute("SELECT * FROM api_keys WHERE key_id = ?", (key_id,)).fetchone()
        return None if row is None else _key(row)

    def list_keys(self) -> list[StoredKey]:
        """Every key, revoked ones included, in the order they were made."""
        with self.connect() as db:
            rows = db.execute("SELECT * FROM api_keys ORDER BY rowid").fetchall()
        return [_key(row) for row in rows]

    def revoke_key(self, key_id: str, at: str) -> StoredKey | None:
        """Revoke ``key_id`` (a revoked key keeps its first revocation time); None if no
        such key."""
        with self.connect() as db:
            db.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL",
                (at, key_id),
            )
            row = db.execute("SELECT * FROM api_keys WHERE key_id = ?", (key_id,)).fetchone()
        return None if row is None else _key(row)

    # ---- jobs ----

    def add_job(
        self, job: Job, work: JobWork, owner: str | None = None, lease_s: float = 0.0
    ) -> None:
        """Queue ``job`` with its work; with ``owner``, held for that server for ``lease_s``
        (the server that accepted it, when it is free to start it at once)."""
        lease = time.time() + lease_s if owner else None
        with self.connect() as db:
            db.execute(
                "INSERT INTO ingest_jobs (job_id, scope, state, turns, extract, owner, "
                "created_at, work, lease_until, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
                (job.job_id, job.scope, job.state, job.turns, int(job.extract),
                 owner or NO_OWNER, job.created_at, work.model_dump_json(), lease),
            )  # fmt: skip

    def get_job(self, job_id: str) -> Job | None:
        with self.connect() as db:
            row = db.execute("SELECT * FROM ingest_jobs WHERE job_id = ?", (job_id,)).fetchone()
        return None if row is None else job_from(dict(row))

    def claim_job(
        self, owner: str, lease_s: float, job_id: str | None = None, extract: bool = True
    ) -> Claim | None:
        """Take up the oldest job no live server holds (``job_id``: that one only): queued,
        held for ``owner``, or running under a lease that ran out; with ``extract`` False
        only a job without extraction (a server without a language model). One UPDATE under
        the file's write lock, so two servers never take the same job."""
        now = time.time()
        with self.connect() as db:
            row = db.execute(
                "UPDATE ingest_jobs SET state = 'running', owner = ?, lease_until = ?, "
                "attempts = attempts + 1 WHERE job_id = (SELECT job_id FROM ingest_jobs "
                "WHERE state IN ('queued', 'running') AND (? IS NULL OR job_id = ?) "
                "AND (lease_until IS NULL OR lease_until < ? OR (state = 'queued' AND owner = ?)) "
                "AND (? OR extract = 0) ORDER BY created_at, rowid LIMIT 1) RETURNING *",
                (owner, now + lease_s, job_id, job_id, now, owner, int(extract)),
            ).fetchone()
        return None if row is None else claim_from(dict(row))

    def _update_held(
        self, job_id: str, owner: str, values: dict[str, str | None], lease_s: float | None
    ) -> bool:
        if not values.keys() <= HELD_FIELDS:
            raise ValueError(f"not a job field a server changes: {sorted(values)}")
        if "owner" in values and values["owner"] is None:
            values = {**values, "owner": NO_OWNER}
        lease = None if lease_s is None else time.time() + lease_s
        # the column names come from HELD_FIELDS, never from input
        sets = "".join(f"{name} = ?, " for name in values)
        with self.connect() as db:
            changed = db.execute(
                f"UPDATE ingest_jobs SET {sets}lease_until = ? "
                "WHERE job_id = ? AND owner = ? AND state = 'running'",
                (*values.values(), lease, job_id, owner),
            ).rowcount
        return changed == 1


def _key(row: sqlite3.Row) -> StoredKey:
    return StoredKey.model_validate({**dict(row), "scopes": json.loads(row["scopes"])})
