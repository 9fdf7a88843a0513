"""A positional form of ExtractCompact's output, for measuring what field names cost.

Facts are arrays ``[subject, property, value, sentence, when]`` and mentions ``[name, type]``;
the turn's sentences are numbered ``[1] ... [2] ...`` so that a fact cites its sentence by
number instead of quoting its first words. ``benchmarks.construction.output_cost`` sends it
as the ``positional`` arm beside the pipeline's own form; the pipeline does not use it.
"""

from __future__ import annotations

import re
from typing import Annotated

import dspy
from pydantic import BaseModel, Field

from apexmem_neo.llm.coerce import EntityTypeField, OptionalShortText, ShortText
from apexmem_neo.llm.extract_compact import CompactEvent, ExtractCompactSignature
from apexmem_neo.llm.extract_compact.models import MAX_FACTS, MAX_MENTIONS
from apexmem_neo.llm.extract_event.models import FactValue

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")

INSTRUCTIONS = """Extract one event and its facts from a conversation turn for a temporal memory.
event: what the turn reports, in snake_case. mentions: [name, type] of the people and things
named in the turn other than its speaker and listener. facts: [subject, property, value,
sentence, when], atomic statements: subject a name, never "I" or "you"; property in
snake_case, reusing a known property when one fits; value a bool for yes/no attributes, a
number for amounts, else short text; sentence the number [n] of the text's sentence that says
it; when the time words exactly as said ("yesterday", "last May") or null. Greetings and
small talk give facts: []."""

PositionalFact = tuple[ShortText, ShortText, FactValue, int, OptionalShortText]


class PositionalEvent(BaseModel):
    """One event with its mentions and facts as arrays."""

    event: ShortText
    mentions: Annotated[
        list[tuple[ShortText, EntityTypeField]], Field(max_length=MAX_MENTIONS)
    ] = []
    facts: Annotated[list[PositionalFact], Field(max_length=MAX_FACTS)] = []


SIGNATURE = ExtractCompactSignature.with_instructions(INSTRUCTIONS).with_updated_fields(
    "event", type_=PositionalEvent
)


def sentences(text: str) -> list[str]:
    """The text's sentences, split after ``.``, ``!`` or ``?`` followed by a space."""
    return [s for s in _SENTENCE_BREAK.split(text.strip()) if s]


def numbered(text: str) -> str:
    """The text with each sentence led by its number: ``[1] Hi! [2] I moved.``"""
    return " ".join(f"[{n}] {s}" for n, s in enumerate(sentences(text), start=1))


def sentence_number(quote: str, text: str) -> int:
    """The number of the sentence of ``text`` that ``quote`` starts in (1 when none does)."""
    for n, sentence in enumerate(sentences(text), start=1):
        if quote.casefold() in sentence.casefold():
            return n
    return 1


def positional_demo(demo: dspy.Example) -> dspy.Example:
    """A demonstration of ExtractCompact rewritten in the positional form."""
    event: CompactEvent = demo.event
    text = demo.text
    positional = PositionalEvent(
        event=event.event,
        mentions=[(m.name, m.type) for m in event.mentions],
        facts=[
            (f.subject, f.property, f.value, sentence_number(f.quote, text), f.when)
            for f in event.facts
        ],
    )
    fields = {**demo.toDict(), "text": numbered(text), "event": positional}
    return dspy.Example(**fields).with_inputs(*demo.inputs().keys())
