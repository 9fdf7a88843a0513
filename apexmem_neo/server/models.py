"""Request and response bodies of the REST server that ``Memory``'s own results do not
already give (those are returned as they are: ``SearchResults``, ``AgentResult``,
``EntityHistory``, ``FactRecord``, ``Entity``, ``Listing``, ``ForgetResult``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from apexmem_neo.agent.models import Mode
from apexmem_neo.ontology.metadata import MetadataValue
from apexmem_neo.query.backend import Language, QueryResult
from apexmem_neo.server.records import ApiKey
from apexmem_neo.store.protocol import FactRecord

MAX_QUERY_ROWS = 1000
MAX_QUERY_SECONDS = 30.0


class MessageIn(BaseModel):
    """One chat message to remember, as ``Memory.add`` takes it."""

    model_config = ConfigDict(extra="forbid")

    role: str = Field(default="user", min_length=1)
    name: str | None = Field(default=None, description="Who said it, e.g. 'Alice'.")
    content: str = Field(description="What was said.")
    timestamp: str | None = Field(
        default=None,
        description="When, ISO 8601; default: the previous message's time, else now.",
    )
    session: str | None = Field(
        default=None, description="The session it belongs to (default: the request's)."
    )
    metadata: dict[str, MetadataValue] | None = Field(
        default=None,
        description="Labels kept with the turn: string keys, JSON scalar values "
        '(e.g. {"channel": "web"}); the turns and search routes filter on them.',
    )


class AddMessages(BaseModel):
    """POST /v1/scopes/{scope}/messages: messages stored by a background job."""

    model_config = ConfigDict(extra="forbid")

    messages: list[MessageIn] = Field(min_length=1)
    session: str | None = Field(
        default=None, description="Session of the messages that name none (default 'default')."
    )
    extract: bool = Field(
        default=True,
        description="Extract events and typed facts with the LLM; false stores the turns as "
        "they are (searchable at once, no LLM call).",
    )


class JobAccepted(BaseModel):
    """An ingest job just queued: poll GET /v1/jobs/{job_id}."""

    job_id: str
    state: Literal["queued"] = "queued"
    scope: str
    turns: int
    status_url: str


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1)
    at: str | None = Field(default=None, description="The question's own date (default now).")
    mode: Mode | None = None
    language: Language | None = None


class QueryRequest(BaseModel):
    """One bounded, read-only GraphQuery (SQL on SQLite, Cypher on Neo4j by default)."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1)
    language: Language | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    limit: int = Field(default=200, ge=1, le=MAX_QUERY_ROWS)
    timeout_s: float = Field(default=10.0, gt=0, le=MAX_QUERY_SECONDS)


class QueryRows(BaseModel):
    """A GraphQuery result: columns, rows, whether a limit cut them and by which."""

    columns: list[str]
    rows: list[list[Any]]
    truncated: bool
    truncated_by: str | None = None
    translated: str | None = None
    translated_language: Language | None = None

    @classmethod
    def of(cls, result: QueryResult) -> QueryRows:
        return cls.model_validate(result.model_dump(mode="json"))


class FactAnswer(BaseModel):
    """as_of / current: the fact that held, or null."""

    fact: FactRecord | None


class ScopeList(BaseModel):
    """The scopes that hold anything, among the caller's."""

    scopes: list[str]


class KeyRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scopes: list[str] = Field(default_factory=list)
    admin: bool = False


class KeyList(BaseModel):
    keys: list[ApiKey]
