"""ExtractCompact's events in the form the merge step reads (an ExtractedEvent).

The compact event leaves out what the merge can find itself: a fact's dtype is inferred from
its value (the property catalog has the last word), its dates are grounded from its time
words by rules, and its evidence is the sentence of the turn that its quote starts.
"""

from __future__ import annotations

import re

from apexmem_neo.construction.candidates import infer_dtype
from apexmem_neo.llm.extract_compact import CompactEvent, CompactFact
from apexmem_neo.llm.extract_event import ExtractedEvent, ExtractedFact
from apexmem_neo.llm.extract_event.models import ExtractedParticipant
from apexmem_neo.ontology import Role

FACT_CONFIDENCE = 0.9
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")


def sentence_from(quote: str, text: str) -> str:
    """The text from where ``quote`` is found to the end of the sentence the quote ends in;
    the quote itself when it is not found (the merge step then locates it loosely)."""
    quote = quote.strip().strip("\"'")
    start = text.casefold().find(quote.casefold()) if quote else -1
    if start < 0:
        return quote
    end = _SENTENCE_END.search(text, start + max(len(quote) - 1, 0))
    return text[start : end.end() if end else len(text)]


def as_extracted(event: CompactEvent, text: str) -> ExtractedEvent:
    """``event`` as an ExtractedEvent; its time words are those of its first dated fact."""
    facts = [_fact(fact, text) for fact in event.facts]
    when = next((fact.when for fact in event.facts if fact.when), None)
    mentions = [
        ExtractedParticipant(name=m.name, type=m.type, role=Role.MENTIONED) for m in event.mentions
    ]
    return ExtractedEvent(type=event.event, when=when, participants=mentions, facts=facts)


def _fact(fact: CompactFact, text: str) -> ExtractedFact:
    return ExtractedFact(
        subject=fact.subject,
        property=fact.property,
        value=fact.value,
        dtype=infer_dtype(fact.value),
        when=fact.when,
        t_from=None,
        t_to=None,
        confidence=FACT_CONFIDENCE,
        evidence=sentence_from(fact.quote, text),
    )
