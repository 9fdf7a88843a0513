"""What the REST server keeps about itself, as data: API keys (their hashes), ingest jobs and a
job's pending work. Pydantic models and the mapping from a stored row, no I/O; the state
stores (``server.state``, ``server.state_neo4j``) persist them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel

from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.memory.results import AddResult

JobState = Literal["queued", "running", "done", "failed"]


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class ApiKey(BaseModel):
    """A key as listed: never its secret."""

    key_id: str
    scopes: list[str]
    admin: bool
    created_at: str
    revoked_at: str | None = None


class StoredKey(ApiKey):
    """A key as the state store holds it: with the SHA-256 of the whole key."""

    key_hash: str


class TurnOutcome(BaseModel):
    """What became of one turn: stored / done / skipped (already stored) / failed."""

    turn_id: str
    status: str
    error: str | None = None


class JobSummary(BaseModel):
    """What a job stored so far: each turn's outcome and the totals of ``Memory.add``."""

    turns: list[TurnOutcome] = []
    facts: int = 0
    llm_calls: int = 0
    tokens: int = 0
    indexed: int = 0
    seconds: float = 0.0


def summarize(results: Sequence[AddResult], start: JobSummary | None = None) -> JobSummary:
    """``start`` (what earlier batches stored) plus the totals of ``results`` (turn ids and
    states, no text)."""
    base = start or JobSummary()
    return JobSummary(
        turns=base.turns
        + [
            TurnOutcome(turn_id=t.turn_id, status=t.status, error=t.error)
            for r in results
            for t in r.turns
        ],
        facts=base.facts + sum(len(r.facts) for r in results),
        llm_calls=base.llm_calls + sum(r.llm_calls for r in results),
        tokens=base.tokens + sum(r.tokens for r in results),
        indexed=base.indexed + sum(r.indexed for r in results),
        seconds=round(base.seconds + sum(r.seconds for r in results), 3),
    )


class Job(BaseModel):
    """An ingest job's status; ``summary`` once it has stored anything. ``attempts`` counts
    the times a server took it up (more than one: a server stopped or died while it ran)."""

    job_id: str
    scope: str
    state: JobState
    turns: int
    extract: bool
    created_at: str
    finished_at: str | None = None
    error: str | None = None
    summary: JobSummary | None = None
    attempts: int = 0


class WorkBatch(BaseModel):
    """One ``Memory.add`` of a job: a session's messages as sent, then, once its turn numbers
    are reserved, the numbered turns instead (so a re-run stores the same turns)."""

    session: str | None
    messages: list[dict[str, Any]] | None = None
    turns: list[TurnInput] | None = None


class JobWork(BaseModel):
    """A job's input while it is unfinished, and how many of its batches are stored."""

    batches: list[WorkBatch]
    done: int = 0


class Claim(BaseModel):
    """A job a server has just taken up, with its work (None: a job of an earlier version,
    whose input was never stored)."""

    job: Job
    work: JobWork | None


def job_from(row: Mapping[str, Any]) -> Job:
    """A job from a stored row (SQLite) or node (Neo4j): the same names in both."""
    summary = row.get("summary")
    return Job(
        job_id=row["job_id"],
        scope=row["scope"],
        state=row["state"],
        turns=row["turns"],
        extract=bool(row["extract"]),
        created_at=row["created_at"],
        finished_at=row.get("finished_at"),
        error=row.get("error"),
        summary=JobSummary.model_validate(json.loads(summary)) if summary else None,
        attempts=row.get("attempts") or 0,
    )


def claim_from(row: Mapping[str, Any]) -> Claim:
    work = row.get("work")
    return Claim(job=job_from(row), work=JobWork.model_validate_json(work) if work else None)
