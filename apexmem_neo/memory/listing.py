"""Listing what a memory holds, page by page: ``Memory.scopes``, ``sessions``, ``turns``,
``entities`` and ``facts`` (the ``Listings`` half of ``Memory``).

Each listing reads one scope through its ``ScopedStore`` (a scope is a wall) with the store's
keyset-paged reads (``GraphStore.page``) and returns a ``Listing``: a ``Page`` of typed items
and the ``next`` cursor (None on the last page), to pass back as ``after``. A listing cursor
is the store's cursor in URL-safe base64: one opaque word that needs no quoting in a shell
and that no JSON-minded client (an MCP SDK) mistakes for a list. A listing of a
scope that holds nothing raises nothing; its ``hint`` names the scopes that hold rows, so a
caller who asked under the wrong scope (the CLI's ``default``) learns which to use.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any, Final, Generic, cast

from apexmem_neo.construction.candidates import stored_property_name
from apexmem_neo.errors import InvalidInputError, UnknownSessionError
from apexmem_neo.memory.messages import check_scope
from apexmem_neo.ontology import Entity, Session, Turn, ids
from apexmem_neo.ontology.metadata import Metadata, MetadataValue, check_metadata
from apexmem_neo.store import pages
from apexmem_neo.store.pages import Kind, Page, check_limit, every_item
from apexmem_neo.store.protocol import FactRecord, GraphStore, InvalidCursorError, Item
from apexmem_neo.store.scoped import ScopedStore
from apexmem_neo.tools.names import match_property, resolve_entity, resolve_property

LIST_LIMIT: Final = 100
"""Items per listing page unless ``limit`` says otherwise."""
NOT_A_CURSOR: Final = "pass the next cursor a listing of this kind returned"
LISTED_SESSIONS: Final = 10
"""Sessions an ``UnknownSessionError`` names."""


class Listing(Page[Item], Generic[Item]):
    """One page of a scope's items (``items``, ``next``), the scope it lists, and ``hint``:
    when the scope holds nothing at all, which scopes do (None otherwise)."""

    scope: str
    hint: str | None = None


def listing_cursor(cursor: str) -> str:
    """The listing cursor for a store cursor (URL-safe base64, no padding)."""
    return base64.urlsafe_b64encode(cursor.encode("utf-8")).decode("ascii").rstrip("=")


def read_cursor(token: str | None) -> str | None:
    """The store cursor a listing cursor stands for; ``InvalidCursorError`` if none."""
    if token is None:
        return None
    try:
        padded = token + "=" * (-len(token) % 4)
        return base64.urlsafe_b64decode(padded.encode("ascii")).decode("utf-8")
    except (binascii.Error, UnicodeError, ValueError, TypeError, AttributeError):
        raise InvalidCursorError(str(token), NOT_A_CURSOR) from None


def empty_scope_hint(store: GraphStore, scope: str) -> str | None:
    """ "scope 'x' holds nothing; scopes: a, b" when ``scope`` holds no row, else None."""
    if any(store.counts(scope=scope).model_dump().values()):
        return None
    others = [name for name in store.scopes() if name != scope]
    return f"scope {scope!r} holds nothing; scopes: {', '.join(others) or 'none'}"


class Listings:
    """The listing methods of ``Memory`` (mixed in; ``store`` is the memory's own store)."""

    store: GraphStore

    def scopes(self) -> list[str]:
        """The scopes that hold at least one row, sorted."""
        return sorted(self.store.scopes())

    def sessions(
        self, scope: str, *, after: str | None = None, limit: int = LIST_LIMIT
    ) -> Listing[Session]:
        """The scope's sessions, by session id."""
        return self._list(pages.SESSIONS, scope, after, limit)

    def turns(
        self,
        scope: str,
        *,
        session: str | None = None,
        metadata: Mapping[str, MetadataValue] | None = None,
        after: str | None = None,
        limit: int = LIST_LIMIT,
    ) -> Listing[Turn]:
        """The scope's turns in conversation order, session by session, or one ``session``'s
        (its name as given to ``add(session=...)``, an ingested file's ``session_N``, or its
        id);
        ``UnknownSessionError`` when the scope holds no such session. With ``metadata`` only
        the turns whose metadata holds every given key with an equal value (the store
        filters, so a page still holds ``limit`` of them where there are that many)."""
        filters = None
        if session is not None:
            filters = {"session_id": self._session_id(scope, session)}
        wanted = checked_filter(metadata)
        return self._list(pages.TURNS, scope, after, limit, filters, wanted)

    def entities(
        self, scope: str, *, after: str | None = None, limit: int = LIST_LIMIT
    ) -> Listing[Entity]:
        """The scope's entities by normalised name."""
        return self._list(pages.ENTITIES, scope, after, limit)

    def facts(
        self,
        scope: str,
        *,
        entity: str | None = None,
        property: str | None = None,
        after: str | None = None,
        limit: int = LIST_LIMIT,
    ) -> Listing[FactRecord]:
        """The scope's facts, grouped by entity and property, each group oldest first; only
        ``entity``'s and/or ``property``'s if given. Names resolve as in ``Memory.history``
        (an unknown entity raises ``UnknownEntityError``); a property alone is matched among
        the scope's property names."""
        store = ScopedStore(self.store, check_scope(scope))
        filters: dict[str, str] = {}
        if entity is not None:
            found = resolve_entity(store, entity, scope)
            filters["entity_id"] = found.entity_id
            if property is not None:
                filters["property"] = resolve_property(store, found.entity_id, property)
        elif property is not None:
            filters["property"] = _scope_property(store, property)
        return self._list(pages.FACTS, scope, after, limit, filters)

    def _list(
        self,
        kind: Kind[Item],
        scope: str,
        after: str | None,
        limit: int,
        filters: dict[str, str] | None = None,
        metadata: Metadata | None = None,
    ) -> Listing[Item]:
        store = ScopedStore(self.store, check_scope(scope))
        limit = check_limit(limit)
        try:
            page = store.page(
                kind, after=read_cursor(after), limit=limit, filters=filters, metadata=metadata
            )
        except InvalidCursorError:
            raise InvalidCursorError(str(after), NOT_A_CURSOR) from None
        hint = empty_scope_hint(self.store, scope) if not page.items and after is None else None
        listing: type[Listing[Item]] = cast(Any, Listing)[kind.model]
        cursor = None if page.next is None else listing_cursor(page.next)
        return listing(items=page.items, next=cursor, scope=scope, hint=hint)

    def _session_id(self, scope: str, name: str) -> str:
        """The id of the scope's session ``name`` names (by its name, an ingested file's
        session name, or its id)."""
        from apexmem_neo.memory.forget import session_numbers

        store = ScopedStore(self.store, check_scope(scope))
        wanted = [name, *(ids.session_id(scope, n) for n in session_numbers(name))]
        for session_id in wanted:
            held = store.page(pages.SESSIONS, limit=1, filters={"session_id": session_id})
            if held.items:
                return session_id
        stored = store.page(pages.SESSIONS, limit=LISTED_SESSIONS).items
        listed = ", ".join(s.session_id for s in stored) or "none"
        raise UnknownSessionError(
            f"no session {name!r} in scope {scope!r}; its sessions: {listed}. Name a session "
            "as it was given (add(session=...), an ingested file's session_N) or by id"
        )


def checked_filter(metadata: Mapping[str, MetadataValue] | None) -> Metadata:
    """A metadata filter as a dict (``{}`` for none); ``InvalidInputError`` naming the
    problem when it is not metadata a turn could hold."""
    try:
        return check_metadata(metadata)
    except ValueError as exc:
        raise InvalidInputError(f"metadata filter: {exc}") from None


def _scope_property(store: ScopedStore, asked: str) -> str:
    """The scope's property name ``asked`` means (else the name a write would store)."""
    names = every_item(lambda after: store.page(pages.PROPERTIES, after=after))
    found = match_property(asked, {p.name: ("", "", "") for p in names})
    return found if found is not None else stored_property_name(asked)
