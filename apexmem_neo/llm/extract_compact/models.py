"""Output types of ExtractCompact: one event per turn with its mentions and facts, compactly.

Compact on purpose: every field here is generated token by token on the local model, so it
holds only what the merge step uses. Dtypes are inferred from the value and the property
catalog, dates are grounded from the time words by rules, and the evidence is the sentence
the quote starts; none of them is generated.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from apexmem_neo.llm.coerce import EntityTypeField, OptionalShortText, ShortText, cut_to
from apexmem_neo.llm.extract_event.models import FactValue

MAX_FACTS = 5
MAX_MENTIONS = 5
QUOTE_START_CHARS = 32
QuoteStart = Annotated[str, cut_to(QUOTE_START_CHARS), Field(max_length=QUOTE_START_CHARS)]


class Mention(BaseModel):
    """Someone or something the turn mentions, besides its speaker and listener."""

    name: ShortText
    type: EntityTypeField


class CompactFact(BaseModel):
    """subject's property has value; when: the time words as said; quote: where it is said."""

    subject: ShortText
    property: ShortText
    value: FactValue
    when: OptionalShortText = None
    quote: QuoteStart = Field(description="the first words of the sentence saying it, exactly")


class CompactEvent(BaseModel):
    """What the turn reports, the others it names and the facts it states."""

    event: ShortText
    mentions: Annotated[list[Mention], cut_to(MAX_MENTIONS), Field(max_length=MAX_MENTIONS)] = []
    facts: Annotated[list[CompactFact], cut_to(MAX_FACTS), Field(max_length=MAX_FACTS)] = []
