"""The read routes: search, ask, the temporal reads, entity, GraphQuery, the listings and
export. Each is a thin call of one ``Memory`` method over the route's scope, which the
caller's key must hold (``ScopeDep``); FastAPI runs these sync routes on worker threads."""

from __future__ import annotations

from typing import Annotated

from fastapi import FastAPI, Query
from fastapi.responses import StreamingResponse

from apexmem_neo.agent.models import AgentResult
from apexmem_neo.errors import InvalidInputError
from apexmem_neo.memory.core import Memory
from apexmem_neo.memory.listing import LIST_LIMIT, Listing
from apexmem_neo.memory.results import EntityHistory
from apexmem_neo.ontology import Entity, Session, Turn
from apexmem_neo.ontology.metadata import Metadata, metadata_from_pairs
from apexmem_neo.search import DocKind, SearchResults
from apexmem_neo.server.auth import CallerDep, ScopeDep
from apexmem_neo.server.export import export_lines, started
from apexmem_neo.server.models import (
    AskRequest,
    FactAnswer,
    QueryRequest,
    QueryRows,
    ScopeList,
)
from apexmem_neo.store.protocol import FactRecord

SCOPE = "/v1/scopes/{scope:path}"
EntityQ = Annotated[str, Query(min_length=1, description="The entity: id, name or alias.")]
PropertyQ = Annotated[str, Query(min_length=1, description="The property, in any spelling.")]
AfterQ = Annotated[str | None, Query(description="The previous page's `next` cursor.")]
LimitQ = Annotated[int, Query(ge=1, le=1000, description="At most this many items.")]
MetadataQ = Annotated[
    list[str] | None,
    Query(description="key=value, repeatable: only turns whose metadata holds each pair "
          "(a value that reads as a JSON scalar is that value: 4127, true, null)"),
]  # fmt: skip
MAX_K = 100


def metadata_filter(pairs: list[str] | None) -> Metadata | None:
    """The ``metadata`` query's pairs as a filter (none given: no filter); a malformed pair
    is ``InvalidInputError`` (400)."""
    if not pairs:
        return None
    try:
        return metadata_from_pairs(pairs)
    except ValueError as exc:
        raise InvalidInputError(str(exc)) from None


def add_read_routes(app: FastAPI, memory: Memory) -> None:
    """The read routes over ``memory``."""
    _temporal_routes(app, memory)
    _listing_routes(app, memory)

    @app.get(SCOPE + "/search", tags=["read"])
    def search(
        scope: ScopeDep,
        q: Annotated[str, Query(min_length=1, description="What to search for.")],
        k: Annotated[int, Query(ge=1, le=MAX_K)] = 10,
        kinds: Annotated[list[DocKind] | None, Query()] = None,
        metadata: MetadataQ = None,
    ) -> SearchResults:
        """Hybrid search: the top ``k`` entities, properties, events and turns (with a
        metadata filter, turns only)."""
        wanted = metadata_filter(metadata)
        return memory.search(q, scope=scope, k=k, kinds=kinds, metadata=wanted)

    @app.post(SCOPE + "/ask", tags=["read"])
    def ask(scope: ScopeDep, body: AskRequest) -> AgentResult:
        """The agent's answer with its evidence turns and trace (needs the server's LM)."""
        return memory.ask(
            body.question, scope=scope, at=body.at, mode=body.mode, language=body.language
        )

    @app.post(SCOPE + "/query", tags=["read"])
    def query(scope: ScopeDep, body: QueryRequest) -> QueryRows:
        """One read-only GraphQuery over the scope, bounded in rows, bytes and time; a
        refused or failed query answers 400 ``query_refused`` with the reason."""
        found = memory.query(
            body.query, body.language, scope=scope, params=body.params, limit=body.limit,
            timeout_s=body.timeout_s,
        )  # fmt: skip
        return QueryRows.of(found)

    @app.get(SCOPE + "/export", tags=["read"], response_class=StreamingResponse)
    def export(scope: ScopeDep) -> StreamingResponse:
        """The scope as JSON Lines of graph batches (what ``apexmem import`` reads)."""
        lines = started(export_lines(memory, scope))
        headers = {"Content-Disposition": f'attachment; filename="{_file_name(scope)}"'}
        return StreamingResponse(lines, media_type="application/x-ndjson", headers=headers)


def _file_name(scope: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in scope) + ".jsonl"


def _temporal_routes(app: FastAPI, memory: Memory) -> None:
    @app.get(SCOPE + "/entity", tags=["temporal"])
    def entity(scope: ScopeDep, name: EntityQ) -> Entity:
        """The entity ``name`` names (404 ``unknown_entity`` listing the nearest names)."""
        return memory.entity(name, scope=scope)

    @app.get(SCOPE + "/history", tags=["temporal"])
    def history(scope: ScopeDep, entity: EntityQ, property: PropertyQ) -> EntityHistory:
        """Every fact of (entity, property), oldest first, and when its value changed."""
        return memory.history(entity, property, scope=scope)

    @app.get(SCOPE + "/as_of", tags=["temporal"])
    def as_of(
        scope: ScopeDep,
        entity: EntityQ,
        property: PropertyQ,
        at: Annotated[str, Query(min_length=1, description="ISO 8601 time.")],
    ) -> FactAnswer:
        """The fact of (entity, property) that held at ``at`` (null if none did)."""
        return FactAnswer(fact=memory.as_of(entity, property, at, scope=scope))

    @app.get(SCOPE + "/current", tags=["temporal"])
    def current(scope: ScopeDep, entity: EntityQ, property: PropertyQ) -> FactAnswer:
        """The latest known fact of (entity, property) (null if there is none)."""
        return FactAnswer(fact=memory.current(entity, property, scope=scope))


def _listing_routes(app: FastAPI, memory: Memory) -> None:
    @app.get("/v1/scopes", tags=["listing"])
    def scopes(who: CallerDep) -> ScopeList:
        """The scopes that hold anything, among those the caller's key holds."""
        return ScopeList(scopes=[s for s in memory.scopes() if who.may_read(s)])

    @app.get(SCOPE + "/sessions", tags=["listing"])
    def sessions(
        scope: ScopeDep, after: AfterQ = None, limit: LimitQ = LIST_LIMIT
    ) -> Listing[Session]:
        """The scope's sessions, a page at a time (pass ``next`` back as ``after``)."""
        return memory.sessions(scope, after=after, limit=limit)

    @app.get(SCOPE + "/turns", tags=["listing"])
    def turns(
        scope: ScopeDep,
        session: Annotated[str | None, Query(description="One session's turns.")] = None,
        after: AfterQ = None,
        limit: LimitQ = LIST_LIMIT,
        metadata: MetadataQ = None,
    ) -> Listing[Turn]:
        """The scope's turns in conversation order, a page at a time."""
        wanted = metadata_filter(metadata)
        return memory.turns(scope, session=session, after=after, limit=limit, metadata=wanted)

    @app.get(SCOPE + "/entities", tags=["listing"])
    def entities(
        scope: ScopeDep, after: AfterQ = None, limit: LimitQ = LIST_LIMIT
    ) -> Listing[Entity]:
        """The scope's entities by name, a page at a time."""
        return memory.entities(scope, after=after, limit=limit)

    @app.get(SCOPE + "/facts", tags=["listing"])
    def facts(
        scope: ScopeDep,
        entity: Annotated[str | None, Query(description="Only this entity's.")] = None,
        property: Annotated[str | None, Query(description="Only this property's.")] = None,
        after: AfterQ = None,
        limit: LimitQ = LIST_LIMIT,
    ) -> Listing[FactRecord]:
        """The scope's facts, each entity's and property's oldest first, a page at a time."""
        return memory.facts(scope, entity=entity, property=property, after=after, limit=limit)
