"""SQLite connections whose deletes leave no readable copy of the deleted rows in the files.

SQLite only unlinks a deleted row: its bytes stay in the page's free space or on a free page
until reused, where a scan of the file finds them. ``secure_delete`` makes every write that
frees space overwrite it with zeros (some builds default to it, others do not, so it is set
on every connection). In WAL mode the write-ahead log still holds the pages as they were
before the delete until a checkpoint copies it back and truncates it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from apexmem_neo.search.protocol import SearchError


def connect(path: Path | str) -> sqlite3.Connection:
    """A connection (usable from any thread, the callers lock) that zeroes what it frees."""
    db = sqlite3.connect(path, check_same_thread=False)
    db.execute("PRAGMA secure_delete = ON")
    return db


def truncate_wal(db: sqlite3.Connection, where: str) -> None:
    """Checkpoint the write-ahead log into the database and truncate it to zero bytes, so the
    pages from before a delete are gone from it (a no-op for a rollback-journal file).

    Raises ``SearchError`` when another connection's open read keeps the log: the rows are
    deleted, but their old pages stay in the log until that reader finishes; calling the
    erasing method again then completes it.
    """
    busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy:
        raise SearchError(
            f"{where}: the rows are deleted, but another connection is reading the file, so "
            "its write-ahead log still holds their old pages; erase again when it is done"
        )
