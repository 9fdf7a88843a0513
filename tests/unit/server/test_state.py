"""The state file: keys stored as hashes and checked against them; jobs that a dead server
left unfinished are failed by the next one, and a live server's are left alone."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from apexmem_neo import Memory
from apexmem_neo.errors import InvalidInputError
from apexmem_neo.memory.results import AddResult
from apexmem_neo.server.jobs import STOPPED, Job, JobRunner, JobStore
from apexmem_neo.server.keys import KeyStore
from apexmem_neo.server.state import ServerState, state_path


def test_state_path_sits_beside_the_store() -> None:
    assert state_path(Path("/d/alice.sqlite")) == Path("/d/alice.server.sqlite")


def test_keys_authenticate_until_revoked(tmp_path: Path) -> None:
    keys = KeyStore(ServerState(tmp_path / "s.sqlite").create())
    made = keys.create(["b", "a", "a"])
    assert made.scopes == ["a", "b"] and not made.admin
    found = keys.authenticate(made.key)
    assert found is not None and found.key_id == made.key_id
    for wrong in ("", "Bearer", made.key + "x", "amk_" + made.key_id, made.key.upper()):
        assert keys.authenticate(wrong) is None
    revoked = keys.revoke(made.key_id)
    assert revoked is not None and revoked.revoked_at
    assert keys.authenticate(made.key) is None
    assert keys.revoke("nope") is None


def test_a_key_must_grant_something_valid(tmp_path: Path) -> None:
    keys = KeyStore(ServerState(tmp_path / "s.sqlite").create())
    with pytest.raises(InvalidInputError):
        keys.create([])
    with pytest.raises(InvalidInputError):
        keys.create(["not a scope"])
    assert keys.create([], admin=True).admin


def job(job_id: str, state: str = "running") -> Job:
    return Job(job_id=job_id, scope="alice", state=state, turns=1, extract=False,  # type: ignore[arg-type]
               created_at="2026-01-01T00:00:00Z")  # fmt: skip


def test_jobs_of_a_dead_server_fail_and_others_stay(tmp_path: Path) -> None:
    jobs = JobStore(ServerState(tmp_path / "s.sqlite").create())
    host = socket.gethostname()
    me = f"{host}:{os.getpid()}:mine"
    jobs.insert(job("dead"), f"{host}:{2**22 + 12345}:x")  # above Linux's pid_max default
    jobs.insert(job("earlier", "queued"), f"{host}:{os.getpid()}:before")  # my pid, reused
    jobs.insert(job("mine"), me)
    jobs.insert(job("elsewhere"), "another-host:1:x")
    jobs.insert(job("finished", "done"), f"{host}:{2**22 + 12345}:x")
    assert jobs.fail_orphans(me) == 2
    states = {j: jobs.get(j).state for j in ("dead", "earlier", "mine", "elsewhere", "finished")}  # type: ignore[union-attr]
    assert states == {"dead": "failed", "earlier": "failed", "mine": "running",
                      "elsewhere": "running", "finished": "done"}  # fmt: skip
    assert jobs.get("dead").error == STOPPED  # type: ignore[union-attr]


def test_close_fails_the_queued_jobs_and_waits_for_the_running_one(tmp_path: Path) -> None:
    started, release = threading.Event(), threading.Event()

    class Slow:
        def add(self, messages: Any, **kwargs: Any) -> AddResult:
            started.set()
            release.wait(10)
            return AddResult(scope=kwargs["scope"])

    store = JobStore(ServerState(tmp_path / "s.sqlite").create())
    runner = JobRunner(Slow(), store)  # type: ignore[arg-type]
    batch = [(None, [{"role": "user", "content": "hi"}])]
    first = runner.submit("alice", batch, extract=False)
    assert started.wait(10)
    second = runner.submit("alice", batch, extract=False)
    closing = threading.Thread(target=runner.close)
    closing.start()
    release.set()
    closing.join(10)
    assert store.get(first.job_id).state == "done"  # type: ignore[union-attr]
    assert store.get(second.job_id).state == "failed"  # type: ignore[union-attr]
    with pytest.raises(Exception, match="stopping"):
        runner.submit("alice", batch, extract=False)


def test_a_failing_job_keeps_what_it_stored(memory: Memory, tmp_path: Path) -> None:
    store = JobStore(ServerState(tmp_path / "s.sqlite").create())
    runner = JobRunner(memory, store)
    good = (None, [{"role": "user", "name": "Alice", "content": "Hello."}])
    bad = ("other", [{"role": "user", "name": "Alice", "content": "x" * 300_000}])
    made = runner.submit("alice", [good, bad], extract=False)
    deadline = time.monotonic() + 20
    while (done := store.get(made.job_id)) and done.state in ("queued", "running"):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    runner.close()
    assert done is not None and done.state == "failed" and done.summary is not None
    assert "300,000 characters" in (done.error or "")
    assert [t.status for t in done.summary.turns] == ["stored"]
