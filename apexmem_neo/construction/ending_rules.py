"""Endings and corrections: when a turn says a value stopped holding or was a mistake, which
facts end it, which value replaces it from when, and in what order they are recorded, so
that reads at any time find what held then and nothing is overwritten."""

from __future__ import annotations

from typing import Final

from apexmem_neo.construction.candidates import stored_property_name
from apexmem_neo.construction.faithful import (
    correcting_name,
    holds_value,
    is_correction,
    said_to_end,
    taken_back,
    value_said,
)
from apexmem_neo.construction.grounding import GroundedTime, find_expression, ground_time
from apexmem_neo.construction.turn_state import TurnState, subject_key
from apexmem_neo.llm.extract_event import ExtractedFact
from apexmem_neo.ontology import Event, Fact, GraphBatch
from apexmem_neo.ontology.ids import normalize_text
from apexmem_neo.ontology.types import normalize_time
from apexmem_neo.store.protocol import FactRecord
from apexmem_neo.store.timeutil import just_after, utc_now

ADDED_CONFIDENCE: Final = 0.8
"""Confidence of a fact a rule adds from the turn's words (the model did not state it)."""
DAY_START: Final = "T00:00:00"
"""How a time grounded to a day (not a moment of it) ends."""


def in_place_of_taken_back(state: TurnState, fact: ExtractedFact) -> ExtractedFact | None:
    """A value the turn takes back ("did I say X? I meant Y", "X is wrong") is not
    stated: the fact gives the name the turn puts in its place instead, or is dropped
    when the turn gives none or gives it already. ``entity_property`` then files
    the name where the taken-back value is held."""
    text = state.item.text
    if not taken_back(fact.value, text):
        return fact
    name = correcting_name(text, fact.value)
    subject = subject_key(fact.subject, state.item.speaker)
    given = {v for (s, _), values in state.stated.items() if s == subject for v in values}
    if name is None or normalize_text(name) in given:
        state.drop(fact, f"the turn takes {fact.value!r} back")
        return None
    state.corrects[normalize_text(name)] = str(fact.value)
    state.resolver.record(
        state.item.turn().turn_id, "value", f"{fact.subject}.{fact.property}",
        "choose_existing", chosen=name, via="correction",
        rationale=f"the turn takes {fact.value!r} back and says {name!r} instead",
    )  # fmt: skip
    return fact.model_copy(update={"value": name})


def left_in_this_turn(state: TurnState, fact: ExtractedFact) -> bool:
    """Whether the turn says the fact's value ended ("Lost my job as a banker yesterday")
    rather than denying or correcting it: memory keeps the value as one that held until
    then, not as a current one, and not forgotten either."""
    text = state.item.text
    return said_to_end(fact.value, text) and not is_correction(text, fact.value)


def restates_left_value(
    state: TurnState, fact: ExtractedFact, prop_name: str, records: list[FactRecord]
) -> bool:
    """Whether the fact says the entity's current value again in a turn that gives the
    same property a new value ("I packed up in Omaha and settled in Raleigh"), under the
    fact's own name or the one it was joined to ("vehicle = Genesis G70" beside "nephew
    = Rivian R1T", joined to ``car``, for "the Rivian R1T went to my nephew")."""
    if not records or records[-1].value is None or not holds_value(records[-1:], fact.value):
        return False
    subject = subject_key(fact.subject, state.item.speaker)
    own = stored_property_name(fact.property)
    given: set[str] = set()
    for (other_subject, other_prop), values in state.stated.items():
        if other_subject == subject and other_prop in (own, prop_name):
            given |= values
    return len(given) > 1


def corrected_record(
    state: TurnState, fact: ExtractedFact, prop_name: str, records: list[FactRecord]
) -> FactRecord | None:
    """The current value a correction ("I misspoke: it's Y, not X") replaces, or None.
    Y takes X's t_from, so every read after that time gives Y and X never holds again;
    Y is recorded after X, so that Y wins the tie at X's start (``recorded_after``)."""
    if not records or records[-1].value is None:
        return None
    last = records[-1]
    value_said_before = normalize_text(str(last.value)) != normalize_text(str(fact.value))
    text = state.item.text
    if not value_said_before or not value_said(last.value, text, prop_name):
        return None
    if not is_correction(text, last.value):
        return None
    state.resolver.record(
        state.item.turn().turn_id,
        "time",
        f"{fact.subject}.{prop_name}",
        "choose_existing",
        chosen=last.t_from,
        via="correction",
        rationale=f"corrects {last.value!r}: the new value holds from its start",
    )
    return last


def correct_unextracted(state: TurnState, batch: GraphBatch, event: Event) -> None:
    """Append the correction a turn says of the speaker's current value when the model
    gave no fact for it ("Sorry, X? What am I on about. Y, obviously."): Y replaces X
    from X's start, as ``corrected_record`` does for an extracted Y."""
    speaker = state.resolved.get(normalize_text(state.item.speaker))
    if speaker is None:
        return
    text, turn_id = state.item.text, batch.turns[0].turn_id
    given = {f.property for f in batch.facts if f.entity_id == speaker.entity_id}
    values = {normalize_text(str(f.value)) for f in batch.facts}
    for name, records in state.held_by_property(speaker.entity_id).items():
        last = records[-1]
        if name in given or last.value is None or not taken_back(last.value, text):
            continue
        instead = correcting_name(text, last.value)
        if instead is None or normalize_text(instead) in values:
            continue
        batch.facts.append(
            Fact(entity_id=speaker.entity_id, property=name, dtype=last.dtype,
                 value=instead, t_from=last.t_from, confidence=ADDED_CONFIDENCE,
                 event_id=event.event_id, evidence_id=batch.evidence[0].evidence_id,
                 recorded_at=recorded_after(last))
        )  # fmt: skip
        state.resolver.record(
            turn_id, "value", f"{speaker.entity_id}.{name}", "choose_existing",
            chosen=instead, via="correction",
            rationale=f"the turn takes {last.value!r} back and says {instead!r} instead",
        )  # fmt: skip


def end_given_up_values(
    state: TurnState, batch: GraphBatch, event: Event, when: GroundedTime
) -> None:
    """Append an end (a fact whose value is None) for each current value the turn says
    no longer holds ("I don't live in Boston anymore", "I sold the Civic") when the turn
    gives that property no new value: the old value stops applying from the turn's time,
    and nothing is overwritten. Only the speaker's and the turn's subjects' values are
    ended; a correction ("it's Y, not X") is left to ``corrected_record``."""
    text, turn_id = state.item.text, batch.turns[0].turn_id
    given = {(f.entity_id, f.property) for f in batch.facts}
    for entity_id in _ending_candidates(state, batch):
        for name, records in state.held_by_property(entity_id).items():
            last = records[-1]
            if (entity_id, name) in given or last.value is None:
                continue
            if not said_to_end(last.value, text) or is_correction(text, last.value):
                continue
            t_from = max(end_time(state, when), last.t_from)
            batch.facts.append(
                Fact(entity_id=entity_id, property=name, dtype=last.dtype, value=None,
                     t_from=t_from, confidence=0.9, event_id=event.event_id,
                     evidence_id=batch.evidence[0].evidence_id)
            )  # fmt: skip
            state.resolver.record(
                turn_id, "end", f"{entity_id}.{name}", "choose_existing", chosen=t_from,
                via="rule", rationale=f"the turn says {last.value!r} no longer holds",
            )  # fmt: skip


def end_time(state: TurnState, when: GroundedTime) -> str:
    """When an ended value stopped: the time words of the turn itself ("I gave it up
    last month"), which the model's event time may miss, else the event's time."""
    said = ground_time(find_expression(state.item.text), None, state.item.turn().anchor_datetime)
    return when.start if said.is_default else said.start


def _ending_candidates(state: TurnState, batch: GraphBatch) -> list[str]:
    """The entities whose values a turn may end: its speaker and its facts' subjects
    (never the listener, whom a question like "you're not at X anymore?" only asks)."""
    ids = {f.entity_id for f in batch.facts}
    speaker = state.resolved.get(normalize_text(state.item.speaker))
    if speaker is not None:
        ids.add(speaker.entity_id)
    listener = state.resolved.get(normalize_text(state.item.listener or ""))
    if listener is not None and (speaker is None or listener.entity_id != speaker.entity_id):
        ids.discard(listener.entity_id)
    return sorted(ids)


def held_until_now(row: Fact) -> list[Fact]:
    """A value the turn says ended, which memory did not hold: the value, then its end (a
    fact whose value is None) at the same time and recorded just after, so reads find it
    in the history and never as current. When it began is not known."""
    now = normalize_time(utc_now())
    held = row.model_copy(update={"recorded_at": now})
    end = Fact(entity_id=row.entity_id, property=row.property, dtype=row.dtype, value=None,
               t_from=row.t_from, confidence=row.confidence, event_id=row.event_id,
               evidence_id=row.evidence_id, recorded_at=just_after(now))  # fmt: skip
    return [held, end]


def recorded_after(corrected: FactRecord) -> str:
    """When a correction is recorded: now, or just after the value it corrects when that was
    recorded within the same second, so that reads order the correction last."""
    return max(normalize_time(utc_now()), just_after(corrected.recorded_at))


def not_before_the_day_earlier(t_from: str, anchor: str, records: list[FactRecord] | None) -> str:
    """A value said with a day's precision on the turn's own day ("today") starts at the
    turn's time when its day start would put it before the value an earlier turn of that day
    gave the same property: said later, it cannot have begun first."""
    if not records or not t_from.endswith(DAY_START) or t_from[:10] != anchor[:10]:
        return t_from
    return anchor if t_from < records[-1].t_from <= anchor else t_from
