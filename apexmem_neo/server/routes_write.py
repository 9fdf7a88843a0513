"""The write routes: add messages (an ingest job, as the MCP server's Ingest), a job's
status, and forget a session; and the admin routes that manage API keys."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Query, Request, status

from apexmem_neo.errors import NoLanguageModelError
from apexmem_neo.memory.core import Memory
from apexmem_neo.memory.forget import ForgetResult
from apexmem_neo.memory.messages import DEFAULT_SESSION, read_messages
from apexmem_neo.server.auth import AdminDep, CallerDep, ScopeDep
from apexmem_neo.server.errors import ApiError
from apexmem_neo.server.jobs import Batch, JobRunner
from apexmem_neo.server.keys import KeyStore, NewKey
from apexmem_neo.server.models import AddMessages, JobAccepted, KeyList, KeyRequest, MessageIn
from apexmem_neo.server.records import ApiKey, Job

SCOPE = "/v1/scopes/{scope:path}"
NO_LM = (
    "no language model is configured for this server (started with --no-llm?): send "
    '"extract": false to store the turns as they are'
)


def add_write_routes(app: FastAPI, memory: Memory, jobs: JobRunner) -> None:
    """The routes that add and erase, over ``memory``, with ``jobs`` running the adds."""

    @app.post(SCOPE + "/messages", status_code=status.HTTP_202_ACCEPTED, tags=["write"])
    def add_messages(scope: ScopeDep, body: AddMessages, request: Request) -> JobAccepted:
        """Queue the messages as an ingest job and answer at once with its id; every
        message is checked first, so a bad one fails this request, not the job."""
        if body.extract and memory.lm is None:
            raise NoLanguageModelError(NO_LM)
        batches = _batches(body, memory.max_turn_chars)
        job = jobs.submit(scope, batches, body.extract)
        url = str(request.url_for("job_status", job_id=job.job_id))
        return JobAccepted(job_id=job.job_id, scope=scope, turns=job.turns, status_url=url)

    @app.get("/v1/jobs/{job_id}", tags=["write"])
    def job_status(job_id: str, who: CallerDep) -> Job:
        """An ingest job's state (queued, running, done or failed) and what it stored; a
        job of a scope the key does not hold is not found."""
        job = jobs.get(job_id)
        if job is None or not who.may_read(job.scope):
            raise ApiError(404, "unknown_job", f"no ingest job {job_id!r} for this key")
        return job

    @app.delete(SCOPE + "/sessions", tags=["write"])
    def forget_session(
        scope: ScopeDep,
        session: Annotated[str, Query(min_length=1, description="The session's name.")],
    ) -> ForgetResult:
        """Erase one session of the scope for good (its turns, and the facts and entities
        only it supports), from the store, the search index and the caches."""
        return memory.forget(scope=scope, session=session)


def _batches(body: AddMessages, max_chars: int) -> list[Batch]:
    """The messages grouped by session (consecutive messages of one session form one
    ``Memory.add``), each batch checked as ``Memory.add`` will check it."""
    batches: list[Batch] = []
    for message in body.messages:
        name = message.session or body.session
        if batches and batches[-1][0] == name:
            batches[-1][1].append(_chat(message))
        else:
            batches.append((name, [_chat(message)]))
    for name, messages in batches:
        read_messages(messages, None, max_chars, name or DEFAULT_SESSION)
    return batches


def _chat(message: MessageIn) -> dict[str, Any]:
    return message.model_dump(exclude={"session"}, exclude_none=True)


def add_key_routes(app: FastAPI, keys: KeyStore) -> None:
    """The admin routes: list, create and revoke API keys."""

    @app.get("/v1/keys", tags=["keys"])
    def list_keys(who: AdminDep) -> KeyList:
        """Every key (ids, scopes, admin, times; never a secret)."""
        return KeyList(keys=keys.list())

    @app.post("/v1/keys", status_code=status.HTTP_201_CREATED, tags=["keys"])
    def create_key(who: AdminDep, body: KeyRequest) -> NewKey:
        """A new key for ``scopes``; its secret is in this answer only."""
        return keys.create(body.scopes, admin=body.admin)

    @app.delete("/v1/keys/{key_id}", tags=["keys"])
    def revoke_key(key_id: str, who: AdminDep) -> ApiKey:
        """Revoke a key at once; a revoked key answers 401 from then on."""
        revoked = keys.revoke(key_id)
        if revoked is None:
            raise ApiError(404, "unknown_key", f"no API key {key_id!r}")
        return revoked
