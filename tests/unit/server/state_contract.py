"""What every ``ServerStateStore`` must do, as functions of a fresh store (and a reader of a
job's stored fields, to see what a finished job keeps): the SQLite unit tests and the Neo4j
integration tests run the same checks.

Servers are plain owner strings here; leases are short, so a lease that runs out is waited
for in a fraction of a second.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from apexmem_neo.server.keys import KeyStore
from apexmem_neo.server.records import Job, JobSummary, JobWork, TurnOutcome, WorkBatch
from apexmem_neo.server.state import ServerStateStore, SqliteServerState

RawJob = Callable[[str], dict[str, Any]]
"""The fields a store holds for a job, by id."""
LONG = 30.0
SHORT = 0.2


def sqlite_raw(state: SqliteServerState) -> RawJob:
    """The row of a job in a SQLite state file."""

    def raw(job_id: str) -> dict[str, Any]:
        with state.connect() as db:
            row = db.execute("SELECT * FROM ingest_jobs WHERE job_id = ?", (job_id,)).fetchone()
        return dict(row)

    return raw


def new_job(created_at: str = "2026-01-01T00:00:00Z") -> tuple[Job, JobWork]:
    job = Job(job_id=uuid.uuid4().hex, scope="alice", state="queued", turns=1, extract=False,
              created_at=created_at)  # fmt: skip
    work = JobWork(batches=[WorkBatch(session="s", messages=[{"role": "user", "content": "hi"}])])
    return job, work


def keys_authenticate_until_revoked(state: ServerStateStore, raw: RawJob) -> None:
    keys = KeyStore(state)
    made = keys.create(["b", "a", "a"])
    later = keys.create([], admin=True)
    assert made.scopes == ["a", "b"] and not made.admin
    found = keys.authenticate(made.key)
    assert found is not None and found.key_id == made.key_id
    for wrong in ("", "Bearer", made.key + "x", "amk_" + made.key_id, made.key.upper()):
        assert keys.authenticate(wrong) is None
    mine = [k.key_id for k in keys.list() if k.key_id in (made.key_id, later.key_id)]
    assert mine == [made.key_id, later.key_id]
    revoked = keys.revoke(made.key_id)
    assert revoked is not None and revoked.revoked_at
    assert keys.authenticate(made.key) is None
    again = state.revoke_key(made.key_id, "2099-01-01T00:00:00Z")
    assert again is not None and again.revoked_at == revoked.revoked_at
    assert keys.revoke("nope") is None and state.get_key("nope") is None
    assert all("key" not in k.model_dump() for k in keys.list())


def a_job_runs_once_and_ends_without_its_messages(state: ServerStateStore, raw: RawJob) -> None:
    job, work = new_job()
    state.add_job(job, work)
    assert state.get_job(job.job_id) == job
    claim = state.claim_job("a", LONG, job.job_id)
    assert claim is not None and claim.work == work
    assert claim.job.state == "running" and claim.job.attempts == 1
    assert state.claim_job("b", LONG, job.job_id) is None  # a holds it
    assert not state.renew_lease(job.job_id, "b", LONG) and state.renew_lease(job.job_id, "a", LONG)
    summary = JobSummary(turns=[TurnOutcome(turn_id="t1", status="stored")], indexed=1)
    assert state.save_progress(job.job_id, "a", work.model_copy(update={"done": 1}), summary, LONG)
    assert state.get_job(job.job_id).summary == summary  # type: ignore[union-attr]
    assert state.finish_job(job.job_id, "a", "done", summary=summary)
    ended = state.get_job(job.job_id)
    assert ended is not None and ended.state == "done" and ended.finished_at
    assert not raw(job.job_id).get("work")  # no message text stays
    assert state.claim_job("b", LONG, job.job_id) is None
    assert not state.finish_job(job.job_id, "a", "failed", "late")
    assert state.get_job("nope") is None


def a_job_whose_lease_ran_out_is_taken_up(state: ServerStateStore, raw: RawJob) -> None:
    job, work = new_job()
    state.add_job(job, work)
    assert state.claim_job("a", SHORT, job.job_id) is not None
    time.sleep(SHORT * 2)
    taken = state.claim_job("b", LONG, job.job_id)
    assert taken is not None and taken.job.attempts == 2
    summary = JobSummary()
    assert not state.save_progress(job.job_id, "a", work, summary, LONG)  # a lost it
    assert not state.renew_lease(job.job_id, "a", LONG)
    assert not state.finish_job(job.job_id, "a", "done")
    assert state.finish_job(job.job_id, "b", "failed", "why", summary)
    ended = state.get_job(job.job_id)
    assert ended is not None and ended.state == "failed" and ended.error == "why"


def a_held_job_waits_for_its_server(state: ServerStateStore, raw: RawJob) -> None:
    job, work = new_job()
    state.add_job(job, work, "a", LONG)
    held = state.get_job(job.job_id)
    assert held is not None and held.state == "queued"
    assert state.claim_job("b", LONG, job.job_id) is None
    claim = state.claim_job("a", LONG, job.job_id)
    assert claim is not None and claim.job.attempts == 1
    assert state.release_job(job.job_id, "a")  # a stops: the job goes back
    back = state.get_job(job.job_id)
    assert back is not None and back.state == "queued"
    assert not state.release_job(job.job_id, "a")
    again = state.claim_job("b", LONG, job.job_id)
    assert again is not None and again.job.attempts == 2 and again.work == work


def the_oldest_free_job_is_taken_first(state: ServerStateStore, raw: RawJob) -> None:
    newer, work = new_job("2026-01-02T00:00:00Z")
    older, _ = new_job("2026-01-01T00:00:00Z")
    held, _ = new_job("2025-01-01T00:00:00Z")
    for job in (newer, older):
        state.add_job(job, work)
    state.add_job(held, work, "c", LONG)
    first = state.claim_job("a", LONG)
    second = state.claim_job("b", LONG)
    assert first is not None and first.job.job_id == older.job_id
    assert second is not None and second.job.job_id == newer.job_id
    assert state.claim_job("b", LONG) is None  # held for c


def a_server_without_a_model_leaves_extraction_jobs(state: ServerStateStore, raw: RawJob) -> None:
    job, work = new_job()
    extracting = job.model_copy(update={"extract": True})
    state.add_job(extracting, work)
    assert state.claim_job("plain", LONG, extract=False) is None
    assert state.claim_job("plain", LONG, extracting.job_id, extract=False) is None
    claim = state.claim_job("model", LONG)
    assert claim is not None and claim.job.job_id == extracting.job_id and claim.job.extract


def one_of_many_claimers_gets_a_job(state: ServerStateStore, raw: RawJob) -> None:
    job, work = new_job()
    state.add_job(job, work)
    start = threading.Barrier(6)
    won: list[str] = []

    def claim(owner: str) -> None:
        start.wait()
        if state.claim_job(owner, LONG, job.job_id) is not None:
            won.append(owner)

    threads = [threading.Thread(target=claim, args=(f"s{i}",)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(won) == 1
    assert state.get_job(job.job_id).attempts == 1  # type: ignore[union-attr]


CONTRACT = (
    keys_authenticate_until_revoked,
    a_job_runs_once_and_ends_without_its_messages,
    a_job_whose_lease_ran_out_is_taken_up,
    a_held_job_waits_for_its_server,
    the_oldest_free_job_is_taken_first,
    a_server_without_a_model_leaves_extraction_jobs,
    one_of_many_claimers_gets_a_job,
)
