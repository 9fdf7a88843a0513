"""`apexmem scopes | sessions | turns | entities | facts`: list what the memory holds.

Listings are keyset paged: each prints at most ``--limit`` rows and, when more follow, a
``next:`` line with the cursor to pass as ``--after``. A scope that holds nothing prints an
empty table and, on stderr, the scopes that do hold rows (``--json`` carries it as ``hint``).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer

from apexmem_neo.cli.common import (
    DEFAULT_SCOPE,
    DbOpt,
    JsonOpt,
    ScopeOpt,
    StoreOpt,
    print_json,
    using_memory,
)
from apexmem_neo.tools import markdown

if TYPE_CHECKING:  # Memory loads DSPy and the stores: only a running command pays for it
    from apexmem_neo.memory.listing import Listing

CELL_CHARS = 120
LIST_LIMIT: Final = 100
"""Rows per page unless --limit says otherwise (``Memory``'s own default)."""
AfterOpt = Annotated[
    str | None,
    typer.Option("--after", help="The cursor a previous page printed as next: (its next page)."),
]
LimitOpt = Annotated[
    int, typer.Option("--limit", min=1, max=10_000, help="At most this many rows.")
]


def scopes(store: StoreOpt = None, db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """List the scopes that hold anything (pass one as --scope to the other commands)."""
    with using_memory(store, db, None, create=False) as memory:
        found = memory.scopes()
    if as_json:
        print_json({"scopes": found})
    else:
        typer.echo("\n".join(found) if found else "_(no scopes: the memory is empty)_")


def sessions(
    scope: ScopeOpt = DEFAULT_SCOPE,
    after: AfterOpt = None,
    limit: LimitOpt = LIST_LIMIT,
    store: StoreOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the scope's sessions."""
    with using_memory(store, db, None, create=False) as memory:
        found = memory.sessions(scope, after=after, limit=limit)
    rows = [(s.session_id, s.conversation_id, s.seq, s.started_at or "") for s in found.items]
    show(found, ("session_id", "conversation", "seq", "started_at"), rows, as_json)


def turns(
    scope: ScopeOpt = DEFAULT_SCOPE,
    session: Annotated[
        str | None,
        typer.Option("--session", help="Only this session (its name as added, or its id)."),
    ] = None,
    after: AfterOpt = None,
    limit: LimitOpt = LIST_LIMIT,
    store: StoreOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the scope's turns in conversation order, session by session."""
    with using_memory(store, db, None, create=False) as memory:
        found = memory.turns(scope, session=session, after=after, limit=limit)
    rows = [(t.anchor_datetime, t.speaker, t.text, t.session_id, t.seq) for t in found.items]
    show(found, ("time", "speaker", "text", "session_id", "seq"), rows, as_json)


def entities(
    scope: ScopeOpt = DEFAULT_SCOPE,
    after: AfterOpt = None,
    limit: LimitOpt = LIST_LIMIT,
    store: StoreOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the scope's entities by name."""
    with using_memory(store, db, None, create=False) as memory:
        found = memory.entities(scope, after=after, limit=limit)
    rows = [(e.name, e.entity_type.value, e.role.value, e.entity_id) for e in found.items]
    show(found, ("name", "type", "role", "entity_id"), rows, as_json)


def facts(
    scope: ScopeOpt = DEFAULT_SCOPE,
    entity: Annotated[
        str | None, typer.Option("--entity", help="Only this entity's (name or id).")
    ] = None,
    prop: Annotated[
        str | None, typer.Option("--property", help="Only this property's (any spelling).")
    ] = None,
    after: AfterOpt = None,
    limit: LimitOpt = LIST_LIMIT,
    store: StoreOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the scope's facts by entity and property, each oldest first."""
    with using_memory(store, db, None, create=False) as memory:
        found = memory.facts(scope, entity=entity, property=prop, after=after, limit=limit)
    rows = [(f.entity_id, f.property, f.value, f.t_from, f.t_to or "") for f in found.items]
    show(found, ("entity_id", "property", "value", "t_from", "t_to"), rows, as_json)


def show(
    found: Listing[Any],
    head: Sequence[str],
    rows: Sequence[Sequence[Any]],
    as_json: bool,
) -> None:
    """The listing as JSON, or as a table with the next cursor and the empty-scope hint."""
    if as_json:
        print_json(found.model_dump(mode="json"))
        return
    typer.echo(markdown.table(tuple(head), rows, CELL_CHARS) if rows else "_(none)_")
    if found.next is not None:
        typer.echo(f"next: {shlex.quote(found.next)}")
    if found.hint is not None:
        typer.echo(found.hint, err=True)
