"""Timeline: one (entity, property) history with read-time intervals, changes and an as-of value.

An optional fifth tool beyond the paper's four (for ablations): it hands the agent the
store's own temporal operators (``history``, ``changes``, ``as_of``) so that a small model
need not write the as-of query itself. The entity and the property are resolved as every
read resolves them (``apexmem_neo.tools.names``): "favorite restaurant" finds
``favourite_restaurant``; an unknown or ambiguous entity, or a property the entity has no
facts for, answers with the names to choose from instead.
"""

from __future__ import annotations

from collections.abc import Callable

from apexmem_neo.errors import AmbiguousEntityError
from apexmem_neo.ontology import Entity, value_text
from apexmem_neo.ontology.types import normalize_time
from apexmem_neo.store.protocol import FactRecord, GraphStore, held_until
from apexmem_neo.tools import markdown
from apexmem_neo.tools.entity_lookup import no_entity
from apexmem_neo.tools.names import entity_properties, match_property, resolve_entity
from apexmem_neo.tools.result import ToolResult

CELL = 120

TIMELINE_DOC = """Show one property's full history for one entity, oldest first.

Args:
    entity: the entity's name or id, e.g. "Alice".
    property: the property name, e.g. "favourite_restaurant" (EntityLookup and SchemaViewer
        show the names; other spellings such as "favorite restaurant" are understood).
    as_of: optional date (YYYY-MM-DD): also say which value held on that date.

Each value holds from its t_from until the next value's t_from ("now" for the last one).
Also lists when the value changed (old -> new) and how many times.
"""


def _intervals(history: list[FactRecord]) -> list[tuple[str, str, str, str]]:
    ends = held_until(history)
    return [
        (f.t_from, end, value_text(f.value), f.fact_id)
        for f, end in zip(history, ends, strict=True)
    ]


def _entity(store: GraphStore, name: str) -> Entity | str:
    """The entity ``name`` names, or the text to answer instead."""
    try:
        return resolve_entity(store, name)
    except AmbiguousEntityError as exc:
        return f"{exc} Ask Timeline again with one of them."
    except LookupError:
        return no_entity(store, name)


def timeline(
    store: GraphStore, entity: str, property: str, as_of: str | None = None, max_facts: int = 30
) -> ToolResult:
    """The Timeline tool's answer. An unknown entity or property is an answer too (the
    names to choose from), so the result never holds an error."""
    return ToolResult(_timeline_text(store, entity, property, as_of, max_facts))


def _timeline_text(
    store: GraphStore, entity: str, property: str, as_of: str | None, max_facts: int
) -> str:
    """The history table, the changes and the as-of value, or the names to choose from."""
    found = _entity(store, entity)
    if isinstance(found, str):
        return found
    known = entity_properties(store, found.entity_id)
    resolved = match_property(property, known)
    history = store.history(found.entity_id, resolved) if resolved is not None else []
    if resolved is None or not history:
        return (
            f"{found.name} ({found.entity_id}) has no facts for property {property!r}. "
            f"Its properties: {', '.join(sorted(known)) or '(none)'}."
        )
    property = resolved
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
        lines += [
            "",
            f"Value on {as_of}: {value_text(held.value) if held else 'nothing recorded yet'}",
        ]
    return "\n".join(lines)


def timeline_tool(store: GraphStore, max_facts: int = 30) -> Callable[..., ToolResult]:
    """The agent's ``Timeline(entity, property, as_of)`` bound to ``store``."""

    def timeline_(entity: str, property: str, as_of: str | None = None) -> ToolResult:
        return timeline(store, entity, property, as_of, max_facts)

    timeline_.__name__ = timeline_.__qualname__ = "Timeline"
    timeline_.__doc__ = TIMELINE_DOC
    return timeline_
