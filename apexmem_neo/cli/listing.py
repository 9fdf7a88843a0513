"""`apexmem scopes | sessions | turns | entities | facts`: list what the memory holds.

Listings are keyset paged: each prints at most ``--limit`` rows and, when more follow, a
``next:`` line with the cursor to pass as ``--after``. A scope that holds nothing prints an
empty table and, on stderr, the scopes that do hold rows (``--json`` carries it as ``hint``).
``turns --metadata key=value`` (repeatable) lists only the turns whose metadata holds every
given key with that value.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Final, TypeVar

import typer

from apexmem_neo.cli.common import (
    DEFAULT_SCOPE,
    JsonOpt,
    MemoryChoice,
    ScopeOpt,
    print_json,
)
from apexmem_neo.ontology.metadata import metadata_from_pairs
from apexmem_neo.tools import markdown

if TYPE_CHECKING:  # Memory loads DSPy and the stores: only a running command pays for it
    from pydantic import BaseModel

    from apexmem_neo.memory import Memory
    from apexmem_neo.memory.listing import Listing

Item = TypeVar("Item", bound="BaseModel")
Result = TypeVar("Result")
CELL_CHARS = 120
LIST_LIMIT: Final = 100
"""Rows per page unless --limit says otherwise (``Memory``'s own default)."""
AfterOpt = Annotated[
    str | None,
    typer.Option("--after", help="The cursor a previous page printed as next: (its next page)."),
]
MetadataOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--metadata",
        metavar="KEY=VALUE",
        help="Only turns whose metadata has KEY equal to VALUE (repeatable: all must hold; "
        'VALUE is read as JSON when it is a number, true, false, null or "quoted").',
    ),
]
LimitOpt = Annotated[
    int, typer.Option("--limit", min=1, max=10_000, help="At most this many rows.")
]


@MemoryChoice.options(index_name=False)
def scopes(choice: MemoryChoice = MemoryChoice.SETTINGS, as_json: JsonOpt = False) -> None:
    """List the scopes that hold anything (pass one as --scope to the other commands)."""
    with choice.open(create=False, with_lm=False) as memory:
        found = memory.scopes()
    if as_json:
        print_json({"scopes": found})
    else:
        typer.echo("\n".join(found) if found else "_(no scopes: the memory is empty)_")


def read_only(choice: MemoryChoice, read: Callable[[Memory], Result]) -> Result:
    """``read(memory)`` on the chosen memory, opened for reading (a missing SQLite file is an
    error, not a new memory) and closed again."""
    with choice.open(create=False, with_lm=False) as memory:
        return read(memory)


def scope_listing(
    read: Callable[[Memory], Callable[..., Listing[Item]]],
    head: Sequence[str],
    row: Callable[[Item], Sequence[Any]],
    doc: str,
) -> Callable[..., None]:
    """A command listing one kind of the scope's rows a page at a time, with no filter:
    ``read(memory)`` is the ``Memory`` listing method, ``row`` an item's cells under
    ``head``, ``doc`` the command's help."""

    def command(
        scope: ScopeOpt = DEFAULT_SCOPE,
        after: AfterOpt = None,
        limit: LimitOpt = LIST_LIMIT,
        choice: MemoryChoice = MemoryChoice.SETTINGS,
        as_json: JsonOpt = False,
    ) -> None:
        found = read_only(choice, lambda memory: read(memory)(scope, after=after, limit=limit))
        show(found, head, [row(item) for item in found.items], as_json)

    command.__doc__ = doc
    return MemoryChoice.options(index_name=False)(command)


sessions = scope_listing(
    lambda memory: memory.sessions,
    ("session_id", "conversation", "seq", "started_at"),
    lambda s: (s.session_id, s.conversation_id, s.seq, s.started_at or ""),
    "List the scope's sessions.",
)


@MemoryChoice.options(index_name=False)
def turns(
    scope: ScopeOpt = DEFAULT_SCOPE,
    session: Annotated[
        str | None,
        typer.Option("--session", help="Only this session (its name as added, or its id)."),
    ] = None,
    metadata: MetadataOpt = None,
    after: AfterOpt = None,
    limit: LimitOpt = LIST_LIMIT,
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    as_json: JsonOpt = False,
) -> None:
    """List the scope's turns in conversation order, session by session."""
    wanted = metadata_filter(metadata)
    found = read_only(
        choice,
        lambda memory: memory.turns(
            scope, session=session, metadata=wanted, after=after, limit=limit
        ),
    )
    head: tuple[str, ...] = ("time", "speaker", "text", "session_id", "seq")
    rows: list[tuple[Any, ...]] = [
        (t.anchor_datetime, t.speaker, t.text, t.session_id, t.seq) for t in found.items
    ]
    if any(t.metadata for t in found.items):
        head += ("metadata",)
        rows = [(*row, _shown(t.metadata)) for row, t in zip(rows, found.items, strict=True)]
    show(found, head, rows, as_json)


def metadata_filter(pairs: Sequence[str] | None) -> dict[str, Any]:
    """``--metadata key=value`` options as a filter (``metadata_from_pairs``);
    ``typer.BadParameter`` for an option without ``=`` or a key given twice."""
    try:
        return metadata_from_pairs(pairs or ())
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--metadata") from None


def _shown(metadata: dict[str, Any]) -> str:
    return json.dumps(metadata, ensure_ascii=False, sort_keys=True)


entities = scope_listing(
    lambda memory: memory.entities,
    ("name", "type", "role", "entity_id"),
    lambda e: (e.name, e.entity_type.value, e.role.value, e.entity_id),
    "List the scope's entities by name.",
)


@MemoryChoice.options(index_name=False)
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
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    as_json: JsonOpt = False,
) -> None:
    """List the scope's facts by entity and property, each oldest first."""
    found = read_only(
        choice,
        lambda memory: memory.facts(scope, entity=entity, property=prop, after=after, limit=limit),
    )
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
