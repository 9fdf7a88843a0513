"""The APEX-MEM ontology: pydantic data models, enumerations and deterministic ids (no I/O)."""

from apexmem_neo.ontology.models import (
    ENDED,
    Entity,
    Event,
    EventParticipant,
    Evidence,
    Fact,
    GraphBatch,
    Property,
    Session,
    Turn,
    coerce_value,
    value_text,
)
from apexmem_neo.ontology.types import (
    ENTITY_TYPE_DESCRIPTIONS,
    DType,
    EntityType,
    IsoTime,
    Role,
    TimeLike,
    normalize_time,
)

__all__ = [
    "ENDED",
    "ENTITY_TYPE_DESCRIPTIONS",
    "DType",
    "Entity",
    "EntityType",
    "Event",
    "EventParticipant",
    "Evidence",
    "Fact",
    "GraphBatch",
    "IsoTime",
    "Property",
    "Role",
    "Session",
    "TimeLike",
    "Turn",
    "coerce_value",
    "normalize_time",
    "value_text",
]
