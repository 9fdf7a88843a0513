"""Ingest jobs of the REST server. A job is stored with its messages in the server state
store (``ServerStateStore``), and every server that shares the store runs the jobs it can
take up, one at a time on one background thread, through ``Memory.add``.

A server that accepts a job while it is free holds the job for itself and starts it at once;
a busy server leaves it to the first free one that polls. The server running a job renews its
lease while it runs and records each batch it stored, so when that server dies, the next one
to find the lease run out takes the job up where it stopped. A batch's turns are numbered
(``Memory.reserve_turns``) and saved before they are stored, so a batch run twice stores the
same turns, once; with extraction, the turns an earlier attempt stored are skipped rather
than extracted again. A job that ends drops its messages. A server that stops finishes the
batch it is storing and gives the job back for another server (or its own next start).
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import uuid
from typing import Any, Final

from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.errors import ApexMemError, UnknownSessionError
from apexmem_neo.memory.core import Memory
from apexmem_neo.memory.messages import DEFAULT_SESSION
from apexmem_neo.memory.results import AddedTurn, AddResult
from apexmem_neo.server.records import (
    Claim,
    Job,
    JobState,
    JobSummary,
    JobWork,
    WorkBatch,
    summarize,
    utc_now,
)
from apexmem_neo.server.state import ServerStateStore
from apexmem_neo.store.protocol import MAX_PAGE_LIMIT

logger = logging.getLogger(__name__)

Batch = tuple[str | None, list[dict[str, Any]]]
"""A session name (None: the default) and its chat messages, as ``Memory.add`` takes them."""
LEASE_S: Final = 30.0
"""How long a job stays held by its server without a renewal: a dead server's job is taken
up by another this long (plus a poll) after its last renewal. Renewed every third of it."""
POLL_S: Final = 1.0
"""How often a free server looks for a job to take up."""
STOPPED: Final = (
    "the server that accepted this job stopped before it finished and kept no copy of its "
    "turns (an earlier version); send its turns again"
)


class LeaseLostError(ApexMemError):
    """Another server took the job over: this one's lease ran out while it ran."""


def process_owner() -> str:
    """This process as a job owner: host, pid and a token that tells it from an earlier
    process that had the same pid."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


class JobRunner:
    """Runs the jobs this server takes up, in order, on one background thread, with a second
    one renewing the lease of the job it runs; ``start()`` starts both (the app does, and so
    does the first job accepted)."""

    def __init__(
        self,
        memory: Memory,
        state: ServerStateStore,
        *,
        owner: str | None = None,
        lease_s: float = LEASE_S,
        poll_s: float = POLL_S,
    ) -> None:
        self._memory = memory
        self.state = state
        self.owner = owner or process_owner()
        self.lease_s = lease_s
        self.poll_s = poll_s
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._held: str | None = None
        """A job accepted here and held for this server, not started yet."""
        self._current: str | None = None
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        """Start the worker and the lease keeper, once."""
        with self._lock:
            if self._threads or self._stop.is_set():
                return
            self._threads = [
                threading.Thread(target=self._work, name="apexmem-rest-ingest", daemon=True),
                threading.Thread(target=self._keep_lease, name="apexmem-rest-lease", daemon=True),
            ]
            for thread in self._threads:
                thread.start()

    def get(self, job_id: str) -> Job | None:
        """A job of any server sharing the state store."""
        return self.state.get_job(job_id)

    def submit(self, scope: str, batches: list[Batch], extract: bool) -> Job:
        """Store a job for ``batches`` (held for this server when it is free) and wake the
        worker."""
        turns = sum(len(messages) for _, messages in batches)
        job = Job(job_id=uuid.uuid4().hex, scope=scope, state="queued", turns=turns,
                  extract=extract, created_at=utc_now())  # fmt: skip
        work = JobWork(batches=[WorkBatch(session=s, messages=m) for s, m in batches])
        with self._lock:
            if self._stop.is_set():
                raise ApexMemError("the server is stopping and takes no more ingest jobs")
            free = self._current is None and self._held is None
            self.state.add_job(job, work, self.owner if free else None, self.lease_s)
            if free:
                self._held = job.job_id
        self.start()
        self._wake.set()
        return job

    def close(self) -> None:
        """Take no more jobs and stop once the batch being stored is (the job goes back to
        the state store, unfinished, for another server to take up)."""
        with self._lock:
            self._stop.set()
            threads = list(self._threads)
        self._wake.set()
        for thread in threads:
            thread.join()

    # ---- the worker ----

    def _work(self) -> None:
        while True:
            try:
                claim = self._next()
            except Exception as exc:  # the state store is down: try again at the next poll
                logger.warning("could not look for ingest jobs: %s", _one_line(exc))
                claim = None
            if claim is not None:
                self._run(claim)
                continue
            if self._stop.is_set():
                return
            self._wake.wait(self.poll_s)
            self._wake.clear()

    def _next(self) -> Claim | None:
        """The job this server holds, else (unless stopping) any job no live server holds;
        without a language model, only a job without extraction."""
        with self._lock:
            held, self._held = self._held, None
        extract = getattr(self._memory, "lm", None) is not None
        claim = None
        if held is not None:
            claim = self.state.claim_job(self.owner, self.lease_s, held, extract)
        if claim is None and not self._stop.is_set():
            claim = self.state.claim_job(self.owner, self.lease_s, extract=extract)
        if claim is not None:
            with self._lock:
                self._current = claim.job.job_id
        return claim

    def _keep_lease(self) -> None:
        """Renew the running job's lease every third of it, until the worker has stopped."""
        worker = self._threads[0]
        while worker.is_alive():
            worker.join(self.lease_s / 3)
            job_id = self._current
            if job_id is None or not worker.is_alive():
                continue
            try:
                held = self.state.renew_lease(job_id, self.owner, self.lease_s)
                if not held and self._current == job_id:  # not just ended
                    logger.warning("ingest job %s: another server took it over", job_id)
            except Exception as exc:  # the next renewal tries again
                logger.warning("ingest job %s: lease not renewed: %s", job_id, _one_line(exc))

    def _run(self, claim: Claim) -> None:
        job = claim.job
        try:
            if claim.work is None:
                self._finish(job, "failed", STOPPED, job.summary)
            else:
                self._steps(job, claim.work)
        except LeaseLostError:
            logger.warning("ingest job %s: another server took it over", job.job_id)
        except Exception as exc:  # the state store failed: the lease runs out, a server retries
            logger.warning("ingest job %s stopped: %s", job.job_id, _one_line(exc))
        finally:
            with self._lock:
                self._current = None

    def _steps(self, job: Job, work: JobWork) -> None:
        """Store the batches not stored yet, recording each, then end the job; a batch that
        fails ends it as failed, with what the batches before it stored."""
        summary = job.summary or JobSummary()
        first = work.done
        for index in range(first, len(work.batches)):
            if self._stop.is_set():
                self._hold(self.state.release_job(job.job_id, self.owner))
                return
            try:
                work = self._numbered(job, work, index, summary)
                resumed = index == first and job.attempts > 1
                result = self._store(job, work.batches[index], resumed)
            except LeaseLostError:
                raise
            except Exception as exc:  # the job fails; the server and the next jobs go on
                logger.warning("ingest job %s failed: %s", job.job_id, _one_line(exc))
                self._finish(job, "failed", _one_line(exc), summary)
                return
            summary = summarize([result], summary)
            work = work.model_copy(update={"done": index + 1})
            self._hold(self.state.save_progress(job.job_id, self.owner, work, summary,
                                                self.lease_s))  # fmt: skip
        self._finish(job, "done", None, summary)

    def _numbered(self, job: Job, work: JobWork, index: int, summary: JobSummary) -> JobWork:
        """``work`` with batch ``index`` as numbered turns, saved before any is stored, so
        every attempt stores the same turns."""
        batch = work.batches[index]
        if batch.turns is not None:
            return work
        turns = self._memory.reserve_turns(
            batch.messages or [], scope=job.scope, session=batch.session, at=job.created_at
        )
        batches = list(work.batches)
        batches[index] = WorkBatch(session=batch.session, turns=turns)
        numbered = work.model_copy(update={"batches": batches})
        self._hold(self.state.save_progress(job.job_id, self.owner, numbered, summary,
                                            self.lease_s))  # fmt: skip
        return numbered

    def _store(self, job: Job, batch: WorkBatch, resumed: bool) -> AddResult:
        """``Memory.add`` of the batch's turns; in the batch an earlier attempt was storing
        when it stopped, the turns it stored are skipped if they were extracted."""
        turns = batch.turns or []
        stored = self._stored(job.scope, batch.session, turns) if resumed and job.extract else set()
        todo = [t for t in turns if t.turn().turn_id not in stored]
        result = AddResult(scope=job.scope)
        if todo:
            result = self._memory.add(
                todo, scope=job.scope, session=batch.session, extract=job.extract
            )
        skipped = [_skipped(t) for t in turns if t.turn().turn_id in stored]
        return result.model_copy(update={"turns": skipped + result.turns})

    def _stored(self, scope: str, session: str | None, turns: list[TurnInput]) -> set[str]:
        """The ids of ``turns`` (numbered turns of one session) that the store holds."""
        wanted = {t.turn().turn_id for t in turns}
        last = max(t.seq for t in turns)
        found: set[str] = set()
        after = None
        while True:
            try:
                page = self._memory.turns(
                    scope, session=session or DEFAULT_SESSION, after=after, limit=MAX_PAGE_LIMIT
                )
            except UnknownSessionError:
                return found
            found |= {t.turn_id for t in page.items} & wanted
            if page.next is None or page.items[-1].seq >= last:
                return found
            after = page.next

    def _finish(
        self, job: Job, state: JobState, error: str | None, summary: JobSummary | None
    ) -> None:
        self._hold(self.state.finish_job(job.job_id, self.owner, state, error, summary))

    @staticmethod
    def _hold(held: bool) -> None:
        if not held:
            raise LeaseLostError("another server took the job over")


def _skipped(turn: TurnInput) -> AddedTurn:
    return AddedTurn(turn_id=turn.turn().turn_id, speaker=turn.speaker, text=turn.text,
                     anchor=turn.turn().anchor_datetime, status="skipped")  # fmt: skip
