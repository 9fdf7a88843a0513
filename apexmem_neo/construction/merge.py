"""Merge(G_t, g_t): resolve a turn's extraction against the graph and build its GraphBatch.

Mentions and property names are resolved by the ``Resolver`` (``resolver.py``); the facts
are kept to what the turn says by the rules of ``faithful.py`` (said, not denied, about the
right entity, under the property that already holds the concept, corrections replacing what
they correct). Times go through the deterministic grounder; evidence quotes are located in
the turn text so every span points into it.

``TurnMerge.build`` applies the per-turn rules in order; each group lives in its own module:
``noise_rules`` (facts that hold nothing said), ``subject_rules`` (whose fact it is),
``property_rules`` (which property it lands on, one value at a time) and ``ending_rules``
(values ended, given up or corrected). ``turn_state`` holds the state they share.
"""

from __future__ import annotations

import re
from typing import Final

from pydantic import ValidationError
from rapidfuzz import fuzz

from apexmem_neo.construction.candidates import convert_value, to_snake_case
from apexmem_neo.construction.ending_rules import (
    correct_unextracted,
    corrected_record,
    end_given_up_values,
    end_time,
    held_until_now,
    in_place_of_taken_back,
    left_in_this_turn,
    not_before_the_day_earlier,
    recorded_after,
    restates_left_value,
)
from apexmem_neo.construction.faithful import event_type_said, holds_value, may_state_value
from apexmem_neo.construction.grounding import (
    GroundedTime,
    find_expression,
    ground_time,
    not_in_future,
)
from apexmem_neo.construction.noise_rules import UNSAID, noise_reason, unfaithful
from apexmem_neo.construction.property_rules import (
    drop_cut_short,
    entity_property,
    home_of_a_person,
    keep_one_value_at_a_time,
    repair_jobs,
    said_under_common_name,
    whole_value,
)
from apexmem_neo.construction.resolver import Resolver
from apexmem_neo.construction.subject_rules import (
    flag_filed_on_value,
    subject_name,
    subject_type,
    value_filed_as_subject,
)
from apexmem_neo.construction.turn_state import WORLD, TurnState, stated_values
from apexmem_neo.llm.extract_event import ExtractedEvent, ExtractedFact
from apexmem_neo.ontology import (
    DType,
    Entity,
    EntityType,
    Event,
    EventParticipant,
    Evidence,
    Fact,
    GraphBatch,
    Property,
    Role,
)
from apexmem_neo.ontology.ids import normalize_text

EVIDENCE_MIN_SCORE: Final = 80.0
REMARK: Final = "remark"
"""The event type of a turn that states no fact and none of whose type's words it says: the
model had named it after an earlier turn ("hobby_change" for "Good for you, honestly.")."""


def locate_evidence(quote: str, text: str) -> tuple[int, int] | None:
    """The [start, end) span of ``quote`` in ``text``: exact, case-insensitive, then fuzzy."""
    quote = quote.strip().strip("\"'")
    if not quote or not text:
        return None
    start = text.find(quote)
    if start < 0:
        start = text.casefold().find(quote.casefold())
    if start >= 0:
        return start, start + len(quote)
    alignment = fuzz.partial_ratio_alignment(quote, text, score_cutoff=EVIDENCE_MIN_SCORE)
    if alignment is None or alignment.dest_end <= alignment.dest_start:
        return None
    return alignment.dest_start, alignment.dest_end


def event_type_name(raw: str) -> str:
    name = to_snake_case(raw)
    return name if re.search(r"[a-z]", name) else "statement"


def _retype(batch: GraphBatch, event: Event, event_type: str) -> None:
    """Give ``batch``'s event (and its participants) ``event_type`` in place."""
    renamed = Event.model_validate({**event.model_dump(), "event_type": event_type, "event_id": ""})
    batch.events = [renamed if e is event else e for e in batch.events]
    batch.participants = [
        p.model_copy(update={"event_id": renamed.event_id}) if p.event_id == event.event_id else p
        for p in batch.participants
    ]


class TurnMerge(TurnState):
    """Builds one turn's GraphBatch from its extraction (None: the turn alone)."""

    def copied_only(self, batch: GraphBatch) -> bool:
        """Whether every fact the extraction gave was dropped as not said in the turn: the
        model copied its context instead of reading the turn."""
        return bool(self.copied) and not batch.facts

    def worth_extracting_again(self, batch: GraphBatch) -> bool:
        """Whether the extraction copied every fact from its context and the turn may still
        state a value of its own (``may_state_value``): then it is read again alone."""
        known = [n for n in (self.item.speaker, self.item.listener) if n]
        return self.copied_only(batch) and may_state_value(self.item.text, self.copied, known)

    def build(self, extraction: ExtractedEvent | None) -> GraphBatch:
        item, turn = self.item, self.item.turn()
        batch = GraphBatch(sessions=[item.session()], turns=[turn], scope=item.scope)
        if extraction is None or not turn.text.strip():
            return batch
        extraction = repair_jobs(self, extraction)
        whole = Evidence(
            text=turn.text, turn_id=turn.turn_id, span_start=0, span_end=len(turn.text)
        )
        when = not_in_future(
            ground_time(
                extraction.when or find_expression(turn.text), extraction.time, turn.anchor_datetime
            ),
            turn.anchor_datetime,
            turn.text,
        )
        event = Event(
            event_type=event_type_name(extraction.type),
            anchor_datetime=when.start,
            location=extraction.location,
            turn_id=turn.turn_id,
            evidence_id=whole.evidence_id,
        )
        people = self._participants(extraction, event.event_id)
        batch.evidence.append(whole)
        batch.events.append(event)
        batch.participants.extend(people.values())
        self.stated = stated_values(extraction.facts, self.item.speaker)
        for fact in extraction.facts:
            self._add_fact(batch, fact, event, when)
        drop_cut_short(self, batch)
        keep_one_value_at_a_time(self, batch)
        correct_unextracted(self, batch, event)
        end_given_up_values(self, batch, event, when)
        if not batch.facts and not event_type_said(event.event_type, turn.text):
            _retype(batch, event, REMARK)
        used = {p.entity_id for p in batch.participants} | {f.entity_id for f in batch.facts}
        batch.entities.extend(self.resolver.entities.entities[e] for e in sorted(used))
        return GraphBatch.model_validate(batch.model_dump())

    def _participants(
        self, extraction: ExtractedEvent, event_id: str
    ) -> dict[tuple[str, str], EventParticipant]:
        wanted: list[tuple[str, EntityType, Role]] = []
        if self.item.speaker != WORLD:
            wanted.append((self.item.speaker, EntityType.PERSON, Role.SPEAKER))
        if self.item.listener:
            wanted.append((self.item.listener, EntityType.PERSON, Role.LISTENER))
        wanted.extend((p.name, p.type, p.role) for p in extraction.participants)
        found: dict[tuple[str, str], EventParticipant] = {}
        for name, kind, role in wanted:
            entity = self.resolve(name, kind, role)
            if entity is not None:
                key = (entity.entity_id, role.value)
                found.setdefault(
                    key, EventParticipant(event_id=event_id, entity_id=entity.entity_id, role=role)
                )
        return found

    def _add_fact(
        self, batch: GraphBatch, fact: ExtractedFact, event: Event, when: GroundedTime
    ) -> None:
        said = self._said_fact(batch, fact)
        if said is None:
            return
        fact, subject, left = said
        turn = batch.turns[0]
        held = self.held_by_property(subject.entity_id)
        proposed = home_of_a_person(self, self.resolver.property(turn.turn_id, fact), fact, subject)
        prop = entity_property(self, proposed, fact, held)
        if restates_left_value(self, fact, prop.name, held.get(prop.name, [])):
            self.drop(fact, "the value this turn's change leaves, said again")
            return
        if said_under_common_name(self, fact, prop.name):
            self.drop(fact, "the turn states this value under a common property already")
            return
        if left and any(holds_value(records, fact.value) for records in held.values()):
            self.drop(fact, f"the value {fact.value!r} is left in this turn; its fact is ended")
            return
        value, dtype = _typed_value(fact, prop, turn.anchor_datetime)
        span = locate_evidence(fact.evidence, turn.text)
        start, end = span if span is not None else (0, len(turn.text))
        evidence = Evidence(
            text=turn.text[start:end], turn_id=turn.turn_id, span_start=start, span_end=end
        )
        t_from, t_to = self._interval(fact, when, turn.anchor_datetime, turn.text[start:end])
        if left:
            t_from, t_to = end_time(self, when), None
        t_from = not_before_the_day_earlier(t_from, turn.anchor_datetime, held.get(prop.name))
        corrected = corrected_record(self, fact, prop.name, held.get(prop.name, []))
        if corrected is not None:
            t_from = corrected.t_from
        try:
            row = Fact(
                entity_id=subject.entity_id,
                property=prop.name,
                dtype=dtype,
                enum_values=prop.enum_values if dtype == DType.ENUM else (),
                value=value,
                t_from=t_from,
                t_to=t_to,
                confidence=fact.confidence * (1.0 if span is not None else 0.8),
                event_id=event.event_id,
                evidence_id=evidence.evidence_id,
                recorded_at=recorded_after(corrected) if corrected is not None else None,
            )
        except ValidationError as exc:
            self.drop(fact, f"invalid fact: {exc.errors()[0]['msg']}")
            return
        if evidence.evidence_id not in {e.evidence_id for e in batch.evidence}:
            batch.evidence.append(evidence)
        if left:
            batch.facts.extend(held_until_now(row))
            return
        batch.facts.append(row)

    def _said_fact(
        self, batch: GraphBatch, fact: ExtractedFact
    ) -> tuple[ExtractedFact, Entity, bool] | None:
        """The fact as the turn says it, the entity it is about, and whether the turn says its
        value ended (``left_in_this_turn``); None when it is dropped as noise, as not said or
        as about no entity."""
        noise = noise_reason(fact)
        if noise is not None:
            self.drop(fact, noise)
            return None
        types = {
            normalize_text(p.name): p.entity_type for p in _participants_of(batch, self.resolver)
        }
        fact = flag_filed_on_value(self, fact, types)
        in_place = in_place_of_taken_back(self, fact)
        if in_place is None:
            return None
        fact = in_place
        unsaid = unfaithful(fact, self.item)
        left = unsaid is not None and left_in_this_turn(self, fact)
        if unsaid is not None and not left:
            if unsaid.endswith(UNSAID):
                self.copied.append(to_snake_case(fact.property))
            self.drop(fact, unsaid)
            return None
        fact = value_filed_as_subject(self, whole_value(self, fact), types)
        name = subject_name(self, fact)
        if name is None:
            return None
        kind = EntityType.PERSON if name in self.people else subject_type(name, types)
        subject = self.resolve(name, kind, Role.MENTIONED)
        if subject is None:
            self.drop(fact, "subject is not an entity")
            return None
        return fact, subject, left

    def _interval(
        self, fact: ExtractedFact, when: GroundedTime, anchor: str, quote: str
    ) -> tuple[str, str | None]:
        expression = fact.when or find_expression(quote)
        grounded = not_in_future(
            ground_time(expression, fact.t_from, anchor), anchor, self.item.text
        )
        if grounded.is_default and not when.is_default:
            grounded = when
        self.resolver.record(
            self.item.turn().turn_id,
            "time",
            f"{fact.subject}.{fact.property}",
            grounded.source.value,
            chosen=grounded.start,
            via=grounded.granularity,
            rationale=f"expression {grounded.expression!r}"
            + (
                f"; model said {grounded.corrected_model_value}"
                if grounded.corrected_model_value
                else ""
            ),
        )
        t_to: str | None = None
        if fact.t_to:
            end = ground_time(fact.t_to, fact.t_to, anchor)
            t_to = end.start if not end.is_default and end.start >= grounded.start else None
        return grounded.start, t_to


def _participants_of(batch: GraphBatch, resolver: Resolver) -> list[Entity]:
    ids = {p.entity_id for p in batch.participants}
    return [resolver.entities.entities[i] for i in sorted(ids)]


def _typed_value(fact: ExtractedFact, prop: Property, anchor: str) -> tuple[object, DType]:
    """The fact's value in the property's dtype, else its own, else as a string."""
    for dtype in (prop.dtype, fact.dtype):
        if dtype == DType.DATE and isinstance(fact.value, str):
            grounded = ground_time(fact.value, fact.value, anchor)
            if not grounded.is_default:
                return grounded.start[:10], DType.DATE
        value = convert_value(fact.value, dtype)
        if value is not None and dtype != DType.ENUM:
            return value, dtype
        if value is not None and dtype == prop.dtype:
            return value, dtype
    return str(fact.value), DType.STR
