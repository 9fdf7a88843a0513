"""Rows as column dicts: one mapping shared by every backend.

``batch_columns`` turns a ``GraphBatch`` into, per table, a list of ``{column: value}`` dicts.
SQLite inserts them with named parameters; Neo4j sets them as node properties (UNWIND $rows),
so SQL columns and graph properties are the same names and the same values by construction.
The ``*_from_row`` functions go the other way, from any mapping of those columns.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from apexmem_neo.ontology import (
    Entity,
    Event,
    EventParticipant,
    Evidence,
    Fact,
    GraphBatch,
    Property,
    Session,
    Turn,
)
from apexmem_neo.store.protocol import FactRecord

COLUMNS: Final[dict[str, tuple[str, ...]]] = {
    "sessions": ("session_id", "conversation_id", "seq", "started_at", "recorded_at"),
    "turns": (
        "turn_id",
        "session_id",
        "seq",
        "speaker",
        "listener",
        "text",
        "anchor_datetime",
        "recorded_at",
    ),
    "entities": (
        "entity_id",
        "name",
        "norm_name",
        "entity_type",
        "role",
        "aliases_json",
        "description",
        "recorded_at",
    ),
    "properties": (
        "property_id",
        "name",
        "dtype",
        "enum_values_json",
        "description",
        "recorded_at",
    ),
    "evidence": ("evidence_id", "turn_id", "text", "span_start", "span_end", "recorded_at"),
    "events": (
        "event_id",
        "event_type",
        "anchor_datetime",
        "location",
        "turn_id",
        "evidence_id",
        "recorded_at",
    ),
    "event_participants": ("event_id", "entity_id", "role", "recorded_at"),
    "facts": (
        "fact_id",
        "entity_id",
        "property_id",
        "property",
        "value_json",
        "dtype",
        "t_from",
        "t_to",
        "confidence",
        "event_id",
        "evidence_id",
        "recorded_at",
    ),
}
"""Column names per table, in SQL order; also the Neo4j node / relationship properties."""

PRIMARY_KEYS: Final[dict[str, tuple[str, ...]]] = {
    "sessions": ("session_id",),
    "turns": ("turn_id",),
    "entities": ("entity_id",),
    "properties": ("property_id",),
    "evidence": ("evidence_id",),
    "events": ("event_id",),
    "event_participants": ("event_id", "entity_id", "role"),
    "facts": ("fact_id",),
}

Row = dict[str, Any]


def session_row(s: Session, default: str) -> Row:
    return {
        "session_id": s.session_id,
        "conversation_id": s.conversation_id,
        "seq": s.seq,
        "started_at": s.started_at,
        "recorded_at": s.recorded_at or default,
    }


def turn_row(t: Turn, default: str) -> Row:
    return {
        "turn_id": t.turn_id,
        "session_id": t.session_id,
        "seq": t.seq,
        "speaker": t.speaker,
        "listener": t.listener,
        "text": t.text,
        "anchor_datetime": t.anchor_datetime,
        "recorded_at": t.recorded_at or default,
    }


def entity_row(e: Entity, default: str) -> Row:
    return {
        "entity_id": e.entity_id,
        "name": e.name,
        "norm_name": e.norm_name,
        "entity_type": e.entity_type.value,
        "role": e.role.value,
        "aliases_json": json.dumps(list(e.aliases), ensure_ascii=False),
        "description": e.description,
        "recorded_at": e.recorded_at or default,
    }


def property_row(p: Property, default: str) -> Row:
    return {
        "property_id": p.property_id,
        "name": p.name,
        "dtype": p.dtype.value,
        "enum_values_json": json.dumps(list(p.enum_values), ensure_ascii=False),
        "description": p.description,
        "recorded_at": p.recorded_at or default,
    }


def evidence_row(e: Evidence, default: str) -> Row:
    return {
        "evidence_id": e.evidence_id,
        "turn_id": e.turn_id,
        "text": e.text,
        "span_start": e.span_start,
        "span_end": e.span_end,
        "recorded_at": e.recorded_at or default,
    }


def event_row(e: Event, default: str) -> Row:
    return {
        "event_id": e.event_id,
        "event_type": e.event_type,
        "anchor_datetime": e.anchor_datetime,
        "location": e.location,
        "turn_id": e.turn_id,
        "evidence_id": e.evidence_id,
        "recorded_at": e.recorded_at or default,
    }


def participant_row(p: EventParticipant, default: str) -> Row:
    return {
        "event_id": p.event_id,
        "entity_id": p.entity_id,
        "role": p.role.value,
        "recorded_at": p.recorded_at or default,
    }


def fact_row(f: Fact, default: str) -> Row:
    return {
        "fact_id": f.fact_id,
        "entity_id": f.entity_id,
        "property_id": f.property_id(),
        "property": f.property,
        "value_json": f.value_json,
        "dtype": f.dtype.value,
        "t_from": f.t_from,
        "t_to": f.t_to,
        "confidence": f.confidence,
        "event_id": f.event_id,
        "evidence_id": f.evidence_id,
        "recorded_at": f.recorded_at or default,
    }


def batch_columns(batch: GraphBatch, default_recorded_at: str) -> dict[str, list[Row]]:
    """Per table (in write order), the rows of ``batch`` with ``recorded_at`` filled in."""
    d = default_recorded_at
    return {
        "sessions": [session_row(x, d) for x in batch.sessions],
        "turns": [turn_row(x, d) for x in batch.turns],
        "entities": [entity_row(x, d) for x in batch.entities],
        "properties": [property_row(x, d) for x in batch.properties],
        "evidence": [evidence_row(x, d) for x in batch.evidence],
        "events": [event_row(x, d) for x in batch.events],
        "event_participants": [participant_row(x, d) for x in batch.participants],
        "facts": [fact_row(x, d) for x in batch.facts],
    }


def fact_from_row(row: Mapping[str, Any]) -> FactRecord:
    return FactRecord(
        fact_id=row["fact_id"],
        entity_id=row["entity_id"],
        property=row["property"],
        value=json.loads(row["value_json"]),
        value_json=row["value_json"],
        dtype=row["dtype"],
        t_from=row["t_from"],
        t_to=row["t_to"],
        confidence=row["confidence"],
        event_id=row["event_id"],
        evidence_id=row["evidence_id"],
        recorded_at=row["recorded_at"],
    )


def entity_from_row(row: Mapping[str, Any]) -> Entity:
    return Entity(
        entity_id=row["entity_id"],
        name=row["name"],
        entity_type=row["entity_type"],
        role=row["role"],
        aliases=tuple(json.loads(row["aliases_json"])),
        description=row["description"],
        recorded_at=row["recorded_at"],
    )


def event_from_row(row: Mapping[str, Any]) -> Event:
    return Event(
        event_id=row["event_id"],
        event_type=row["event_type"],
        anchor_datetime=row["anchor_datetime"],
        location=row["location"],
        turn_id=row["turn_id"],
        evidence_id=row["evidence_id"],
        recorded_at=row["recorded_at"],
    )
