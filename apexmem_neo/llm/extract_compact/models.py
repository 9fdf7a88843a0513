"""Output types of ExtractCompact: one event per turn with its facts, compactly.

Compact on purpose: every field here is generated token by token on the local model, so it
holds only what the merge step cannot find itself. Dtypes are inferred from the value and the
property catalog, dates are grounded from the time words by rules, the evidence is the
sentence of the turn that holds the value, and the entities are the facts' subjects (typed by
memory); none of them is generated.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from apexmem_neo.llm.coerce import OptionalShortText, ShortText, cut_to
from apexmem_neo.llm.extract_event.models import FactValue

MAX_FACTS = 5


class CompactFact(BaseModel):
    """subject's property has value; when: the time words as said."""

    subject: ShortText
    property: ShortText
    value: FactValue
    when: OptionalShortText = None


class CompactEvent(BaseModel):
    """What the turn reports and the facts it states."""

    event: ShortText
    facts: Annotated[list[CompactFact], cut_to(MAX_FACTS), Field(max_length=MAX_FACTS)] = []
