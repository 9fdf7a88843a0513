"""The SQLite state store: the store contract (keys as hashes, jobs claimed once, leases that
run out), and a file of an earlier version, whose unfinished jobs kept no messages."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from apexmem_neo.errors import InvalidInputError
from apexmem_neo.server.jobs import STOPPED, JobRunner
from apexmem_neo.server.keys import KeyStore
from apexmem_neo.server.state import ServerStateStore, SqliteServerState, state_path
from tests.unit.server.state_contract import CONTRACT, RawJob, sqlite_raw


def test_state_path_sits_beside_the_store() -> None:
    assert state_path(Path("/d/alice.sqlite")) == Path("/d/alice.server.sqlite")


@pytest.mark.parametrize("check", CONTRACT, ids=lambda check: check.__name__)
def test_the_sqlite_state_keeps_the_contract(
    check: Callable[[ServerStateStore, RawJob], None], tmp_path: Path
) -> None:
    state = SqliteServerState(tmp_path / "s.sqlite").create()
    check(state, sqlite_raw(state))


def test_a_key_must_grant_something_valid(tmp_path: Path) -> None:
    keys = KeyStore(SqliteServerState(tmp_path / "s.sqlite").create())
    with pytest.raises(InvalidInputError):
        keys.create([])
    with pytest.raises(InvalidInputError):
        keys.create(["not a scope"])
    assert keys.create([], admin=True).admin


EARLIER_JOBS = """
CREATE TABLE ingest_jobs (job_id TEXT PRIMARY KEY, scope TEXT NOT NULL, state TEXT NOT NULL,
    turns INTEGER NOT NULL, extract INTEGER NOT NULL, owner TEXT NOT NULL,
    created_at TEXT NOT NULL, finished_at TEXT, error TEXT, summary TEXT);
INSERT INTO ingest_jobs VALUES ('old', 'alice', 'running', 2, 0, 'gone-host:1:x',
    '2025-01-01T00:00:00Z', NULL, NULL, NULL);
INSERT INTO ingest_jobs VALUES ('older', 'alice', 'done', 2, 0, 'gone-host:1:x',
    '2024-01-01T00:00:00Z', '2024-01-01T00:00:01Z', NULL, NULL);
"""


def test_an_earlier_files_unfinished_job_fails_as_stopped(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(EARLIER_JOBS)
    state = SqliteServerState(path).create()
    runner = JobRunner(None, state, poll_s=0.01)  # type: ignore[arg-type]  # adds nothing
    runner.start()
    deadline = time.monotonic() + 10
    while (old := state.get_job("old")) is not None and old.state == "running":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    runner.close()
    assert old is not None and old.state == "failed" and old.error == STOPPED
    assert old.attempts == 1
    assert state.get_job("older").state == "done"  # type: ignore[union-attr]
