"""The MCP server's listing tools: Scopes, Sessions, Turns, Entities and Facts, over
``Memory``'s listings (``apexmem_neo.memory.listing``).

Each answers one page as JSON: ``items``, ``next`` (the cursor to pass back as ``after`` for
the next page; null on the last) and ``hint``, which names the scopes that hold rows when the
asked scope holds nothing. ``build_server`` registers them with its own ``add``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Final, Protocol

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from apexmem_neo.memory.core import Memory

PAGE_LIMIT: Final = 50
"""Items per page unless the call asks for another ``limit``."""
AfterArg = Annotated[
    str | None,
    Field(description="The `next` cursor of the previous page (omit for the first page)."),
]
LimitArg = Annotated[int, Field(ge=1, le=1000, description="At most this many items.")]
MetadataArg = Annotated[
    dict[str, str | int | float | bool | None] | None,
    Field(description="Only turns whose metadata holds each of these keys with this value."),
]
ScopeArg = Annotated[
    str, Field(description="Whose memory: a user or agent id (default: the server's scope).")
]
PAGED = f"""

Args:
    after: the `next` cursor the previous page returned; omit for the first page.
    limit: at most this many items (default {PAGE_LIMIT}).
    scope: whose memory (default: the server's scope).

Returns JSON: items, next (null on the last page) and hint (when the scope holds nothing:
the scopes that do)."""


class AddTool(Protocol):
    def __call__(
        self, server: Any, fn: Callable[..., str], name: str, doc: str, read: bool
    ) -> None: ...


def add_listing_tools(server: Any, memory: Memory, default: str, add: AddTool) -> None:
    """Register the five listing tools on ``server`` with ``add`` (the server's registrar)."""

    def scopes() -> str:
        return json.dumps({"scopes": memory.scopes()})

    def unfiltered(read: Callable[..., BaseModel]) -> Callable[..., str]:
        """A tool listing one kind of the scope's rows with no filter: ``read`` is the
        ``Memory`` listing method."""

        def listing(
            after: AfterArg = None, limit: LimitArg = PAGE_LIMIT, scope: ScopeArg = default
        ) -> str:
            return read(scope, after=after, limit=limit).model_dump_json()

        listing.__name__ = read.__name__  # MCP names the tool's input schema after it
        return listing

    def turns(
        session: str | None = None,
        metadata: MetadataArg = None,
        after: AfterArg = None,
        limit: LimitArg = PAGE_LIMIT,
        scope: ScopeArg = default,
    ) -> str:
        found = memory.turns(scope, session=session, metadata=metadata, after=after, limit=limit)
        return found.model_dump_json()

    def facts(
        entity: str | None = None,
        property: str | None = None,
        after: AfterArg = None,
        limit: LimitArg = PAGE_LIMIT,
        scope: ScopeArg = default,
    ) -> str:
        found = memory.facts(scope, entity=entity, property=property, after=after, limit=limit)
        return found.model_dump_json()

    add(server, scopes, "Scopes", "The scopes (users or agents) that hold anything, as JSON.", True)
    paged: list[tuple[Callable[..., str], str, str]] = [
        (unfiltered(memory.sessions), "Sessions", "The scope's conversation sessions"),
        (
            turns,
            "Turns",
            "The scope's turns in conversation order, or one session's (session: its name as "
            "ingested, or its id), or only those whose metadata holds every key of metadata "
            "with an equal value",
        ),
        (unfiltered(memory.entities), "Entities", "The scope's entities by name"),
        (
            facts,
            "Facts",
            "The scope's facts, each entity's and property's oldest first; entity (name or id) "
            "and property (any spelling) narrow them",
        ),
    ]
    for tool, name, doc in paged:
        add(server, tool, name, f"{doc}, a page at a time.{PAGED}", True)
