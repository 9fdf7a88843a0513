"""Rows as column tuples / dicts: one mapping shared by every backend.

``batch_tuples`` turns a ``GraphBatch`` into, per table, a list of value tuples in
``COLUMNS`` order (SQLite inserts them with positional parameters, the cheapest binding);
``batch_columns`` zips the same tuples with the column names into ``{column: value}`` dicts,
which Neo4j sets as node properties (UNWIND $rows). So SQL columns and graph properties are
the same names and the same values by construction. The ``*_from_row`` functions go the
other way, from any mapping of those columns.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any, Final, Generic, TypeVar

from pydantic import BaseModel

from apexmem_neo.ontology import (
    DType,
    Entity,
    EntityType,
    Event,
    EventParticipant,
    Evidence,
    Fact,
    GraphBatch,
    Property,
    Role,
    Session,
    Turn,
)
from apexmem_neo.ontology.ids import property_id
from apexmem_neo.ontology.metadata import metadata_json, read_metadata
from apexmem_neo.store.protocol import FactRecord

COLUMNS: Final[dict[str, tuple[str, ...]]] = {
    "sessions": ("session_id", "conversation_id", "seq", "started_at", "recorded_at", "scope"),
    "turns": (
        "turn_id",
        "session_id",
        "seq",
        "speaker",
        "listener",
        "text",
        "anchor_datetime",
        "recorded_at",
        "scope",
        "metadata_json",
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
        "scope",
    ),
    "properties": (
        "property_id",
        "name",
        "dtype",
        "enum_values_json",
        "description",
        "recorded_at",
        "scope",
    ),
    "evidence": (
        "evidence_id",
        "turn_id",
        "text",
        "span_start",
        "span_end",
        "recorded_at",
        "scope",
    ),
    "events": (
        "event_id",
        "event_type",
        "anchor_datetime",
        "location",
        "turn_id",
        "evidence_id",
        "recorded_at",
        "scope",
    ),
    "event_participants": ("event_id", "entity_id", "role", "recorded_at", "scope"),
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
        "scope",
    ),
}
"""Column names per table, in SQL order; also the Neo4j node / relationship properties.
Every row holds the scope it belongs to (``GraphBatch.scope``), after the table's first
columns; a column a later migration added (a turn's ``metadata_json``) follows it, as in the
SQLite table."""

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
Values = tuple[Any, ...]

_ENUM_VALUES: Final[dict[object, str]] = {
    member: member.value for enum in (DType, EntityType, Role) for member in enum
}
"""Enum member -> its value, a dict lookup (``member.value`` goes through a descriptor)."""


def _leading_fields(table: str) -> Callable[[Any], Values]:
    """The attributes a model of ``table`` stores as they are: its columns before
    ``recorded_at`` (which takes the batch's default when unset), read in one call."""
    columns = COLUMNS[table]
    return attrgetter(*columns[: columns.index("recorded_at")])


_SESSION_FIELDS: Final = _leading_fields("sessions")
_TURN_FIELDS: Final = _leading_fields("turns")
_EVIDENCE_FIELDS: Final = _leading_fields("evidence")
_EVENT_FIELDS: Final = _leading_fields("events")


def session_values(s: Session, default: str, scope: str) -> Values:
    return (*_SESSION_FIELDS(s), s.recorded_at or default, scope)


def turn_values(t: Turn, default: str, scope: str) -> Values:
    return (*_TURN_FIELDS(t), t.recorded_at or default, scope, metadata_json(t.metadata))


def entity_values(e: Entity, default: str, scope: str) -> Values:
    return (
        e.entity_id,
        e.name,
        e.norm_name,
        _ENUM_VALUES[e.entity_type],
        _ENUM_VALUES[e.role],
        json.dumps(list(e.aliases), ensure_ascii=False),
        e.description,
        e.recorded_at or default,
        scope,
    )


def property_values(p: Property, default: str, scope: str) -> Values:
    return (
        p.property_id,
        p.name,
        _ENUM_VALUES[p.dtype],
        json.dumps(list(p.enum_values), ensure_ascii=False),
        p.description,
        p.recorded_at or default,
        scope,
    )


def evidence_values(e: Evidence, default: str, scope: str) -> Values:
    return (*_EVIDENCE_FIELDS(e), e.recorded_at or default, scope)


def event_values(e: Event, default: str, scope: str) -> Values:
    return (*_EVENT_FIELDS(e), e.recorded_at or default, scope)


def participant_values(p: EventParticipant, default: str, scope: str) -> Values:
    return (p.event_id, p.entity_id, _ENUM_VALUES[p.role], p.recorded_at or default, scope)


def fact_tuples(facts: list[Fact], default: str, scope: str) -> list[Values]:
    """The facts table's tuples; the hot path of ingest, so one comprehension, no calls."""
    pid, enum_value = property_id, _ENUM_VALUES
    return [
        (
            f.fact_id,
            f.entity_id,
            pid(f.property, scope),
            f.property,
            f.value_json,
            enum_value[f.dtype],
            f.t_from,
            f.t_to,
            f.confidence,
            f.event_id,
            f.evidence_id,
            f.recorded_at or default,
            scope,
        )
        for f in facts
    ]


def batch_tuples(batch: GraphBatch, default_recorded_at: str) -> dict[str, list[Values]]:
    """Per table (in write order), the rows of ``batch`` as tuples in ``COLUMNS`` order."""
    d, s = default_recorded_at, batch.scope
    return {
        "sessions": [session_values(x, d, s) for x in batch.sessions],
        "turns": [turn_values(x, d, s) for x in batch.turns],
        "entities": [entity_values(x, d, s) for x in batch.entities],
        "properties": [property_values(x, d, s) for x in batch.properties],
        "evidence": [evidence_values(x, d, s) for x in batch.evidence],
        "events": [event_values(x, d, s) for x in batch.events],
        "event_participants": [participant_values(x, d, s) for x in batch.participants],
        "facts": fact_tuples(batch.facts, d, s),
    }


def batch_columns(batch: GraphBatch, default_recorded_at: str) -> dict[str, list[Row]]:
    """Per table (in write order), the rows of ``batch`` as ``{column: value}`` dicts."""
    return {
        table: [dict(zip(COLUMNS[table], values, strict=True)) for values in rows]
        for table, rows in batch_tuples(batch, default_recorded_at).items()
    }


Model = TypeVar("Model", bound=BaseModel)


class RowReader(Generic[Model]):
    """Reads rows of one table as ``model``: every column it has a field for, plus the
    ``derived`` fields a reader computes from other columns. The columns are found once, here,
    and a row is validated as one dict, so a read pays only for its values."""

    __slots__ = ("_validate", "columns")

    def __init__(self, model: type[Model], table: str, derived: tuple[str, ...] = ()) -> None:
        self.columns = tuple(
            c for c in COLUMNS[table] if c in model.model_fields and c not in derived
        )
        self._validate: Callable[[dict[str, Any]], Model] = (
            model.__pydantic_validator__.validate_python
        )

    def read(self, row: Mapping[str, Any], derived: Mapping[str, Any] | None = None) -> Model:
        """``model`` from ``row`` and the ``derived`` fields (validated as a constructor call
        would: the same model, values and errors)."""
        fields = {column: row[column] for column in self.columns}
        if derived:
            fields.update(derived)
        return self._validate(fields)


_FACT: Final = RowReader(FactRecord, "facts", ("value",))
_PROPERTY: Final = RowReader(Property, "properties", ("enum_values", "description"))
_ENTITY: Final = RowReader(Entity, "entities", ("aliases",))
_EVENT: Final = RowReader(Event, "events")
_SESSION: Final = RowReader(Session, "sessions")
_TURN: Final = RowReader(Turn, "turns", ("metadata",))
_EVIDENCE: Final = RowReader(Evidence, "evidence")
_PARTICIPANT: Final = RowReader(EventParticipant, "event_participants")


def fact_from_row(row: Mapping[str, Any]) -> FactRecord:
    return _FACT.read(row, {"value": json.loads(row["value_json"])})


def fact_model_from_row(row: Mapping[str, Any]) -> Fact:
    """The ontology ``Fact`` (validated again) for code that builds documents or batches;
    ``fact_from_row`` gives the lighter read-side ``FactRecord``."""
    return fact_model(fact_from_row(row))


def fact_model(record: FactRecord) -> Fact:
    """The ontology ``Fact`` of a stored fact (an enum's allowed values are not stored: its
    own value stands for them)."""
    enum = (str(record.value),) if record.dtype == "enum" else ()
    return Fact(**record.model_dump(exclude={"value_json"}), enum_values=enum)


def property_from_row(row: Mapping[str, Any]) -> Property:
    enum_values = tuple(json.loads(row["enum_values_json"] or "[]"))
    description = row["description"] or ""
    return _PROPERTY.read(row, {"enum_values": enum_values, "description": description})


def entity_from_row(row: Mapping[str, Any]) -> Entity:
    return _ENTITY.read(row, {"aliases": tuple(json.loads(row["aliases_json"]))})


def event_from_row(row: Mapping[str, Any]) -> Event:
    return _EVENT.read(row)


def session_from_row(row: Mapping[str, Any]) -> Session:
    return _SESSION.read(row)


def turn_from_row(row: Mapping[str, Any]) -> Turn:
    return _TURN.read(row, {"metadata": read_metadata(row["metadata_json"])})


def evidence_from_row(row: Mapping[str, Any]) -> Evidence:
    return _EVIDENCE.read(row)


def participant_from_row(row: Mapping[str, Any]) -> EventParticipant:
    return _PARTICIPANT.read(row)


FROM_ROW: Final[dict[str, Callable[[Mapping[str, Any]], BaseModel]]] = {
    "sessions": session_from_row,
    "turns": turn_from_row,
    "entities": entity_from_row,
    "properties": property_from_row,
    "evidence": evidence_from_row,
    "events": event_from_row,
    "event_participants": participant_from_row,
    "facts": fact_from_row,
}
"""Per table, the model a row reads back as, every column the model has (the read side of
``batch_tuples``; facts as ``FactRecord``)."""
