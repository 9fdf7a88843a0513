"""ExtractCompact's events in the form the merge step reads (an ExtractedEvent).

The compact event leaves out what the merge can find itself: a fact's dtype is inferred from
its value (the property catalog has the last word), its dates are grounded from its time
words by rules, and its evidence is the sentence of the turn that best holds its value.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from apexmem_neo.construction.candidates import infer_dtype
from apexmem_neo.llm.extract_compact import CompactEvent, CompactFact
from apexmem_neo.llm.extract_event import ExtractedEvent, ExtractedFact

FACT_CONFIDENCE = 0.9
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, each with its closing punctuation, in order."""
    found, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        found.append(text[start : end.end()].strip())
        start = end.end()
    found.append(text[start:].strip())
    return [sentence for sentence in found if sentence]


def sentence_holding(fact: CompactFact, text: str) -> str:
    """The sentence of ``text`` that best holds ``fact``: its value's words weigh most, then
    its property's and subject's, and a sentence with the fact's time words wins a tie."""
    candidates = sentences(text)
    if len(candidates) <= 1:
        return text.strip()
    value = "" if isinstance(fact.value, bool) else str(fact.value)
    words = " ".join([fact.property.replace("_", " "), fact.subject])

    def score(sentence: str) -> float:
        folded = sentence.casefold()
        held = 2 * fuzz.partial_ratio(value.casefold(), folded) if value else 0.0
        said = fuzz.token_set_ratio(words.casefold(), folded)
        timed = 50.0 if fact.when and fact.when.casefold() in folded else 0.0
        return held + said + timed

    return max(candidates, key=score)


def as_extracted(event: CompactEvent, text: str) -> ExtractedEvent:
    """``event`` as an ExtractedEvent; its time words are those of its first dated fact, and
    its participants are the speaker and listener only (the facts' subjects join as such)."""
    facts = [_fact(fact, text) for fact in event.facts]
    when = next((fact.when for fact in event.facts if fact.when), None)
    return ExtractedEvent(type=event.event, when=when, participants=[], facts=facts)


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
        evidence=sentence_holding(fact, text),
    )
