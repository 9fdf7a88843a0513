"""Output types of ExtractEvent: one event with its participants and typed facts."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from apexmem_neo.llm.coerce import (
    Confidence,
    DTypeField,
    EntityTypeField,
    OptionalShortText,
    QuoteText,
    RoleField,
    ShortText,
    ValueText,
    cut_to,
)

# Caps (schema maxItems / maxLength, truncating on parse): a turn rarely holds more, and a
# grammar-constrained model that loops stops at them instead of at max_tokens.
MAX_FACTS = 10
MAX_PARTICIPANTS = 6
MAX_LIST_VALUES = 8
FactValue = (
    ValueText
    | int
    | float
    | bool
    | Annotated[list[ValueText], cut_to(MAX_LIST_VALUES), Field(max_length=MAX_LIST_VALUES)]
)


class ExtractedParticipant(BaseModel):
    """Someone or something taking part in the event."""

    name: ShortText
    type: EntityTypeField
    role: RoleField


class ExtractedFact(BaseModel):
    """One atomic statement: subject's property has value, from a time on."""

    subject: ShortText
    property: ShortText
    value: FactValue
    dtype: DTypeField
    when: OptionalShortText = Field(description="time words exactly as said, or null")
    t_from: OptionalShortText = Field(description="ISO date the time words mean, or null")
    t_to: OptionalShortText = Field(description="ISO date it stopped holding, or null")
    confidence: Confidence
    evidence: QuoteText = Field(description="shortest exact quote from the text")


class ExtractedEvent(BaseModel):
    """What the turn reports happened (or, for plain statements, the act of saying it)."""

    type: ShortText
    when: OptionalShortText = None
    time: OptionalShortText = None
    location: OptionalShortText = None
    participants: Annotated[
        list[ExtractedParticipant], cut_to(MAX_PARTICIPANTS), Field(max_length=MAX_PARTICIPANTS)
    ] = []
    facts: Annotated[list[ExtractedFact], cut_to(MAX_FACTS), Field(max_length=MAX_FACTS)] = []
