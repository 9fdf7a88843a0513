"""Noise: which extracted facts hold nothing the turn states (a speech act, an empty value,
the photo markup, a value the turn does not say or denies), so that they are dropped before
they crowd search."""

from __future__ import annotations

import re
from typing import Final

from apexmem_neo.construction.candidates import stored_property_name, to_snake_case
from apexmem_neo.construction.faithful import (
    DATE_PROPERTY,
    is_clause,
    is_iso_date,
    names_its_property,
    names_someone_else,
    negated,
    value_said,
)
from apexmem_neo.construction.loaders import PHOTO_WORDS, TurnInput
from apexmem_neo.llm.extract_event import ExtractedFact
from apexmem_neo.ontology.ids import normalize_text

SPEECH_ACTS: Final = frozenset(
    {"greeting", "greetings", "thank_you", "thanks", "gratitude", "goodbye", "farewell",
     "acknowledgement", "acknowledgment", "reply", "response", "listener", "speaker", "text",
     "message", "utterance", "statement", "question", "news", "addressee"}
)  # fmt: skip
"""Properties naming the act of speaking, not the subject: a small model stores "Hey!" as
``greeting`` and "Thanks!" as ``thank_you``, noise that crowds search."""
_SHARING_ACT: Final = re.compile(
    r"^(shared?|sharing|sends?|sent|showed|shows?)_|photo|picture|image"
)
"""Properties naming the act of sharing a photo ("shared_photo", "shared_memory"): the photo
caption a chat app adds is not something the speaker said about anyone."""
NO_VALUE: Final = frozenset({"", "none", "null", "n/a", "unknown"})
"""Values that say there is no value (the model wrote ``job_loss = "None"``)."""
UNSAID: Final = "is not said in this turn"
_NAMES_AN_ENDING: Final = re.compile(
    r"\b(?:loss|lost|former|ex|previous|past|old|quit|left|ended|resigned|fired|laid)\b"
)
"""Words of a property name that say its value is over already (``job_loss``, ``ex``): its
value said beside an ending ("I lost my job as a banker") is the fact itself."""


def noise_reason(fact: ExtractedFact) -> str | None:
    """Why a fact holds nothing to remember (a speech act or an empty value), or None."""
    name = stored_property_name(fact.property)
    if name in SPEECH_ACTS or _SHARING_ACT.search(name):
        return f"{fact.property!r} is a speech act, not a property of {fact.subject!r}"
    if isinstance(fact.value, str) and normalize_text(fact.value) in NO_VALUE:
        return f"the value {fact.value!r} says there is no value"
    if isinstance(fact.value, str) and PHOTO_WORDS in fact.value.casefold():
        return f"the value {fact.value!r} is the photo's markup, not something said"
    return None


def unfaithful(fact: ExtractedFact, item: TurnInput) -> str | None:
    """Why the turn does not state the fact (its value unsaid, or denied), or None."""
    text, name = item.text, to_snake_case(fact.property)
    if is_iso_date(fact.value) and DATE_PROPERTY.search(name):
        return None  # an ISO date the model grounded itself: its time words are checked
    if names_its_property(fact.value, name):
        return f"the value {fact.value!r} only repeats the property's name"
    if isinstance(fact.value, str) and is_clause(fact.value):
        return f"the value {fact.value!r} is a clause, not a value"
    if name == "name" and names_someone_else(fact, item):
        return f"{fact.value!r} is not {fact.subject}'s name"
    if not value_said(fact.value, text, name):
        return f"the value {fact.value!r} {UNSAID}"
    if negated(fact.value, text) and not _NAMES_AN_ENDING.search(name.replace("_", " ")):
        return f"the value {fact.value!r} is denied or left in this turn"
    return None
