"""The paper's tables and how they sit in the graph: one mapping for the shim and the schema.

Every table but ``event_participants`` is a label whose nodes carry the table's columns as
properties; ``event_participants`` rows are ``(:Event)-[:PARTICIPANT]->(:Entity)``
relationships carrying the row's columns (see ``apexmem_neo.store.neo4j.store``). Column names
come from ``apexmem_neo.store.columns``; the types and nullability below are those of
``store/sqlite/migrations/0001_initial.sql`` (a unit test checks they agree).
"""

from __future__ import annotations

from typing import Final

from apexmem_neo.store.columns import COLUMNS, PRIMARY_KEYS
from apexmem_neo.store.protocol import TABLES

TABLE_LABELS: Final[dict[str, str]] = {
    "sessions": "Session",
    "turns": "Turn",
    "entities": "Entity",
    "properties": "Property",
    "evidence": "Evidence",
    "events": "Event",
    "facts": "Fact",
}
"""Tables stored as nodes: table -> label."""

RELATIONSHIP_TABLES: Final[dict[str, tuple[str, str, str]]] = {
    "event_participants": ("Event", "PARTICIPANT", "Entity"),
}
"""Tables stored as relationships: table -> (start label, type, end label)."""

QUERYABLE_TABLES: Final[tuple[str, ...]] = TABLES
"""The tables GraphQuery's SQL may read: all of the paper's tables, as the store keeps them."""

SQL_TYPES: Final[dict[str, str]] = {"TEXT": "String", "INTEGER": "Integer", "REAL": "Float"}
"""SQLite declared type -> the Cypher type of the mirrored property."""

INTEGER_COLUMNS: Final = frozenset({"seq", "span_start", "span_end"})
REAL_COLUMNS: Final = frozenset({"confidence"})
NULLABLE_COLUMNS: Final[dict[str, frozenset[str]]] = {
    "sessions": frozenset({"started_at"}),
    "turns": frozenset({"listener"}),
    "entities": frozenset(),
    "properties": frozenset(),
    "evidence": frozenset({"turn_id", "span_start", "span_end"}),
    "events": frozenset({"location", "turn_id", "evidence_id"}),
    "event_participants": frozenset(),
    "facts": frozenset({"t_to", "event_id", "evidence_id"}),
}

INDEX_COMPLETIONS: Final[dict[str, tuple[str, ...]]] = {
    "facts": ("t_from",),
    "turns": ("seq",),
    "event_participants": ("entity_id", "role"),
}
"""NOT NULL columns that complete a composite index of the table (Fact(entity_id, t_from),
Fact(entity_id, property, t_from), Turn(session_id, seq), PARTICIPANT(event_id, entity_id,
role)). Neo4j seeks a composite index only with a predicate on every column, so the shim adds
``x.col IS NOT NULL`` for them: always true for these columns, so no row changes."""

GRAPH_RELATIONSHIPS: Final[tuple[tuple[str, str, str, str], ...]] = (
    ("Turn", "IN_SESSION", "Session", "turns.session_id = sessions.session_id"),
    ("Turn", "NEXT", "Turn", "the next turn of the same session, by (seq, turn_id)"),
    ("Evidence", "FROM_TURN", "Turn", "evidence.turn_id = turns.turn_id"),
    ("Event", "FROM_TURN", "Turn", "events.turn_id = turns.turn_id"),
    ("Event", "SUPPORTED_BY", "Evidence", "events.evidence_id = evidence.evidence_id"),
    ("Event", "PARTICIPANT", "Entity", "one event_participants row {event_id, entity_id, role}"),
    ("Event", "ASSERTS", "Fact", "facts.event_id = events.event_id"),
    ("Fact", "ABOUT", "Entity", "facts.entity_id = entities.entity_id"),
    ("Fact", "SUPPORTED_BY", "Evidence", "facts.evidence_id = evidence.evidence_id"),
)
"""(start label, type, end label, the SQL join it mirrors)."""


def column_type(column: str) -> str:
    """The SQLite declared type of ``column`` (the same name means the same type everywhere)."""
    if column in INTEGER_COLUMNS:
        return "INTEGER"
    if column in REAL_COLUMNS:
        return "REAL"
    return "TEXT"


def is_nullable(table: str, column: str) -> bool:
    return column in NULLABLE_COLUMNS.get(table, frozenset())


def table_columns(table: str) -> tuple[str, ...]:
    return COLUMNS[table]


def primary_key(table: str) -> tuple[str, ...]:
    return PRIMARY_KEYS[table]
