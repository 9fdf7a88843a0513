"""The ontology as pydantic data: sessions, turns, entities, properties, events, evidence, facts.

Field names equal the SQL column names and the Neo4j node property names. Ids are filled in
from the content when not given (see ``apexmem_neo.ontology.ids``). Invalid data raises
``pydantic.ValidationError`` whose ``loc`` names the field and whose ``input`` is the value.
"""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Annotated, Any, Final, Self
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from apexmem_neo.ontology import ids
from apexmem_neo.ontology.metadata import Metadata, check_metadata
from apexmem_neo.ontology.types import (
    DType,
    EntityType,
    IsoTime,
    Role,
    check_snake_case,
    normalize_time,
)

NonEmpty = Field(min_length=1)


def _check_enum_values(values: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
    """An enum's allowed values: given for dtype enum only, never the same one twice (the
    model's ``dtype`` field comes before ``enum_values``)."""
    dtype = info.data.get("dtype")
    if dtype == DType.ENUM and not values:
        raise ValueError("dtype 'enum' needs enum_values naming the allowed values")
    if dtype is not None and dtype != DType.ENUM and values:
        raise ValueError(f"enum_values {values!r} given for dtype {dtype.value!r}")
    if len(set(values)) != len(values):
        raise ValueError(f"enum_values {values!r} has duplicates")
    return values


SnakeCaseName = Annotated[str, AfterValidator(check_snake_case)]
"""A property name: snake_case, checked (``check_snake_case``)."""
EnumValues = Annotated[tuple[str, ...], AfterValidator(_check_enum_values)]
"""A property's allowed values, checked against the model's ``dtype``."""


class OntologyModel(BaseModel):
    """Base: unknown fields are errors; fields may be given by name or alias."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)


class Session(OntologyModel):
    """One conversation session (a dataset's numbered session, ``session_N``); ``seq`` orders
    sessions."""

    conversation_id: str = NonEmpty
    seq: int = Field(default=0, ge=0)
    started_at: IsoTime | None = None
    recorded_at: IsoTime | None = None
    session_id: str = ""

    @model_validator(mode="after")
    def _fill_id(self) -> Self:
        if not self.session_id:
            self.session_id = ids.session_id(self.conversation_id, self.seq)
        return self


class Turn(OntologyModel):
    """One utterance; a document stream is turns whose speaker is "World"."""

    session_id: str = NonEmpty
    seq: int = Field(ge=0)
    speaker: str = NonEmpty
    listener: str | None = None
    text: str
    anchor_datetime: IsoTime = Field(validation_alias=AliasChoices("anchor_datetime", "anchor"))
    recorded_at: IsoTime | None = None
    metadata: Metadata = Field(default_factory=dict)
    """The caller's own keys and JSON scalars (``apexmem_neo.ontology.metadata``), stored as
    the column ``metadata_json``; not part of the id, so a turn written again keeps its first."""
    turn_id: str = ""

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata(cls, value: Any) -> Metadata:
        return check_metadata(value)

    @model_validator(mode="after")
    def _fill_id(self) -> Self:
        if not self.turn_id:
            self.turn_id = ids.turn_id(self.session_id, self.seq, self.speaker, self.text)
        return self


class Entity(OntologyModel):
    """e = (name, type, role, id); the id hashes the scope, the type and the normalised name."""

    name: str = NonEmpty
    entity_type: EntityType = Field(validation_alias=AliasChoices("entity_type", "type"))
    role: Role = Role.MENTIONED
    aliases: tuple[str, ...] = ()
    description: str = ""
    recorded_at: IsoTime | None = None
    scope: str = ids.DEFAULT_SCOPE
    entity_id: str = ""

    @model_validator(mode="after")
    def _fill_id(self) -> Self:
        if not self.entity_id:
            self.entity_id = ids.entity_id(self.entity_type.value, self.name, self.scope)
        return self

    @property
    def norm_name(self) -> str:
        return ids.normalize_text(self.name)


class Property(OntologyModel):
    """A snake_case property name with its dtype; an enum lists its allowed values."""

    name: SnakeCaseName
    dtype: DType
    enum_values: EnumValues = Field(default=(), validate_default=True)
    description: str = ""
    recorded_at: IsoTime | None = None
    scope: str = ids.DEFAULT_SCOPE
    property_id: str = ""

    @model_validator(mode="after")
    def _fill_id(self) -> Self:
        if not self.property_id:
            self.property_id = ids.property_id(self.name, self.scope)
        self.property_id = ids.upgraded_id("property", self.property_id)
        return self


class Evidence(OntologyModel):
    """The words that said it: text, the turn, and a [start, end) character span in the turn."""

    text: str = NonEmpty
    turn_id: str | None = None
    span_start: int | None = Field(default=None, ge=0)
    span_end: int | None = Field(default=None, ge=0)
    recorded_at: IsoTime | None = None
    evidence_id: str = ""

    @model_validator(mode="before")
    @classmethod
    def _split_span(cls, data: Any) -> Any:
        # Accept span=(start, end) as the issue spells it; store it as two columns.
        if isinstance(data, dict) and "span" in data:
            data = dict(data)
            span = data.pop("span")
            if span is not None:
                data["span_start"], data["span_end"] = span
        return data

    @field_validator("span_end")
    @classmethod
    def _span_order(cls, end: int | None, info: ValidationInfo) -> int | None:
        start = info.data.get("span_start")
        if (start is None) != (end is None):
            raise ValueError(f"span_end {end!r} and span_start {start!r}: give both or neither")
        if start is not None and end is not None and end < start:
            raise ValueError(f"span_end {end} is before span_start {start}")
        return end

    @model_validator(mode="after")
    def _fill_id(self) -> Self:
        if not self.evidence_id:
            self.evidence_id = ids.evidence_id(
                self.turn_id, self.span_start, self.span_end, self.text
            )
        return self

    @property
    def span(self) -> tuple[int, int] | None:
        if self.span_start is None or self.span_end is None:
            return None
        return (self.span_start, self.span_end)


class Event(OntologyModel):
    """Something that happened at ``anchor_datetime``; facts and participants point at it."""

    event_type: str = Field(min_length=1, validation_alias=AliasChoices("event_type", "type"))
    anchor_datetime: IsoTime = Field(validation_alias=AliasChoices("anchor_datetime", "timestamp"))
    location: str | None = None
    turn_id: str | None = None
    evidence_id: str | None = None
    recorded_at: IsoTime | None = None
    event_id: str = ""

    @model_validator(mode="after")
    def _fill_id(self) -> Self:
        if not self.event_id:
            self.event_id = ids.event_id(
                self.turn_id, self.event_type, self.anchor_datetime, self.location
            )
        return self


class EventParticipant(OntologyModel):
    """(Event)-[:PARTICIPANT {role}]->(Entity); the table event_participants."""

    event_id: str = NonEmpty
    entity_id: str = NonEmpty
    role: Role = Role.MENTIONED
    recorded_at: IsoTime | None = None


class Fact(OntologyModel):
    """f = (subject, property, value, dtype, [t_from, t_to], confidence, evidence).

    ``entity_id`` is the subject (alias ``subject``). The interval is closed; ``t_to`` None
    means open-ended. ``value`` is checked against ``dtype`` and stored normalised (dates as
    ``YYYY-MM-DD``, datetimes in the store's time format, floats as float). ``value`` None is
    an *end*: from ``t_from`` the property holds no value ("I don't live in Boston anymore"),
    so the earlier value stops applying at read time without being overwritten.
    """

    entity_id: str = Field(min_length=1, validation_alias=AliasChoices("entity_id", "subject"))
    property: SnakeCaseName
    dtype: DType
    enum_values: EnumValues = Field(default=(), validate_default=True)
    value: Any
    t_from: IsoTime
    t_to: IsoTime | None = None
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    event_id: str | None = None
    evidence_id: str | None = None
    recorded_at: IsoTime | None = None
    fact_id: str = ""
    value_json: str = Field(default="", exclude=True, repr=False)
    """Derived: the canonical JSON of ``value`` (the column ``value_json``); always recomputed."""

    @field_validator("value")
    @classmethod
    def _value(cls, value: Any, info: ValidationInfo) -> Any:
        dtype = info.data.get("dtype")
        if dtype is None or value is None:  # dtype failed (reported already), or an end
            return value
        return coerce_value(value, dtype, info.data.get("enum_values", ()))

    @field_validator("t_to")
    @classmethod
    def _interval(cls, t_to: str | None, info: ValidationInfo) -> str | None:
        t_from = info.data.get("t_from")
        if t_to is not None and t_from is not None and t_to < t_from:
            raise ValueError(f"t_to {t_to} is before t_from {t_from}")
        return t_to

    @model_validator(mode="after")
    def _fill_id(self) -> Self:
        self.value_json = ids.canonical_json(self.value)
        if not self.fact_id:
            self.fact_id = ids.fact_id(
                self.event_id,
                self.evidence_id,
                self.entity_id,
                self.property,
                self.dtype.value,
                self.value_json,
                self.t_from,
                self.t_to,
            )
        self.fact_id = ids.upgraded_id("fact", self.fact_id)
        return self

    def property_id(self, scope: str = ids.DEFAULT_SCOPE) -> str:
        return ids.property_id(self.property, scope)


def coerce_value(value: Any, dtype: DType, enum_values: tuple[str, ...] = ()) -> Any:
    """Check ``value`` against ``dtype`` and return its normalised form, else ValueError."""
    bad = ValueError(f"value {value!r} is not a valid {dtype.value}")
    if dtype == DType.STR:
        if not isinstance(value, str):
            raise bad
        return value
    if dtype == DType.INT:
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad
        return value
    if dtype == DType.FLOAT:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise bad
        if not math.isfinite(value):
            raise bad
        return float(value)
    if dtype == DType.BOOL:
        if not isinstance(value, bool):
            raise bad
        return value
    if dtype == DType.DATE:
        return _coerce_date(value, bad)
    if dtype == DType.DATETIME:
        if not isinstance(value, str | date):
            raise bad
        return normalize_time(value)
    if dtype == DType.ENUM:
        if not isinstance(value, str) or value not in enum_values:
            raise ValueError(f"value {value!r} is not one of the enum values {list(enum_values)}")
        return value
    if dtype == DType.URL:
        if not isinstance(value, str) or not _is_url(value):
            raise bad
        return value
    return _coerce_list(value, bad)


def _coerce_date(value: Any, bad: ValueError) -> str:
    if isinstance(value, datetime):
        if value.time() != datetime.min.time():
            raise bad
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if not isinstance(value, str):
        raise bad
    try:
        return date.fromisoformat(value.strip()).isoformat()
    except ValueError:
        raise bad from None


def _coerce_list(value: Any, bad: ValueError) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise bad
    items = list(value)
    try:
        ids.canonical_json(items)
    except (TypeError, ValueError):
        raise bad from None
    return items


def _is_url(value: str) -> bool:
    parts = urlsplit(value)
    if not parts.scheme.isalpha():
        return False
    return bool(parts.netloc) or (parts.scheme == "mailto" and bool(parts.path))


class GraphBatch(OntologyModel):
    """Everything one write adds; a store commits a batch whole or not at all.

    Every row of a batch belongs to its ``scope``: the entities and properties it defines must
    name that scope (their ids hash it), and the stores stamp it on every row and node.
    Facts whose property is not listed get a ``Property`` derived from the fact (name, dtype,
    enum values). ``recorded_at`` is the default for rows that do not carry their own; when
    both are missing, the store's clock supplies it at write time.
    """

    sessions: list[Session] = []
    turns: list[Turn] = []
    entities: list[Entity] = []
    properties: list[Property] = []
    evidence: list[Evidence] = []
    events: list[Event] = []
    participants: list[EventParticipant] = []
    facts: list[Fact] = []
    recorded_at: IsoTime | None = None
    scope: str = ids.DEFAULT_SCOPE

    @model_validator(mode="after")
    def _derive_properties(self) -> Self:
        known = {p.name for p in self.properties}
        for fact in self.facts:
            if fact.property not in known:
                known.add(fact.property)
                self.properties.append(
                    Property(
                        name=fact.property,
                        dtype=fact.dtype,
                        enum_values=fact.enum_values,
                        scope=self.scope,
                    )
                )
        return self

    @model_validator(mode="after")
    def _one_scope(self) -> Self:
        rows: list[Entity | Property] = [*self.entities, *self.properties]
        for row in rows:
            if row.scope != self.scope:
                raise ValueError(
                    f"{type(row).__name__} {row.name!r} belongs to scope {row.scope!r}, "
                    f"not to the batch's scope {self.scope!r}"
                )
        return self

    def external_references(self) -> dict[str, set[str]]:
        """Ids this batch points at but does not define, by kind (session, turn, ...)."""
        defined = {
            "session": {s.session_id for s in self.sessions},
            "turn": {t.turn_id for t in self.turns},
            "entity": {e.entity_id for e in self.entities},
            "evidence": {e.evidence_id for e in self.evidence},
            "event": {e.event_id for e in self.events},
        }
        wanted: dict[str, set[str]] = {kind: set() for kind in defined}
        wanted["session"].update(t.session_id for t in self.turns)
        turn_owners: list[Evidence | Event] = [*self.evidence, *self.events]
        wanted["turn"].update(r.turn_id for r in turn_owners if r.turn_id is not None)
        evidence_owners: list[Event | Fact] = [*self.events, *self.facts]
        wanted["evidence"].update(r.evidence_id for r in evidence_owners if r.evidence_id)
        for part in self.participants:
            wanted["entity"].add(part.entity_id)
            wanted["event"].add(part.event_id)
        for fact in self.facts:
            wanted["entity"].add(fact.entity_id)
            if fact.event_id is not None:
                wanted["event"].add(fact.event_id)
        return {kind: ids_ - defined[kind] for kind, ids_ in wanted.items() if ids_ - defined[kind]}


ENDED: Final = "no value (the earlier one ended)"
"""How an end (a fact whose value is None) reads in text for people and the model."""


def value_text(value: Any) -> str:
    """A fact's value as text: an end reads as ``ENDED``."""
    return ENDED if value is None else str(value)
