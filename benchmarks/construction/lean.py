"""A lean form of ExtractCompact's output, for measuring what quotes and mentions cost.

Each fact keeps ``subject, property, value, when`` and drops its ``quote`` (the merge step
would take as evidence the sentence that holds the value); the event drops its ``mentions``
(the facts' subjects still name the entities). ``benchmarks.construction.output_cost`` sends it
as the ``lean`` arm beside the pipeline's own form; the pipeline does not use it.
"""

from __future__ import annotations

from typing import Annotated

import dspy
from pydantic import BaseModel, Field

from apexmem_neo.llm.coerce import OptionalShortText, ShortText
from apexmem_neo.llm.extract_compact import CompactEvent, ExtractCompactSignature
from apexmem_neo.llm.extract_compact.models import MAX_FACTS
from apexmem_neo.llm.extract_event.models import FactValue

INSTRUCTIONS = """Extract one event and its facts from a conversation turn for a temporal memory.
event: what the turn reports, in snake_case. facts: atomic statements about a subject (a name,
never "I" or "you"); property in snake_case, reusing a known property when one fits; value a
bool for yes/no attributes, a number for amounts, else short text. when: the time words
exactly as said ("yesterday", "last May") or null. Greetings and small talk give facts: []."""


class LeanFact(BaseModel):
    """subject's property has value; when: the time words as said."""

    subject: ShortText
    property: ShortText
    value: FactValue
    when: OptionalShortText = None


class LeanEvent(BaseModel):
    """What the turn reports and the facts it states."""

    event: ShortText
    facts: Annotated[list[LeanFact], Field(max_length=MAX_FACTS)] = []


SIGNATURE = ExtractCompactSignature.with_instructions(INSTRUCTIONS).with_updated_fields(
    "event", type_=LeanEvent
)


def lean_demo(demo: dspy.Example) -> dspy.Example:
    """A demonstration of ExtractCompact rewritten in the lean form."""
    event: CompactEvent = demo.event
    lean = LeanEvent(
        event=event.event,
        facts=[
            LeanFact(subject=f.subject, property=f.property, value=f.value, when=f.when)
            for f in event.facts
        ],  # fmt: skip
    )
    return dspy.Example(**{**demo.toDict(), "event": lean}).with_inputs(*demo.inputs().keys())
