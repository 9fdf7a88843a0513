"""Ingest jobs of the REST server, as the MCP server runs them (one background thread, in
order, one at a time) but with their state in the server's state file: a job's status
outlives the process that ran it, and any server on the same file answers for it.

The turns themselves wait in memory until the job runs, so the state file never holds
conversation text. A job that was queued or running when its server died is found by the
next server (``recover``) and marked failed, since its turns are gone with that process.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import secrets
import socket
import sqlite3
import threading
import uuid
from collections.abc import Sequence
from typing import Any, Final, Literal

from pydantic import BaseModel

from apexmem_neo.errors import ApexMemError
from apexmem_neo.memory.core import Memory
from apexmem_neo.memory.results import AddResult
from apexmem_neo.server.keys import utc_now
from apexmem_neo.server.state import ServerState

logger = logging.getLogger(__name__)

JobState = Literal["queued", "running", "done", "failed"]
Batch = tuple[str | None, list[dict[str, Any]]]
"""A session name (None: the default) and its chat messages, as ``Memory.add`` takes them."""
STOPPED: Final = "the server stopped before the job finished; send its turns again"


class TurnOutcome(BaseModel):
    """What became of one turn: stored / done / skipped (already stored) / failed."""

    turn_id: str
    status: str
    error: str | None = None


class JobSummary(BaseModel):
    """What a finished job stored: each turn's outcome and the totals of ``Memory.add``."""

    turns: list[TurnOutcome]
    facts: int
    llm_calls: int
    tokens: int
    indexed: int
    seconds: float


class Job(BaseModel):
    """An ingest job's status; ``summary`` once it has stored anything."""

    job_id: str
    scope: str
    state: JobState
    turns: int
    extract: bool
    created_at: str
    finished_at: str | None = None
    error: str | None = None
    summary: JobSummary | None = None


def summarize(results: Sequence[AddResult]) -> JobSummary:
    """The totals of a job's ``Memory.add`` results (turn ids and states, no text)."""
    return JobSummary(
        turns=[
            TurnOutcome(turn_id=t.turn_id, status=t.status, error=t.error)
            for r in results
            for t in r.turns
        ],
        facts=sum(len(r.facts) for r in results),
        llm_calls=sum(r.llm_calls for r in results),
        tokens=sum(r.tokens for r in results),
        indexed=sum(r.indexed for r in results),
        seconds=round(sum(r.seconds for r in results), 3),
    )


def process_owner() -> str:
    """This process as a job owner: host, pid and a token that tells it from an earlier
    process that had the same pid."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def _owner_alive(owner: str, me: str) -> bool:
    """Whether the process ``owner`` names may still run (one on another host may)."""
    host, pid, _ = owner.split(":", 2)
    if owner == me or host != socket.gethostname():
        return True
    if int(pid) == os.getpid():
        return False  # this pid, another token: an earlier process
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class JobStore:
    """The ingest_jobs table of a ``ServerState`` file."""

    def __init__(self, state: ServerState) -> None:
        self._state = state

    def insert(self, job: Job, owner: str) -> None:
        with self._state.connect() as db:
            db.execute(
                "INSERT INTO ingest_jobs (job_id, scope, state, turns, extract, owner, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (job.job_id, job.scope, job.state, job.turns, int(job.extract), owner,
                 job.created_at),
            )  # fmt: skip

    def update(
        self,
        job_id: str,
        state: JobState,
        error: str | None = None,
        summary: JobSummary | None = None,
    ) -> None:
        finished = utc_now() if state in ("done", "failed") else None
        dumped = summary.model_dump_json() if summary is not None else None
        with self._state.connect() as db:
            db.execute(
                "UPDATE ingest_jobs SET state = ?, error = ?, summary = ?, finished_at = ? "
                "WHERE job_id = ?",
                (state, error, dumped, finished, job_id),
            )

    def get(self, job_id: str) -> Job | None:
        with self._state.connect() as db:
            row = db.execute("SELECT * FROM ingest_jobs WHERE job_id = ?", (job_id,)).fetchone()
        return None if row is None else _job(row)

    def fail_orphans(self, me: str) -> int:
        """Mark failed the unfinished jobs whose process is gone; returns how many."""
        with self._state.connect() as db:
            rows = db.execute(
                "SELECT job_id, owner FROM ingest_jobs WHERE state IN ('queued', 'running')"
            ).fetchall()
        orphans = [row["job_id"] for row in rows if not _owner_alive(row["owner"], me)]
        for job_id in orphans:
            self.update(job_id, "failed", STOPPED)
        return len(orphans)


def _job(row: sqlite3.Row) -> Job:
    summary = row["summary"]
    return Job(
        job_id=row["job_id"],
        scope=row["scope"],
        state=row["state"],
        turns=row["turns"],
        extract=bool(row["extract"]),
        created_at=row["created_at"],
        finished_at=row["finished_at"],
        error=row["error"],
        summary=JobSummary.model_validate(json.loads(summary)) if summary else None,
    )


class JobRunner:
    """Runs the jobs this server takes, in order, on one background thread started by the
    first job (``Memory.add`` takes the memory's write lock and indexes what it stored)."""

    def __init__(self, memory: Memory, store: JobStore, owner: str | None = None) -> None:
        self._memory = memory
        self.store = store
        self._owner = owner or process_owner()
        self._batches: dict[str, list[Batch]] = {}
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    def recover(self) -> int:
        """Fail the jobs an earlier server left unfinished (their turns died with it)."""
        return self.store.fail_orphans(self._owner)

    def submit(self, scope: str, batches: list[Batch], extract: bool) -> Job:
        turns = sum(len(messages) for _, messages in batches)
        job = Job(job_id=uuid.uuid4().hex, scope=scope, state="queued", turns=turns,
                  extract=extract, created_at=utc_now())  # fmt: skip
        with self._lock:
            if self._closed:
                raise ApexMemError("the server is stopping and takes no more ingest jobs")
            self.store.insert(job, self._owner)
            self._batches[job.job_id] = batches
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._work, name="apexmem-rest-ingest", daemon=True
                )
                self._thread.start()
        self._queue.put(job.job_id)
        return job

    def close(self) -> None:
        """Take no more jobs, fail the queued ones and wait for the running one to finish
        (so the memory is not closed under a write)."""
        with self._lock:
            self._closed = True
            thread = self._thread
            for job_id in list(self._batches):
                self._batches.pop(job_id)
                self.store.update(job_id, "failed", STOPPED)
        self._queue.put(None)
        if thread is not None:
            thread.join()

    def _work(self) -> None:
        while (job_id := self._queue.get()) is not None:
            with self._lock:
                batches = self._batches.pop(job_id, None)
                if batches is None:  # failed by close() while it waited
                    continue
                self.store.update(job_id, "running")
            job = self.store.get(job_id)
            if job is not None:
                self._run(job, batches)

    def _run(self, job: Job, batches: list[Batch]) -> None:
        results: list[AddResult] = []
        try:
            for session, messages in batches:
                results.append(
                    self._memory.add(
                        messages, scope=job.scope, session=session, extract=job.extract
                    )
                )
        except Exception as exc:  # the job fails; the server and the next jobs go on
            logger.warning("ingest job %s failed: %s", job.job_id, exc)
            error = " ".join(str(exc).split()) or type(exc).__name__
            self.store.update(job.job_id, "failed", error, summarize(results))
            return
        self.store.update(job.job_id, "done", summary=summarize(results))
