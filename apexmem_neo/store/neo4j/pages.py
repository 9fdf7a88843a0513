"""Keyset pages on Neo4j: which named query reads a page, and with which parameters.

Each kind has a query file ``cypher/queries/page_<kind>.cypher`` and, where a filter fixes
the first columns of its key, one more per such filter (a session's turns, an entity's
facts, one session): its index then seeks those columns by equality and the next one as a
range from the cursor. A filter that fixes no key column (facts of one property across
entities) is a parameter of the kind's own query, null when unused. The turn queries also
take ``$metadata``, per wanted metadata entry the texts of which a turn's ``metadata_json``
must contain one (``metadata_needles``; none wanted: an empty list).
"""

from __future__ import annotations

from typing import Any, Final

from apexmem_neo.ontology.metadata import metadata_needles
from apexmem_neo.store.pages import INT_KEY_COLUMNS, Kind, PageRequest, fixed_prefix
from apexmem_neo.store.protocol import Item

PAGE_QUERIES: Final[dict[tuple[str, int], str]] = {
    ("sessions", 0): "page_sessions",
    ("sessions", 1): "page_session",
    ("turns", 0): "page_turns",
    ("turns", 1): "page_session_turns",
    ("entities", 0): "page_entities",
    ("properties", 0): "page_properties",
    ("evidence", 0): "page_evidence",
    ("events", 0): "page_events",
    ("event_participants", 0): "page_participants",
    ("facts", 0): "page_facts",
    ("facts", 1): "page_entity_facts",
    ("facts", 2): "page_entity_property_facts",
}
"""(table, key columns the filters fix) -> the query reading such a page."""

FILTER_PARAMETERS: Final = ("session_id", "entity_id", "property")
"""Every filter any query takes; those a read does not set are passed as null."""


def page_query(request: PageRequest[Item]) -> tuple[str, dict[str, Any]]:
    """The name of the query reading the page ``request`` asks for and its parameters
    (``$limit`` asks for one row more than the page holds)."""
    kind, start = request.kind, request.start
    fixed = fixed_prefix(kind.key, request.filters)
    params: dict[str, Any] = dict.fromkeys(FILTER_PARAMETERS)
    params |= request.filters
    params |= {
        "scope": request.scope,
        "after": start or [],
        "from": _range_start(kind, fixed, start),
        "limit": request.limit + 1,
        "metadata": metadata_needles(request.metadata),
    }
    return PAGE_QUERIES[(kind.table, fixed)], params


def _range_start(kind: Kind[Item], fixed: int, start: list[Any] | None) -> Any:
    """Where the index range on the first key column no filter fixes begins: the cursor's
    value, else one below every stored value (seq counts from 0; strings from "")."""
    if fixed >= len(kind.key):
        return None
    if start is not None:
        return start[fixed]
    return -1 if kind.key[fixed] in INT_KEY_COLUMNS else ""
