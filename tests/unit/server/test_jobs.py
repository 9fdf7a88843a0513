"""The job runner on a SQLite memory and state file: a job stores its batches and drops its
messages; a job whose server died is taken up by another and stores each turn once; a server
that stops gives its job back after the batch in flight; a busy server leaves new jobs to a
free one; a failing job keeps what it stored."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from apexmem_neo import Memory
from apexmem_neo.server.jobs import Batch, JobRunner
from apexmem_neo.server.records import Job, JobSummary, JobWork, WorkBatch, utc_now
from apexmem_neo.server.state import SqliteServerState
from tests.unit.server.state_contract import sqlite_raw

SCOPE = "carol"
FAST = {"lease_s": 5.0, "poll_s": 0.02}


def said(session: str, count: int) -> Batch:
    return session, [{"role": "user", "name": "Carol", "content": f"{session} line {i}."}
                     for i in range(count)]  # fmt: skip


def texts(memory: Memory) -> Counter[str]:
    return Counter(turn.text for turn in memory.turns(SCOPE, limit=1000).items)


def finished(state: SqliteServerState, job_id: str) -> Job:
    deadline = time.monotonic() + 20
    while (job := state.get_job(job_id)) is None or job.state in ("queued", "running"):
        assert time.monotonic() < deadline, job
        time.sleep(0.02)
    return job


@pytest.fixture
def state(tmp_path: Path) -> SqliteServerState:
    return SqliteServerState(tmp_path / "m.server.sqlite").create()


class Gated:
    """The memory, with each ``add`` waiting for ``release``: a batch in flight while the
    test acts."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.started = threading.Event()
        self.release = threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.memory, name)

    def add(self, *args: Any, **kwargs: Any) -> Any:
        self.started.set()
        assert self.release.wait(20)
        return self.memory.add(*args, **kwargs)


def test_a_job_stores_its_batches_and_drops_its_messages(
    memory: Memory, state: SqliteServerState
) -> None:
    runner = JobRunner(memory, state, **FAST)
    made = runner.submit(SCOPE, [said("s1", 2), said("s2", 1)], extract=False)
    done = finished(state, made.job_id)
    runner.close()
    assert done.state == "done" and done.attempts == 1 and done.turns == 3
    assert [t.status for t in done.summary.turns] == ["stored"] * 3  # type: ignore[union-attr]
    assert texts(memory) == Counter({"s1 line 0.": 1, "s1 line 1.": 1, "s2 line 0.": 1})
    assert sqlite_raw(state)(made.job_id)["work"] is None


def ghost_stores_first_batch(
    memory: Memory, state: SqliteServerState, extract: bool, batches: list[Batch]
) -> Job:
    """A job that a server took up, numbered and stored the first batch of, and died before
    it recorded that batch as stored."""
    job = Job(job_id="ghost-job", scope=SCOPE, state="queued", turns=3, extract=extract,
              created_at=utc_now())  # fmt: skip
    work = JobWork(batches=[WorkBatch(session=s, messages=m) for s, m in batches])
    state.add_job(job, work)
    assert state.claim_job("ghost", 0.05) is not None
    turns = memory.reserve_turns(work.batches[0].messages or [], scope=SCOPE, session="s1")
    work.batches[0] = WorkBatch(session="s1", turns=turns)
    assert state.save_progress(job.job_id, "ghost", work, JobSummary(), 0.05)
    memory.add(turns, scope=SCOPE, session="s1", extract=False)
    time.sleep(0.1)  # the ghost's lease runs out
    return job


def test_a_job_taken_up_after_its_server_died_stores_each_turn_once(
    memory: Memory, state: SqliteServerState
) -> None:
    job = ghost_stores_first_batch(memory, state, False, [said("s1", 2), said("s2", 1)])
    runner = JobRunner(memory, state, **FAST)
    runner.start()
    done = finished(state, job.job_id)
    runner.close()
    assert done.state == "done" and done.attempts == 2
    assert texts(memory) == Counter({"s1 line 0.": 1, "s1 line 1.": 1, "s2 line 0.": 1})
    assert len(done.summary.turns) == 3  # type: ignore[union-attr]
    assert memory.add("next", scope=SCOPE, session="s1", extract=False).turns[0].status


class NoCalls:
    """A language model that must not be asked: any use fails the test."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the language model was asked ({name})")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the language model was asked")


def test_turns_an_earlier_attempt_extracted_are_not_extracted_again(
    memory: Memory, state: SqliteServerState
) -> None:
    job = ghost_stores_first_batch(memory, state, True, [said("s1", 2)])
    memory.lm = NoCalls()
    runner = JobRunner(memory, state, **FAST)
    runner.start()
    done = finished(state, job.job_id)
    runner.close()
    assert done.state == "done" and done.attempts == 2 and done.summary is not None
    assert [t.status for t in done.summary.turns] == ["skipped", "skipped"]
    assert texts(memory) == Counter({"s1 line 0.": 1, "s1 line 1.": 1})


def test_a_stopping_server_gives_its_job_back_after_the_batch_in_flight(
    memory: Memory, state: SqliteServerState
) -> None:
    gated = Gated(memory)
    first = JobRunner(gated, state, **FAST)  # type: ignore[arg-type]
    made = first.submit(SCOPE, [said("s1", 2), said("s2", 1)], extract=False)
    assert gated.started.wait(10)
    closing = threading.Thread(target=first.close)
    closing.start()
    gated.release.set()
    closing.join(20)
    back = state.get_job(made.job_id)
    assert back is not None and back.state == "queued"
    assert len(back.summary.turns) == 2  # type: ignore[union-attr]
    with pytest.raises(Exception, match="stopping"):
        first.submit(SCOPE, [said("s3", 1)], extract=False)
    second = JobRunner(memory, state, **FAST)
    second.start()
    done = finished(state, made.job_id)
    second.close()
    assert done.state == "done" and done.attempts == 2 and len(done.summary.turns) == 3  # type: ignore[union-attr]
    assert texts(memory) == Counter({"s1 line 0.": 1, "s1 line 1.": 1, "s2 line 0.": 1})


def test_a_busy_server_leaves_a_new_job_to_a_free_one(
    memory: Memory, state: SqliteServerState
) -> None:
    gated = Gated(memory)
    busy = JobRunner(gated, state, **FAST)  # type: ignore[arg-type]
    slow = busy.submit(SCOPE, [said("s1", 1)], extract=False)
    assert gated.started.wait(10)
    quick = busy.submit(SCOPE, [said("s2", 1)], extract=False)
    free = JobRunner(memory, state, **FAST)
    free.start()
    assert finished(state, quick.job_id).state == "done"
    assert state.get_job(slow.job_id).state == "running"  # type: ignore[union-attr]
    gated.release.set()
    assert finished(state, slow.job_id).state == "done"
    busy.close()
    free.close()


def test_a_failing_job_keeps_what_it_stored(memory: Memory, state: SqliteServerState) -> None:
    runner = JobRunner(memory, state, **FAST)
    good = (None, [{"role": "user", "name": "Alice", "content": "Hello."}])
    bad = ("other", [{"role": "user", "name": "Alice", "content": "x" * 300_000}])
    made = runner.submit("alice", [good, bad], extract=False)
    done = finished(state, made.job_id)
    runner.close()
    assert done.state == "failed" and done.summary is not None
    assert "300,000 characters" in (done.error or "")
    assert [t.status for t in done.summary.turns] == ["stored"]
    assert sqlite_raw(state)(made.job_id)["work"] is None
