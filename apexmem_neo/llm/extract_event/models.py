"""Output types of ExtractEvent: one event with its participants and typed facts."""

from __future__ import annotations

from pydantic import BaseModel, Field

from apexmem_neo.llm.coerce import (
    Confidence,
    DTypeField,
    EntityTypeField,
    OptionalText,
    RoleField,
)

FactValue = str | int | float | bool | list[str]


class ExtractedParticipant(BaseModel):
    """Someone or something taking part in the event."""

    name: str
    type: EntityTypeField
    role: RoleField


class ExtractedFact(BaseModel):
    """One atomic statement: subject's property has value, from a time on."""

    subject: str
    property: str
    value: FactValue
    dtype: DTypeField
    when: OptionalText = Field(description="time words exactly as said, or null")
    t_from: OptionalText = Field(description="ISO date the time words mean, or null")
    t_to: OptionalText = Field(description="ISO date it stopped holding, or null")
    confidence: Confidence
    evidence: str = Field(description="shortest exact quote from the text")


class ExtractedEvent(BaseModel):
    """What the turn reports happened (or, for plain statements, the act of saying it)."""

    type: str
    when: OptionalText = None
    time: OptionalText = None
    location: OptionalText = None
    participants: list[ExtractedParticipant] = []
    facts: list[ExtractedFact] = []
