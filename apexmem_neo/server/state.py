"""The REST server's own state: API keys and ingest jobs, in one SQLite file beside the memory
store (``<store>.server.sqlite``), so a restarted server still knows its keys and its jobs.

The file holds no conversation text: keys are stored as hashes and jobs as counts, turn ids
and error lines, so ``forget`` leaves nothing of an erased session here. Every call opens its
own connection (the server's worker threads share no connection), and ``create()`` makes the
tables; the constructor does no I/O.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

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
BUSY_TIMEOUT_S: Final = 10.0
"""How long a write waits for another process's write on the same file."""


def state_path(store_file: Path) -> Path:
    """The state file that belongs to a memory file: ``alice.sqlite`` ->
    ``alice.server.sqlite`` (for Neo4j, the checkpoint file stands for the store)."""
    return store_file.with_name(f"{store_file.stem}.server.sqlite")


class ServerState:
    """The state file at ``path``; ``create()`` makes it (and its folder) if missing."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def create(self) -> ServerState:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.connect() as db:
            db.executescript(SCHEMA)
        return self

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """A connection for one unit of work, committed on success and always closed."""
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S)
        db.row_factory = sqlite3.Row
        try:
            with db:
                yield db
        finally:
            db.close()
