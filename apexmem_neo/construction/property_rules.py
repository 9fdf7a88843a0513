"""Property repairs: which property of its subject a fact lands on (a home, a job, the one
that already holds the value or the one a change or correction replaces) and which of a
turn's values a property keeps, so that one attribute keeps one timeline."""

from __future__ import annotations

import re
from typing import Final

from apexmem_neo.construction.candidates import to_snake_case
from apexmem_neo.construction.faithful import (
    SENTENCE_END,
    current_value_given_up,
    holds_value,
    is_correction,
    said_as_name,
    same_kind,
    value_said,
    whole_name,
)
from apexmem_neo.construction.job_facts import organisation_test, repair_job_facts
from apexmem_neo.construction.turn_state import WORLD, TurnState, subject_key
from apexmem_neo.llm.extract_event import ExtractedEvent, ExtractedFact
from apexmem_neo.ontology import Entity, EntityType, Fact, GraphBatch, Property
from apexmem_neo.ontology.ids import normalize_text
from apexmem_neo.ontology.lexicon import common_property
from apexmem_neo.store.protocol import FactRecord

LIVES_IN: Final = "lives_in"
_HOME_PROPERTY: Final = re.compile(
    r"^(?:(?:current|new|home|rental|living|residence|housing)_)?"
    r"(?:location|place|rental|lease|flat|apartment|housing|home|accommodation|address|"
    r"residence|town|area)(?:_(?:location|city|town|area|place|address|agreement))?$"
)
"""Property names a small model gives someone's home when it does not say ``lives_in``."""
_HOME_WORDS: Final = re.compile(
    r"\b(?:home|live|lives|living|flat|apartment|house|lease|rent|rents|renting|rented|"
    r"moved|movers|settled|roots|my place)\b",
    re.IGNORECASE,
)
"""Words saying a turn is about where someone lives."""


def repair_jobs(state: TurnState, extraction: ExtractedEvent) -> ExtractedEvent:
    """Occupation/employer repairs (see ``job_facts``), each recorded as a decision."""
    speaker = None if state.item.speaker == WORLD else state.item.speaker
    is_organisation = organisation_test(extraction, state.resolver.entities.types_named)
    repaired, repairs = repair_job_facts(extraction, state.item.text, speaker, is_organisation)
    for repair in repairs:
        state.resolver.record(
            state.item.turn().turn_id,
            "property",
            repair.mention,
            "choose_existing",
            chosen=repair.chosen,
            via="rule",
            rationale=repair.rationale,
        )
    return repaired


def whole_value(state: TurnState, fact: ExtractedFact) -> ExtractedFact:
    """A common attribute's value as the whole name the turn says it in ("robotics" ->
    "Pinecrest Robotics"): the small model cut names short, so one employer or car
    became two values."""
    if common_property(to_snake_case(fact.property)) is None:
        return fact
    if not isinstance(fact.value, str):
        return fact
    whole = whole_name(fact.value, state.item.text)
    return fact if whole == fact.value else fact.model_copy(update={"value": whole})


def home_of_a_person(
    state: TurnState, prop: Property, fact: ExtractedFact, subject: Entity
) -> Property:
    """``lives_in`` for a place name a person's "location" (or "rental_location", "home")
    gives in a turn about their home ("Sofa-surfing is over: I've signed for a flat in
    Leeds" as ``location = Leeds``). Without home words a location is where someone is,
    not where they live, so it stays as it is."""
    text = state.item.text
    if subject.entity_type != EntityType.PERSON or not _HOME_PROPERTY.match(prop.name):
        return prop
    if not isinstance(fact.value, str) or not said_as_name(fact.value, text):
        return prop
    if not _HOME_WORDS.search(text):
        return prop
    state.resolver.record(
        state.item.turn().turn_id, "property", fact.property, "choose_existing",
        chosen=LIVES_IN, via="rule",
        rationale=f"a place name the turn says is {subject.name}'s home",
    )  # fmt: skip
    home = fact.model_copy(update={"property": LIVES_IN})
    return state.resolver.property(state.item.turn().turn_id, home)


def entity_property(
    state: TurnState, prop: Property, fact: ExtractedFact, held: dict[str, list[FactRecord]]
) -> Property:
    """The property of this entity that already holds the concept ``prop`` names.

    A name memory's lexicon does not know (``car_make``, ``rental_location``) joins the
    entity's property that holds the same value already, or the property whose current
    value the turn gives up. The local model's ResolveProperty chose an existing property
    for almost any name sharing a word ("dance_session" -> "dance_style"), so no LLM is
    asked here. Lexicon names are trusted as they are (``hometown`` and ``lives_in`` may
    hold one city).
    """
    corrected = _corrected_property(state, held, fact)
    if corrected is not None and corrected != prop.name:
        return _known(state, corrected, prop)
    if common_property(prop.name) is not None:
        return prop
    renamed = state.renamed.get(prop.name)
    if renamed is not None:
        return _known(state, renamed, prop)
    chosen = _held_property(state, prop, fact, held)
    if chosen is None:
        return prop
    state.renamed[prop.name] = chosen
    return _known(state, chosen, prop)


def _held_property(
    state: TurnState, prop: Property, fact: ExtractedFact, held: dict[str, list[FactRecord]]
) -> str | None:
    """The entity's property the rules of ``entity_property`` find, or None."""
    turn_id = state.item.turn().turn_id
    replaced = _replaced_property(state, held, fact)
    if replaced is not None and replaced != prop.name:
        state.resolver.record(
            turn_id,
            "property",
            fact.property,
            "choose_existing",
            chosen=replaced,
            via="rule",
            rationale=f"the turn gives up the entity's {replaced!r} value for this one",
        )
        return replaced
    if not held or prop.name in held:
        return None
    same_value = [q for q, records in held.items() if holds_value(records, fact.value)]
    if len(same_value) != 1:
        return None
    state.resolver.record(
        turn_id,
        "property",
        fact.property,
        "choose_existing",
        chosen=same_value[0],
        via="rule",
        rationale=f"this entity holds the same value under {same_value[0]!r}",
    )
    return same_value[0]


def _replaced_property(
    state: TurnState, held: dict[str, list[FactRecord]], fact: ExtractedFact
) -> str | None:
    """The one property whose current value this turn gives up ("I sold the X", "Y, not
    X", "leaving X"): a new value in the same turn under a name memory does not know
    replaces it."""
    given_up = _given_up_properties(held, fact, state.item.text)
    return next(iter(given_up)) if len(given_up) == 1 else None


def _corrected_property(
    state: TurnState, held: dict[str, list[FactRecord]], fact: ExtractedFact
) -> str | None:
    """The one property whose current value the turn takes back as a mistake, said in
    the sentence that gives this fact's value ("my mistake: Chattanooga, not Savannah"):
    the new value belongs there, whatever name the model gave it. Recorded as a
    decision."""
    taken = state.corrects.get(normalize_text(str(fact.value)))
    if taken is not None:
        holding = [n for n, records in held.items() if holds_value(records[-1:], taken)]
        if len(holding) == 1:
            return _record_corrected(state, fact, holding[0])
    sentence = next(
        (s for s in SENTENCE_END.split(state.item.text) if value_said(fact.value, s)), None
    )
    if sentence is None:
        return None
    corrected = {
        name
        for name in _given_up_properties(held, fact, sentence)
        if not holds_value(held[name][-1:], fact.value)
        and is_correction(sentence, held[name][-1].value)
    }
    if len(corrected) != 1:
        return None
    return _record_corrected(state, fact, next(iter(corrected)))


def _record_corrected(state: TurnState, fact: ExtractedFact, chosen: str) -> str:
    state.resolver.record(
        state.item.turn().turn_id, "property", fact.property, "choose_existing",
        chosen=chosen, via="rule",
        rationale=f"the turn corrects the entity's {chosen!r} value with this one",
    )  # fmt: skip
    return chosen


def _known(state: TurnState, name: str, fallback: Property) -> Property:
    return state.resolver.properties.properties.get(name, fallback)


def said_under_common_name(state: TurnState, fact: ExtractedFact, prop_name: str) -> bool:
    """Whether this turn gives the fact's value (or a value containing it) to the same
    subject under a lexicon property, while this fact's property is not one: the model
    said "employer = Soylent Foods" and also "commute = Soylent Foods"."""
    if common_property(prop_name) is not None:
        return False
    subject = subject_key(fact.subject, state.item.speaker)
    value = normalize_text(str(fact.value))
    for (other_subject, other_prop), values in state.stated.items():
        if other_subject != subject or common_property(other_prop) is None:
            continue
        if any(value and value in said for said in values):
            return True
    return False


def keep_one_value_at_a_time(state: TurnState, batch: GraphBatch) -> None:
    """Keep one value where the turn gives an entity two at once for a concept a person
    holds one of at a time (``CommonProperty.one_at_a_time``): "I live in Denver, in a
    small flat downtown" is one home, not two. The value the turn says as a name is
    kept, else the first; the others are dropped as decisions."""
    at_once: dict[tuple[str, str, str], list[Fact]] = {}
    for row in batch.facts:
        common = common_property(row.property)
        if row.value is None or row.t_to is not None or not common or not common.one_at_a_time:
            continue
        at_once.setdefault((row.entity_id, row.property, row.t_from), []).append(row)
    for rows in at_once.values():
        if len({normalize_text(str(r.value)) for r in rows}) < 2:
            continue
        kept = next((r for r in rows if said_as_name(r.value, state.item.text)), rows[0])
        for row in rows:
            if normalize_text(str(row.value)) != normalize_text(str(kept.value)):
                why = f"{row.value!r} beside {kept.value!r}: one value at a time"
                state.drop_row(batch, row, why)


def drop_cut_short(state: TurnState, batch: GraphBatch) -> None:
    """Drop a value the turn also gives its subject whole under the same property
    ("Insurance" beside "Copperleaf Insurance"): a piece of a name, not a second value."""
    by_key: dict[tuple[str, str], list[Fact]] = {}
    for row in batch.facts:
        if isinstance(row.value, str):
            by_key.setdefault((row.entity_id, row.property), []).append(row)
    for rows in by_key.values():
        for row in rows:
            piece = f" {normalize_text(row.value)} "
            whole = next(
                (o for o in rows if o is not row and piece in f" {normalize_text(o.value)} "
                 and normalize_text(o.value) != normalize_text(row.value)),
                None,
            )  # fmt: skip
            if whole is not None and row in batch.facts:
                state.drop_row(batch, row, f"{row.value!r} is a piece of {whole.value!r}")


def _given_up_properties(
    held: dict[str, list[FactRecord]], fact: ExtractedFact, text: str
) -> set[str]:
    """The entity's properties whose current value ``text`` says and gives up (denies,
    leaves or corrects), of a kind the fact's value could replace."""
    return {
        name
        for name, records in held.items()
        if records[-1].value is not None
        and current_value_given_up(records[-1].value, text)
        and same_kind(records, fact)
    }
