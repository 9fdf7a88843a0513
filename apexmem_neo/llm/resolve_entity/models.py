"""Output type of ResolveEntity."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from apexmem_neo.llm.coerce import (
    Confidence,
    EntityTypeField,
    QuoteText,
    ShortText,
    cut_to,
)

Decision = Literal["choose_existing", "propose_new", "none"]


class EntityDecision(BaseModel):
    """Which known entity a mention refers to, or that it is new, or not an entity at all."""

    decision: Decision
    candidate: int | None = Field(description="number of the chosen candidate, or null")
    name: ShortText = Field(description="normalised name")
    aliases: Annotated[list[ShortText], cut_to(6), Field(max_length=6)] = []
    type: EntityTypeField
    confidence: Confidence
    rationale: QuoteText = Field(description="one short sentence")
