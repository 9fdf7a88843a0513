"""EntityLookup: find entities by name (or search) and show each one's timeline as markdown.

For every candidate entity the document gives its id, name and type, the anchors (event
times) with the last one, and a bounded table of facts, each property's oldest first, with
the time each value held (from its t_from until the next value's, as reads decide it; "now"
for the value that holds now) and the turn that said it. A separate "latest value" table led
the local model to answer a past date's question with the value that holds now. The query
is resolved as reads resolve names (``apexmem_neo.tools.names``: id, exact name, alias,
loose name, first name, close spelling),
then each of its word n-grams the same way; a query naming no entity answers with the
nearest known names, never with another entity's facts. ``find_candidates`` (exact names,
then search hits) serves the agent's prefetch, which gathers context for a whole question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from apexmem_neo.errors import ToolError
from apexmem_neo.ontology import Entity, Event, value_text
from apexmem_neo.search.engine import SearchResults
from apexmem_neo.store.protocol import FactRecord, GraphStore, fact_order_key, held_until
from apexmem_neo.tools import markdown
from apexmem_neo.tools.names import (
    EARLIEST,
    LATEST,
    entity_catalog,
    named_entities,
    nearest_names,
)
from apexmem_neo.tools.result import ToolResult, unexpected

CELL = 120
EMPTY_LOOKUP = "Give a name or a few words naming the entity."
FACT_HEAD = ("property", "value", "t_from", "until", "turn_id", "fact_id")

ENTITY_LOOKUP_DOC = """Look up entities by name and show what memory knows about each.

Args:
    query: a name or a few words naming the entity, e.g. "Alice" or "Alice's dog"; case,
        punctuation, aliases, a first name and small misspellings are understood.
    k: how many entities to show at most (default 3).

A name that fits several entities equally well ("Maya") shows each of them; a name that
fits none answers with the nearest known names instead.

For each entity: its id, name and type; anchors: the times of the events that mention it,
and the last one; "facts": every fact (up to {max_facts}), each property's oldest first,
with the time it held from (t_from), until (its stated end, else the next value's t_from;
"now" while it still holds) and the turn id that said it. Facts are never overwritten:
older values stay with the time they held.
"""


class Searcher(Protocol):
    """What EntityLookup and Search need from the search layer (``HybridSearch`` fits)."""

    def search(self, query: str, k: int = 10) -> SearchResults: ...


@dataclass(frozen=True)
class EntityView:
    """One entity with its facts (in k order) and the events those facts hang off."""

    entity: Entity
    facts: tuple[FactRecord, ...]
    events: dict[str, Event]

    def anchors(self) -> list[str]:
        return sorted({e.anchor_datetime for e in self.events.values()})

    def turn_of(self, fact: FactRecord) -> str | None:
        event = self.events.get(fact.event_id) if fact.event_id else None
        return event.turn_id if event is not None else None


_WORD = re.compile(r"[^\W_][\w\-.']*", re.UNICODE)


def name_candidates(query: str, max_words: int = 3) -> list[str]:
    """The query itself, then its word n-grams (longest first), possessives stripped."""
    text = query.replace("\u2019", "'")
    words = [re.sub(r"'s$", "", w) for w in _WORD.findall(text)]
    words = [w.strip(".") for w in words if w.strip(".")]
    out = [query.strip()]
    for size in range(min(max_words, len(words)), 0, -1):
        out += [" ".join(words[i : i + size]) for i in range(len(words) - size + 1)]
    return [c for c in dict.fromkeys(out) if c]


def find_candidates(
    store: GraphStore, query: str, k: int, searcher: Searcher | None = None
) -> list[Entity]:
    """Up to ``k`` entities: those the query names exactly first (a question about Olga is
    about Olga, however well the speaker she was mentioned by matches), then search hits
    (when a searcher is given)."""
    found: dict[str, Entity] = {}
    for name in name_candidates(query):
        for entity in store.find_entities(name):
            found.setdefault(entity.entity_id, entity)
    if searcher is not None and query.strip() and len(found) < k:
        for hit in searcher.search(query, k=max(k, 5)).entities:
            if (hit_entity := store.get_entity(hit.graph_id)) is not None:
                found.setdefault(hit_entity.entity_id, hit_entity)
    return list(found.values())[:k]


def entity_view(store: GraphStore, entity: Entity) -> EntityView:
    facts = tuple(store.facts_between(entity.entity_id, EARLIEST, LATEST))
    events: dict[str, Event] = {}
    for event_id in dict.fromkeys(f.event_id for f in facts if f.event_id):
        event = store.get_event(event_id)
        if event is not None:
            events[event_id] = event
    return EntityView(entity, tuple(sorted(facts, key=fact_order_key)), events)


def render_entity(view: EntityView, max_facts: int = 30) -> str:
    """The markdown document of one entity."""
    e = view.entity
    anchors = view.anchors()
    lines = [f"# {e.name} ({e.entity_type.value})", "", f"- id: `{e.entity_id}`"]
    if e.aliases:
        lines.append(f"- aliases: {', '.join(e.aliases)}")
    if e.description:
        lines.append(f"- description: {markdown.cell(e.description, CELL)}")
    lines.append(f"- anchors: {', '.join(anchors) if anchors else '(none)'}")
    lines.append(f"- last_anchor: {anchors[-1] if anchors else '(none)'}")
    until = held_until_by_fact(view.facts)
    shown = view.facts[-max_facts:] if max_facts > 0 else ()
    count = f"{len(shown)} of {len(view.facts)}" if len(shown) < len(view.facts) else "all"
    lines += ["", f"## Facts ({count}), each property oldest first", ""]
    by_property = sorted(shown, key=lambda f: (f.property, fact_order_key(f)))
    rows = [
        (f.property, value_text(f.value), f.t_from, until[f.fact_id], view.turn_of(f), f.fact_id)
        for f in by_property
    ]
    lines.append(markdown.table(FACT_HEAD, rows, CELL) if rows else "_(no facts)_")
    return "\n".join(lines)


def held_until_by_fact(facts: Sequence[FactRecord]) -> dict[str, str]:
    """Each fact's end (``held_until`` over its property's history), by fact id."""
    by_property: dict[str, list[FactRecord]] = {}
    for fact in sorted(facts, key=fact_order_key):
        by_property.setdefault(fact.property, []).append(fact)
    return {
        fact.fact_id: end
        for group in by_property.values()
        for fact, end in zip(group, held_until(group), strict=True)
    }


def no_entity(store: GraphStore, name: str) -> str:
    """The answer for a name that matches no entity: the nearest known names, and what next."""
    nearest = nearest_names(entity_catalog(store), name)
    known = f"; nearest known names: {', '.join(nearest)}" if nearest else ""
    return (
        f"No entity matches {name!r}{known}. Try one of those names, or Search(query) to "
        "find names and turns that mention it."
    )


def lookup_entities(store: GraphStore, query: str, k: int = 3, max_facts: int = 30) -> ToolResult:
    """EntityLookup's body: never raises; an empty query or a failed read comes back in
    ``error`` (a name that matches nothing is an answer: the nearest known names)."""
    if not query or not query.strip():
        return ToolResult.failure(ToolError("Empty query", EMPTY_LOOKUP))
    try:
        return ToolResult(_entity_documents(store, query, k, max_facts))
    except Exception as exc:  # the agent must always get text back
        return unexpected("Lookup failed", exc)


def _entity_documents(store: GraphStore, query: str, k: int, max_facts: int) -> str:
    """The markdown of up to ``k`` entities ``query`` names, or the nearest known names."""
    wanted = max(1, min(int(k), 10))
    entities = named_entities(store, query, wanted, name_candidates(query)[1:])
    if not entities:
        return no_entity(store, query)
    docs = [render_entity(entity_view(store, e), max_facts) for e in entities]
    return "\n\n---\n\n".join(docs)


def entity_lookup_tool(store: GraphStore, max_facts: int = 30) -> Callable[..., ToolResult]:
    """The agent's ``EntityLookup(query, k)`` bound to ``store``."""

    def entity_lookup(query: str, k: int = 3) -> ToolResult:
        return lookup_entities(store, query, k, max_facts)

    entity_lookup.__name__ = entity_lookup.__qualname__ = "EntityLookup"
    entity_lookup.__doc__ = ENTITY_LOOKUP_DOC.format(max_facts=max_facts)
    return entity_lookup


def top_entities(
    store: GraphStore, query: str, k: int, searcher: Searcher | None
) -> Sequence[EntityView]:
    """The views of the top ``k`` candidates (for the agent's prefetch)."""
    return [entity_view(store, e) for e in find_candidates(store, query, k, searcher)]
