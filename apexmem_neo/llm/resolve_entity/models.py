"""Output type of ResolveEntity."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from apexmem_neo.llm.coerce import Confidence, EntityTypeField

Decision = Literal["choose_existing", "propose_new", "none"]


class EntityDecision(BaseModel):
    """Which known entity a mention refers to, or that it is new, or not an entity at all."""

    decision: Decision
    candidate: int | None = Field(description="number of the chosen candidate, or null")
    name: str = Field(description="normalised name")
    aliases: list[str] = []
    type: EntityTypeField
    confidence: Confidence
    rationale: str = Field(description="one short sentence")
