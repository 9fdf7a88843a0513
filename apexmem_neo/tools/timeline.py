"""Timeline: one (entity, property) history with read-time intervals, changes and an as-of value.

An optional fifth tool beyond the paper's four (for ablations): it hands the agent the
store's own temporal operators (``history``, ``changes``, ``as_of``) so that a small model
need not write the as-of query itself. Entities are found as EntityLookup finds them (an id,
or search and name matching); an unknown property lists the entity's properties.
"""

from __future__ import annotations

from collections.abc import Callable

from apexmem_neo.ontology.types import normalize_time
from apexmem_neo.store.protocol import FactRecord, GraphStore
from apexmem_neo.tools import markdown
from apexmem_neo.tools.entity_lookup import EARLIEST, LATEST, Searcher, find_candidates

CELL = 120

TIMELINE_DOC = """Show one property's full history for one entity, oldest first.

Args:
    entity: the entity's name or id, e.g. "Alice".
    property: the snake_case property name, e.g. "favourite_restaurant" (EntityLookup and
        SchemaViewer show the names).
    as_of: optional date (YYYY-MM-DD): also say which value held on that date.

Each value holds from its t_from until the next value's t_from ("now" for the last one).
Also lists when the value changed (old -> new) and how many times.
"""


def _intervals(history: list[FactRecord]) -> list[tuple[str, str, str, str]]:
    rows = []
    for i, fact in enumerate(history):
        nxt = history[i + 1].t_from if i + 1 < len(history) else None
        until = fact.t_to or nxt or "now"
        rows.append((fact.t_from, until, str(fact.value), fact.fact_id))
    return rows


def timeline(
    store: GraphStore,
    entity: str,
    property: str,
    as_of: str | None = None,
    searcher: Searcher | None = None,
    max_facts: int = 30,
) -> str:
    """The Timeline tool's markdown (errors as text the agent can act on)."""
    found = store.get_entity(entity) if entity.strip() else None
    if found is None:
        candidates = find_candidates(store, entity, 1, searcher) if entity.strip() else []
        if not candidates:
            return f"No entity matches {entity!r}. Use EntityLookup or Search to find its name."
        found = candidates[0]
    history = store.history(found.entity_id, property)
    if not history:
        known = sorted({f.property for f in store.facts_between(found.entity_id, EARLIEST, LATEST)})
        return (
            f"{found.name} ({found.entity_id}) has no facts for property {property!r}. "
            f"Its properties: {', '.join(known) or '(none)'}."
        )
    lines = [f"# {found.name} · {property} ({len(history)} facts, id {found.entity_id})", ""]
    shown = _intervals(history)[-max_facts:]
    lines.append(markdown.table(("t_from", "held_until", "value", "fact_id"), shown, CELL))
    changes = store.changes(found.entity_id, property)
    lines += ["", f"Changed {len(changes)} time(s):"]
    lines += [f"- {c.changed_at}: {c.old_value} -> {c.new_value}" for c in changes[-max_facts:]]
    if as_of:
        try:
            when = normalize_time(as_of)
        except (ValueError, TypeError):
            return "\n".join(lines) + f"\n\nas_of {as_of!r} is not a date; use YYYY-MM-DD."
        held = store.as_of(found.entity_id, property, when[:10] + "T23:59:59")
        lines += ["", f"Value on {as_of}: {held.value if held else 'nothing recorded yet'}"]
    return "\n".join(lines)


def timeline_tool(
    store: GraphStore, searcher: Searcher | None = None, max_facts: int = 30
) -> Callable[..., str]:
    """The agent's ``Timeline(entity, property, as_of)`` bound to ``store``."""

    def timeline_(entity: str, property: str, as_of: str | None = None) -> str:
        return timeline(store, entity, property, as_of, searcher, max_facts)

    timeline_.__name__ = timeline_.__qualname__ = "Timeline"
    timeline_.__doc__ = TIMELINE_DOC
    return timeline_
