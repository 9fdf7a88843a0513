"""Output type of ResolveProperty."""

from __future__ import annotations

from pydantic import BaseModel, Field

from apexmem_neo.llm.coerce import (
    Confidence,
    DTypeField,
    QuoteText,
    ShortText,
)
from apexmem_neo.llm.resolve_entity.models import Decision


class PropertyDecision(BaseModel):
    """Which known property a proposed property name means, or that it is a new one."""

    decision: Decision
    candidate: int | None = Field(description="number of the chosen candidate, or null")
    name: ShortText = Field(description="snake_case property name")
    dtype: DTypeField
    confidence: Confidence
    rationale: QuoteText = Field(description="one short sentence")
