"""Subject repairs: which person or thing a fact is about (the speaker, the listener, a
relative the turn introduces, or the thing that is its value), since a small model files
facts on whoever is in view."""

from __future__ import annotations

import re
from typing import Final

from apexmem_neo.construction.candidates import to_snake_case
from apexmem_neo.construction.faithful import (
    addressed,
    concept_said_as_mine,
    mentions,
    relation_value,
    said_as_name,
    said_of_self,
    third_party_owner,
    third_person,
)
from apexmem_neo.construction.turn_state import LISTENER_WORDS, SPEAKER_WORDS, WORLD, TurnState
from apexmem_neo.llm.extract_event import ExtractedFact
from apexmem_neo.ontology import DType, EntityType
from apexmem_neo.ontology.ids import normalize_text
from apexmem_neo.ontology.lexicon import PEOPLE_ONLY, common_property

TRUE_WORDS: Final = frozenset({"true", "yes"})
"""A flag value a small model gives an attribute it filed on its own value."""
_FIRST_PERSON: Final = re.compile(
    r"\b(" + "|".join(sorted(SPEAKER_WORDS - {"speaker"})) + r")\b", re.IGNORECASE
)
"""A speaker word anywhere in the turn ("I'm" matches on "I")."""


def subject_name(state: TurnState, fact: ExtractedFact) -> str | None:
    """The person or thing the fact is about, as the turn's own words allow, or None.

    A small model files facts on whoever is in view: the value as its own subject ("I
    live in Denver" -> ``Denver.location``), the listener for the speaker's own news,
    someone from earlier turns the turn does not name, or the speaker for a relative's
    news ("my sister Maya moved to Boston"). Each rewrite is recorded as a decision.
    """
    speaker, listener, text = state.item.speaker, state.item.listener, state.item.text
    if speaker == WORLD:
        return fact.subject
    folded = normalize_text(fact.subject)
    is_speaker = folded in SPEAKER_WORDS or folded == normalize_text(speaker)
    is_listener = folded in LISTENER_WORDS or bool(listener and folded == normalize_text(listener))
    own_value = normalize_text(fact.subject) == normalize_text(str(fact.value))
    if own_value and _FIRST_PERSON.search(text):
        return _rewrite_subject(state, fact, speaker, "subject equals its value")
    if is_speaker:
        owner = third_party_owner(text, speaker, listener, fact.value)
        if owner is not None and not relation_value(fact.value, text):
            state.people.add(owner)
            return _rewrite_subject(state, fact, owner, "a relative's news told without 'I'")
        return fact.subject
    if is_listener:
        if concept_said_as_mine(text, fact.property, fact.value):
            return _rewrite_subject(state, fact, speaker, "the turn says 'my' of this concept")
        if said_of_self(fact.value, text, listener):
            return _rewrite_subject(state, fact, speaker, "its value is said with 'I', not 'you'")
        if addressed(text, listener):
            return fact.subject
        return _unnamed_subject(state, fact, "the turn does not speak to the listener")
    if mentions(text, fact.subject) or third_person(text):
        return fact.subject
    return _unnamed_subject(state, fact, "the turn does not name the subject")


def _unnamed_subject(state: TurnState, fact: ExtractedFact, why: str) -> str | None:
    """A subject the turn does not speak of: the speaker's when they speak of themself."""
    if _FIRST_PERSON.search(state.item.text):
        return _rewrite_subject(state, fact, state.item.speaker, why + "; a first-person turn")
    state.drop(fact, why)
    return None


def _rewrite_subject(state: TurnState, fact: ExtractedFact, subject: str, why: str) -> str:
    if normalize_text(subject) != normalize_text(fact.subject):
        state.resolver.record(
            state.item.turn().turn_id,
            "subject",
            f"{fact.subject}.{fact.property}",
            "choose_existing",
            chosen=subject,
            via="rule",
            rationale=why,
        )
    return subject


def subject_type(subject: str, extraction_types: dict[str, EntityType]) -> EntityType:
    return extraction_types.get(normalize_text(subject), EntityType.CONCEPT)


def value_filed_as_subject(
    state: TurnState, fact: ExtractedFact, types: dict[str, EntityType]
) -> ExtractedFact:
    """The speaker's fact when the model filed a personal attribute on the thing that is
    its value: "Whenever we go out I pick Cardamom Grill; best restaurant around" came
    out as ``Cardamom Grill.favourite_restaurant = "best restaurant around"``, which is
    the speaker's ``favourite_restaurant = Cardamom Grill``. A value that is a name
    stays on its subject (``Cardamom Grill.lives_in = Denver``), except for a concept
    only people hold (``PEOPLE_ONLY``): "now Lemongrass Shack is only my second choice"
    as ``Lemongrass Shack.favourite_restaurant = Pelmeni Point`` is the speaker's
    ``favourite_restaurant = Pelmeni Point``."""
    if not isinstance(fact.value, str) or not _thing_the_speaker_names(state, fact, types):
        return fact
    text, speaker = state.item.text, state.item.speaker
    if not said_as_name(fact.value, text):
        _rewrite_subject(state, fact, speaker, f"{fact.subject!r} is the value, not the subject")
        return fact.model_copy(update={"subject": speaker, "value": fact.subject})
    if to_snake_case(fact.property) in PEOPLE_ONLY or (
        (common := common_property(to_snake_case(fact.property))) is not None
        and common.name in PEOPLE_ONLY
    ):
        _rewrite_subject(state, fact, speaker, f"only a person holds {fact.property!r}")
        return fact.model_copy(update={"subject": speaker})
    return fact


def flag_filed_on_value(
    state: TurnState, fact: ExtractedFact, types: dict[str, EntityType]
) -> ExtractedFact:
    """The speaker's fact when the model filed a personal attribute on its value as a
    flag: "Lemongrass Shack is my absolute favourite" as ``Lemongrass
    Shack.favourite_restaurant = true`` is the speaker's ``favourite_restaurant =
    Lemongrass Shack``."""
    flag = fact.value is True or (
        isinstance(fact.value, str) and normalize_text(fact.value) in TRUE_WORDS
    )
    if not flag or not _thing_the_speaker_names(state, fact, types):
        return fact
    _rewrite_subject(
        state, fact, state.item.speaker, f"{fact.subject!r} is the value, not a flag's subject"
    )
    return fact.model_copy(
        update={"subject": state.item.speaker, "value": fact.subject, "dtype": DType.STR}
    )


def _thing_the_speaker_names(
    state: TurnState, fact: ExtractedFact, types: dict[str, EntityType]
) -> bool:
    """Whether the fact is a personal attribute (one whose values name things,
    ``CommonProperty.names_a_thing``) filed on a thing a first-person turn names: not a
    person the turn or memory knows, not a relative it introduces, not a speaker."""
    text, speaker = state.item.text, state.item.speaker
    folded = normalize_text(fact.subject)
    common = common_property(to_snake_case(fact.property))
    if speaker == WORLD or common is None or not common.names_a_thing:
        return False  # "My cousin Rosa has taken up birdwatching": Rosa is no hobby
    if relation_value(fact.subject, text):
        return False  # "my partner Sam": a person the turn introduces
    if folded in SPEAKER_WORDS | LISTENER_WORDS or folded in {
        normalize_text(n) for n in (speaker, state.item.listener or "")
    }:
        return False
    if types.get(folded) == EntityType.PERSON or fact.subject in state.people:
        return False
    return bool(_FIRST_PERSON.search(text)) and mentions(text, fact.subject)
