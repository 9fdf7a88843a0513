"""Merge(G_t, g_t): resolve a turn's extraction against the graph and build its GraphBatch.

Mentions and property names are resolved by the ``Resolver`` (``resolver.py``); the facts
are kept to what the turn says by the rules of ``faithful.py`` (said, not denied, about the
right entity, under the property that already holds the concept, corrections replacing what
they correct). Times go through the deterministic grounder; evidence quotes are located in
the turn text so every span points into it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from pydantic import ValidationError
from rapidfuzz import fuzz

from apexmem_neo.construction.candidates import (
    convert_value,
    stored_property_name,
    to_snake_case,
)
from apexmem_neo.construction.faithful import (
    DATE_PROPERTY,
    SENTENCE_END,
    addressed,
    concept_said_as_mine,
    correcting_name,
    current_value_given_up,
    event_type_said,
    holds_value,
    is_clause,
    is_correction,
    is_iso_date,
    may_state_value,
    mentions,
    names_its_property,
    names_someone_else,
    negated,
    relation_value,
    said_as_name,
    said_of_self,
    said_to_end,
    same_kind,
    taken_back,
    third_party_owner,
    third_person,
    value_said,
    whole_name,
)
from apexmem_neo.construction.grounding import (
    GroundedTime,
    find_expression,
    ground_time,
    not_in_future,
)
from apexmem_neo.construction.job_facts import organisation_test, repair_job_facts
from apexmem_neo.construction.loaders import PHOTO_MARKUP, TurnInput
from apexmem_neo.construction.resolver import Resolver
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
from apexmem_neo.ontology.lexicon import PEOPLE_ONLY, common_property
from apexmem_neo.ontology.types import normalize_time
from apexmem_neo.store.protocol import FactRecord
from apexmem_neo.store.timeutil import just_after, utc_now

HeldFacts = Callable[[str], list[FactRecord]]
"""Every fact memory holds about an entity id, in time order (the turns already merged)."""

SPEAKER_WORDS: Final = frozenset({"i", "me", "my", "myself", "mine", "we", "us", "our", "speaker"})
LISTENER_WORDS: Final = frozenset({"you", "your", "yourself", "yours", "listener"})
WORLD: Final = "World"
EVIDENCE_MIN_SCORE: Final = 80.0
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
TRUE_WORDS: Final = frozenset({"true", "yes"})
ADDED_CONFIDENCE: Final = 0.8
"""Confidence of a fact a rule adds from the turn's words (the model did not state it)."""
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
DAY_START: Final = "T00:00:00"
"""How a time grounded to a day (not a moment of it) ends."""
"""A flag value a small model gives an attribute it filed on its own value."""
"""Values that say there is no value (the model wrote ``job_loss = "None"``)."""
_FIRST_PERSON: Final = re.compile(
    r"\b(" + "|".join(sorted(SPEAKER_WORDS - {"speaker"})) + r")\b", re.IGNORECASE
)
"""A speaker word anywhere in the turn ("I'm" matches on "I")."""


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


UNSAID: Final = "is not said in this turn"
_NAMES_AN_ENDING: Final = re.compile(
    r"\b(?:loss|lost|former|ex|previous|past|old|quit|left|ended|resigned|fired|laid)\b"
)
"""Words of a property name that say its value is over already (``job_loss``, ``ex``): its
value said beside an ending ("I lost my job as a banker") is the fact itself."""
REMARK: Final = "remark"
"""The event type of a turn that states no fact and none of whose type's words it says: the
model had named it after an earlier turn ("hobby_change" for "Good for you, honestly.")."""


def _retype(batch: GraphBatch, event: Event, event_type: str) -> None:
    """Give ``batch``'s event (and its participants) ``event_type`` in place."""
    renamed = Event.model_validate({**event.model_dump(), "event_type": event_type, "event_id": ""})
    batch.events = [renamed if e is event else e for e in batch.events]
    batch.participants = [
        p.model_copy(update={"event_id": renamed.event_id}) if p.event_id == event.event_id else p
        for p in batch.participants
    ]


@dataclass
class TurnMerge:
    """Builds one turn's GraphBatch from its extraction (None: the turn alone)."""

    item: TurnInput
    resolver: Resolver
    held: HeldFacts | None = None
    """Memory's facts about an entity: lets a changed value find the property that holds the
    earlier one and a correction find what it corrects (None: the turn is judged alone)."""
    dropped: int = 0
    copied: list[str] = field(default_factory=list)
    """Property names of the facts dropped because their value is not said in the turn
    (copied or made up)."""
    _memo: dict[str, Entity | None] = field(default_factory=dict)
    _stated: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    _people: set[str] = field(default_factory=set)
    """Subjects the rules found to be people (a relative named in the turn)."""
    _renamed: dict[str, str] = field(default_factory=dict)
    """This turn's unknown property names already joined to an entity's property: the
    other values the turn gives under that name join it too."""
    _held_memo: dict[str, dict[str, list[FactRecord]]] = field(default_factory=dict)
    _corrects: dict[str, str] = field(default_factory=dict)
    """Names this turn gives in place of a value it takes back, with the value taken back."""

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
        extraction = self._repair_jobs(extraction)
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
        self._stated = _stated_values(extraction.facts, self.item.speaker)
        for fact in extraction.facts:
            self._add_fact(batch, fact, event, when)
        self._drop_cut_short(batch)
        self._keep_one_value_at_a_time(batch)
        self._correct_unextracted(batch, event)
        self._end_given_up_values(batch, event, when)
        if not batch.facts and not event_type_said(event.event_type, turn.text):
            _retype(batch, event, REMARK)
        used = {p.entity_id for p in batch.participants} | {f.entity_id for f in batch.facts}
        batch.entities.extend(self.resolver.entities.entities[e] for e in sorted(used))
        return GraphBatch.model_validate(batch.model_dump())

    def _resolve(self, mention: str, kind: EntityType, role: Role) -> Entity | None:
        folded = normalize_text(mention)
        if folded in SPEAKER_WORDS and self.item.speaker != WORLD:
            mention, kind = self.item.speaker, EntityType.PERSON
        elif folded in LISTENER_WORDS and self.item.listener:
            mention, kind = self.item.listener, EntityType.PERSON
        if not mention.strip() or normalize_text(mention) == normalize_text(WORLD):
            return None
        key = normalize_text(mention)
        if key not in self._memo:
            turn_id = self.item.turn().turn_id
            self._memo[key] = self.resolver.entity(turn_id, mention, kind, role, self.item.text)
        return self._memo[key]

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
            entity = self._resolve(name, kind, role)
            if entity is not None:
                key = (entity.entity_id, role.value)
                found.setdefault(
                    key, EventParticipant(event_id=event_id, entity_id=entity.entity_id, role=role)
                )
        return found

    def _repair_jobs(self, extraction: ExtractedEvent) -> ExtractedEvent:
        """Occupation/employer repairs (see ``job_facts``), each recorded as a decision."""
        speaker = None if self.item.speaker == WORLD else self.item.speaker
        is_organisation = organisation_test(extraction, self.resolver.entities.types_named)
        repaired, repairs = repair_job_facts(extraction, self.item.text, speaker, is_organisation)
        for repair in repairs:
            self.resolver.record(
                self.item.turn().turn_id,
                "property",
                repair.mention,
                "choose_existing",
                chosen=repair.chosen,
                via="rule",
                rationale=repair.rationale,
            )
        return repaired

    def _whole_value(self, fact: ExtractedFact) -> ExtractedFact:
        """A common attribute's value as the whole name the turn says it in ("robotics" ->
        "Pinecrest Robotics"): the small model cut names short, so one employer or car
        became two values."""
        if common_property(to_snake_case(fact.property)) is None:
            return fact
        if not isinstance(fact.value, str):
            return fact
        whole = whole_name(fact.value, self.item.text)
        return fact if whole == fact.value else fact.model_copy(update={"value": whole})

    def _value_filed_as_subject(
        self, fact: ExtractedFact, types: dict[str, EntityType]
    ) -> ExtractedFact:
        """The speaker's fact when the model filed a personal attribute on the thing that is
        its value: "Whenever we go out I pick Cardamom Grill; best restaurant around" came
        out as ``Cardamom Grill.favourite_restaurant = "best restaurant around"``, which is
        the speaker's ``favourite_restaurant = Cardamom Grill``. A value that is a name
        stays on its subject (``Cardamom Grill.lives_in = Denver``), except for a concept
        only people hold (``PEOPLE_ONLY``): "now Lemongrass Shack is only my second choice"
        as ``Lemongrass Shack.favourite_restaurant = Pelmeni Point`` is the speaker's
        ``favourite_restaurant = Pelmeni Point``."""
        if not isinstance(fact.value, str) or not self._thing_the_speaker_names(fact, types):
            return fact
        text, speaker = self.item.text, self.item.speaker
        if not said_as_name(fact.value, text):
            self._rewrite_subject(fact, speaker, f"{fact.subject!r} is the value, not the subject")
            return fact.model_copy(update={"subject": speaker, "value": fact.subject})
        if to_snake_case(fact.property) in PEOPLE_ONLY or (
            (common := common_property(to_snake_case(fact.property))) is not None
            and common.name in PEOPLE_ONLY
        ):
            self._rewrite_subject(fact, speaker, f"only a person holds {fact.property!r}")
            return fact.model_copy(update={"subject": speaker})
        return fact

    def _flag_filed_on_value(
        self, fact: ExtractedFact, types: dict[str, EntityType]
    ) -> ExtractedFact:
        """The speaker's fact when the model filed a personal attribute on its value as a
        flag: "Lemongrass Shack is my absolute favourite" as ``Lemongrass
        Shack.favourite_restaurant = true`` is the speaker's ``favourite_restaurant =
        Lemongrass Shack``."""
        flag = fact.value is True or (
            isinstance(fact.value, str) and normalize_text(fact.value) in TRUE_WORDS
        )
        if not flag or not self._thing_the_speaker_names(fact, types):
            return fact
        self._rewrite_subject(
            fact, self.item.speaker, f"{fact.subject!r} is the value, not a flag's subject"
        )
        return fact.model_copy(
            update={"subject": self.item.speaker, "value": fact.subject, "dtype": DType.STR}
        )

    def _thing_the_speaker_names(self, fact: ExtractedFact, types: dict[str, EntityType]) -> bool:
        """Whether the fact is a personal attribute (one whose values name things,
        ``CommonProperty.names_a_thing``) filed on a thing a first-person turn names: not a
        person the turn or memory knows, not a relative it introduces, not a speaker."""
        text, speaker = self.item.text, self.item.speaker
        folded = normalize_text(fact.subject)
        common = common_property(to_snake_case(fact.property))
        if speaker == WORLD or common is None or not common.names_a_thing:
            return False  # "My cousin Rosa has taken up birdwatching": Rosa is no hobby
        if relation_value(fact.subject, text):
            return False  # "my partner Sam": a person the turn introduces
        if folded in SPEAKER_WORDS | LISTENER_WORDS or folded in {
            normalize_text(n) for n in (speaker, self.item.listener or "")
        }:
            return False
        if types.get(folded) == EntityType.PERSON or fact.subject in self._people:
            return False
        return bool(_FIRST_PERSON.search(text)) and mentions(text, fact.subject)

    def _in_place_of_taken_back(self, fact: ExtractedFact) -> ExtractedFact | None:
        """A value the turn takes back ("did I say X? I meant Y", "X is wrong") is not
        stated: the fact gives the name the turn puts in its place instead, or is dropped
        when the turn gives none or gives it already. ``_corrected_property`` then files
        the name where the taken-back value is held."""
        text = self.item.text
        if not taken_back(fact.value, text):
            return fact
        name = correcting_name(text, fact.value)
        subject = _subject_key(fact.subject, self.item.speaker)
        given = {v for (s, _), values in self._stated.items() if s == subject for v in values}
        if name is None or normalize_text(name) in given:
            self._drop(fact, f"the turn takes {fact.value!r} back")
            return None
        self._corrects[normalize_text(name)] = str(fact.value)
        self.resolver.record(
            self.item.turn().turn_id, "value", f"{fact.subject}.{fact.property}",
            "choose_existing", chosen=name, via="correction",
            rationale=f"the turn takes {fact.value!r} back and says {name!r} instead",
        )  # fmt: skip
        return fact.model_copy(update={"value": name})

    def _subject_name(self, fact: ExtractedFact) -> str | None:
        """The person or thing the fact is about, as the turn's own words allow, or None.

        A small model files facts on whoever is in view: the value as its own subject ("I
        live in Denver" -> ``Denver.location``), the listener for the speaker's own news,
        someone from earlier turns the turn does not name, or the speaker for a relative's
        news ("my sister Maya moved to Boston"). Each rewrite is recorded as a decision.
        """
        speaker, listener, text = self.item.speaker, self.item.listener, self.item.text
        if speaker == WORLD:
            return fact.subject
        folded = normalize_text(fact.subject)
        is_speaker = folded in SPEAKER_WORDS or folded == normalize_text(speaker)
        is_listener = folded in LISTENER_WORDS or bool(
            listener and folded == normalize_text(listener)
        )
        own_value = normalize_text(fact.subject) == normalize_text(str(fact.value))
        if own_value and _FIRST_PERSON.search(text):
            return self._rewrite_subject(fact, speaker, "subject equals its value")
        if is_speaker:
            owner = third_party_owner(text, speaker, listener, fact.value)
            if owner is not None and not relation_value(fact.value, text):
                self._people.add(owner)
                return self._rewrite_subject(fact, owner, "a relative's news told without 'I'")
            return fact.subject
        if is_listener:
            if concept_said_as_mine(text, fact.property, fact.value):
                return self._rewrite_subject(fact, speaker, "the turn says 'my' of this concept")
            if said_of_self(fact.value, text, listener):
                return self._rewrite_subject(fact, speaker, "its value is said with 'I', not 'you'")
            if addressed(text, listener):
                return fact.subject
            return self._unnamed_subject(fact, "the turn does not speak to the listener")
        if mentions(text, fact.subject) or third_person(text):
            return fact.subject
        return self._unnamed_subject(fact, "the turn does not name the subject")

    def _unnamed_subject(self, fact: ExtractedFact, why: str) -> str | None:
        """A subject the turn does not speak of: the speaker's when they speak of themself."""
        if _FIRST_PERSON.search(self.item.text):
            return self._rewrite_subject(fact, self.item.speaker, why + "; a first-person turn")
        self._drop(fact, why)
        return None

    def _rewrite_subject(self, fact: ExtractedFact, subject: str, why: str) -> str:
        if normalize_text(subject) != normalize_text(fact.subject):
            self.resolver.record(
                self.item.turn().turn_id,
                "subject",
                f"{fact.subject}.{fact.property}",
                "choose_existing",
                chosen=subject,
                via="rule",
                rationale=why,
            )
        return subject

    def _subject_type(self, subject: str, extraction_types: dict[str, EntityType]) -> EntityType:
        return extraction_types.get(normalize_text(subject), EntityType.CONCEPT)

    def _add_fact(
        self, batch: GraphBatch, fact: ExtractedFact, event: Event, when: GroundedTime
    ) -> None:
        turn = batch.turns[0]
        noise = _noise(fact)
        if noise is not None:
            self._drop(fact, noise)
            return
        types = {
            normalize_text(p.name): p.entity_type for p in _participants_of(batch, self.resolver)
        }
        fact = self._flag_filed_on_value(fact, types)
        in_place = self._in_place_of_taken_back(fact)
        if in_place is None:
            return
        fact = in_place
        unsaid = self._unfaithful(fact)
        left = unsaid is not None and self._left_in_this_turn(fact)
        if unsaid is not None and not left:
            if unsaid.endswith(UNSAID):
                self.copied.append(to_snake_case(fact.property))
            self._drop(fact, unsaid)
            return
        fact = self._value_filed_as_subject(self._whole_value(fact), types)
        name = self._subject_name(fact)
        if name is None:
            return
        kind = EntityType.PERSON if name in self._people else self._subject_type(name, types)
        subject = self._resolve(name, kind, Role.MENTIONED)
        if subject is None:
            self._drop(fact, "subject is not an entity")
            return
        held = self._held_by_property(subject.entity_id)
        proposed = self._home_of_a_person(self.resolver.property(turn.turn_id, fact), fact, subject)
        prop = self._entity_property(proposed, fact, held)
        if self._restates_left_value(fact, prop.name, held.get(prop.name, [])):
            self._drop(fact, "the value this turn's change leaves, said again")
            return
        if self._said_under_common_name(fact, prop.name):
            self._drop(fact, "the turn states this value under a common property already")
            return
        if left and any(holds_value(records, fact.value) for records in held.values()):
            self._drop(fact, f"the value {fact.value!r} is left in this turn; its fact is ended")
            return
        value, dtype = _typed_value(fact, prop, turn.anchor_datetime)
        span = locate_evidence(fact.evidence, turn.text)
        start, end = span if span is not None else (0, len(turn.text))
        evidence = Evidence(
            text=turn.text[start:end], turn_id=turn.turn_id, span_start=start, span_end=end
        )
        t_from, t_to = self._interval(fact, when, turn.anchor_datetime, turn.text[start:end])
        if left:
            t_from, t_to = self._end_time(when), None
        t_from = _not_before_the_day_earlier(t_from, turn.anchor_datetime, held.get(prop.name))
        corrected = self._corrected(fact, prop.name, held.get(prop.name, []))
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
                recorded_at=_recorded_after(corrected) if corrected is not None else None,
            )
        except ValidationError as exc:
            self._drop(fact, f"invalid fact: {exc.errors()[0]['msg']}")
            return
        if evidence.evidence_id not in {e.evidence_id for e in batch.evidence}:
            batch.evidence.append(evidence)
        if left:
            batch.facts.extend(_held_until_now(row))
            return
        batch.facts.append(row)

    def _left_in_this_turn(self, fact: ExtractedFact) -> bool:
        """Whether the turn says the fact's value ended ("Lost my job as a banker yesterday")
        rather than denying or correcting it: memory keeps the value as one that held until
        then, not as a current one, and not forgotten either."""
        text = self.item.text
        return said_to_end(fact.value, text) and not is_correction(text, fact.value)

    def _keep_one_value_at_a_time(self, batch: GraphBatch) -> None:
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
            kept = next((r for r in rows if said_as_name(r.value, self.item.text)), rows[0])
            for row in rows:
                if normalize_text(str(row.value)) != normalize_text(str(kept.value)):
                    why = f"{row.value!r} beside {kept.value!r}: one value at a time"
                    self._drop_row(batch, row, why)

    def _drop_cut_short(self, batch: GraphBatch) -> None:
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
                    self._drop_row(batch, row, f"{row.value!r} is a piece of {whole.value!r}")

    def _drop_row(self, batch: GraphBatch, row: Fact, why: str) -> None:
        """Remove a fact already built for this turn, recorded as a dropped decision."""
        batch.facts.remove(row)
        self.dropped += 1
        self.resolver.record(
            self.item.turn().turn_id, "dropped", f"{row.entity_id}.{row.property}", "none",
            confidence=0.0, rationale=why,
        )  # fmt: skip

    def _correct_unextracted(self, batch: GraphBatch, event: Event) -> None:
        """Append the correction a turn says of the speaker's current value when the model
        gave no fact for it ("Sorry, X? What am I on about. Y, obviously."): Y replaces X
        from X's start, as ``_corrected`` does for an extracted Y."""
        speaker = self._memo.get(normalize_text(self.item.speaker))
        if speaker is None:
            return
        text, turn_id = self.item.text, batch.turns[0].turn_id
        given = {f.property for f in batch.facts if f.entity_id == speaker.entity_id}
        values = {normalize_text(str(f.value)) for f in batch.facts}
        for name, records in self._held_by_property(speaker.entity_id).items():
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
                     recorded_at=_recorded_after(last))
            )  # fmt: skip
            self.resolver.record(
                turn_id, "value", f"{speaker.entity_id}.{name}", "choose_existing",
                chosen=instead, via="correction",
                rationale=f"the turn takes {last.value!r} back and says {instead!r} instead",
            )  # fmt: skip

    def _end_given_up_values(self, batch: GraphBatch, event: Event, when: GroundedTime) -> None:
        """Append an end (a fact whose value is None) for each current value the turn says
        no longer holds ("I don't live in Boston anymore", "I sold the Civic") when the turn
        gives that property no new value: the old value stops applying from the turn's time,
        and nothing is overwritten. Only the speaker's and the turn's subjects' values are
        ended; a correction ("it's Y, not X") is left to ``_corrected``."""
        text, turn_id = self.item.text, batch.turns[0].turn_id
        given = {(f.entity_id, f.property) for f in batch.facts}
        for entity_id in self._ending_candidates(batch):
            for name, records in self._held_by_property(entity_id).items():
                last = records[-1]
                if (entity_id, name) in given or last.value is None:
                    continue
                if not said_to_end(last.value, text) or is_correction(text, last.value):
                    continue
                t_from = max(self._end_time(when), last.t_from)
                batch.facts.append(
                    Fact(entity_id=entity_id, property=name, dtype=last.dtype, value=None,
                         t_from=t_from, confidence=0.9, event_id=event.event_id,
                         evidence_id=batch.evidence[0].evidence_id)
                )  # fmt: skip
                self.resolver.record(
                    turn_id, "end", f"{entity_id}.{name}", "choose_existing", chosen=t_from,
                    via="rule", rationale=f"the turn says {last.value!r} no longer holds",
                )  # fmt: skip

    def _end_time(self, when: GroundedTime) -> str:
        """When an ended value stopped: the time words of the turn itself ("I gave it up
        last month"), which the model's event time may miss, else the event's time."""
        said = ground_time(find_expression(self.item.text), None, self.item.turn().anchor_datetime)
        return when.start if said.is_default else said.start

    def _ending_candidates(self, batch: GraphBatch) -> list[str]:
        """The entities whose values a turn may end: its speaker and its facts' subjects
        (never the listener, whom a question like "you're not at X anymore?" only asks)."""
        ids = {f.entity_id for f in batch.facts}
        speaker = self._memo.get(normalize_text(self.item.speaker))
        if speaker is not None:
            ids.add(speaker.entity_id)
        listener = self._memo.get(normalize_text(self.item.listener or ""))
        if listener is not None and (speaker is None or listener.entity_id != speaker.entity_id):
            ids.discard(listener.entity_id)
        return sorted(ids)

    def _unfaithful(self, fact: ExtractedFact) -> str | None:
        """Why the turn does not state the fact (its value unsaid, or denied), or None."""
        text, name = self.item.text, to_snake_case(fact.property)
        if is_iso_date(fact.value) and DATE_PROPERTY.search(name):
            return None  # an ISO date the model grounded itself: its time words are checked
        if names_its_property(fact.value, name):
            return f"the value {fact.value!r} only repeats the property's name"
        if isinstance(fact.value, str) and is_clause(fact.value):
            return f"the value {fact.value!r} is a clause, not a value"
        if name == "name" and names_someone_else(fact, self.item):
            return f"{fact.value!r} is not {fact.subject}'s name"
        if not value_said(fact.value, text, name):
            return f"the value {fact.value!r} {UNSAID}"
        if negated(fact.value, text) and not _NAMES_AN_ENDING.search(name.replace("_", " ")):
            return f"the value {fact.value!r} is denied or left in this turn"
        return None

    def _held_by_property(self, entity_id: str) -> dict[str, list[FactRecord]]:
        """Memory's facts about the entity by property, read once per turn and entity."""
        if entity_id not in self._held_memo:
            held: dict[str, list[FactRecord]] = {}
            for record in self.held(entity_id) if self.held is not None else []:
                held.setdefault(record.property, []).append(record)
            self._held_memo[entity_id] = held
        return self._held_memo[entity_id]

    def _home_of_a_person(self, prop: Property, fact: ExtractedFact, subject: Entity) -> Property:
        """``lives_in`` for a place name a person's "location" (or "rental_location", "home")
        gives in a turn about their home ("Sofa-surfing is over: I've signed for a flat in
        Leeds" as ``location = Leeds``). Without home words a location is where someone is,
        not where they live, so it stays as it is."""
        text = self.item.text
        if subject.entity_type != EntityType.PERSON or not _HOME_PROPERTY.match(prop.name):
            return prop
        if not isinstance(fact.value, str) or not said_as_name(fact.value, text):
            return prop
        if not _HOME_WORDS.search(text):
            return prop
        self.resolver.record(
            self.item.turn().turn_id, "property", fact.property, "choose_existing",
            chosen=LIVES_IN, via="rule",
            rationale=f"a place name the turn says is {subject.name}'s home",
        )  # fmt: skip
        home = fact.model_copy(update={"property": LIVES_IN})
        return self.resolver.property(self.item.turn().turn_id, home)

    def _entity_property(
        self, prop: Property, fact: ExtractedFact, held: dict[str, list[FactRecord]]
    ) -> Property:
        """The property of this entity that already holds the concept ``prop`` names.

        A name memory's lexicon does not know (``car_make``, ``rental_location``) joins the
        entity's property that holds the same value already, or the property whose current
        value the turn gives up. The local model's ResolveProperty chose an existing property
        for almost any name sharing a word ("dance_session" -> "dance_style"), so no LLM is
        asked here. Lexicon names are trusted as they are (``hometown`` and ``lives_in`` may
        hold one city).
        """
        corrected = self._corrected_property(held, fact)
        if corrected is not None and corrected != prop.name:
            return self._known(corrected, prop)
        if common_property(prop.name) is not None:
            return prop
        renamed = self._renamed.get(prop.name)
        if renamed is not None:
            return self._known(renamed, prop)
        chosen = self._held_property(prop, fact, held)
        if chosen is None:
            return prop
        self._renamed[prop.name] = chosen
        return self._known(chosen, prop)

    def _held_property(
        self, prop: Property, fact: ExtractedFact, held: dict[str, list[FactRecord]]
    ) -> str | None:
        """The entity's property the rules of ``_entity_property`` find, or None."""
        turn_id = self.item.turn().turn_id
        replaced = self._replaced_property(held, fact)
        if replaced is not None and replaced != prop.name:
            self.resolver.record(
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
        self.resolver.record(
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
        self, held: dict[str, list[FactRecord]], fact: ExtractedFact
    ) -> str | None:
        """The one property whose current value this turn gives up ("I sold the X", "Y, not
        X", "leaving X"): a new value in the same turn under a name memory does not know
        replaces it."""
        given_up = _given_up_properties(held, fact, self.item.text)
        return next(iter(given_up)) if len(given_up) == 1 else None

    def _corrected_property(
        self, held: dict[str, list[FactRecord]], fact: ExtractedFact
    ) -> str | None:
        """The one property whose current value the turn takes back as a mistake, said in
        the sentence that gives this fact's value ("my mistake: Chattanooga, not Savannah"):
        the new value belongs there, whatever name the model gave it. Recorded as a
        decision."""
        taken = self._corrects.get(normalize_text(str(fact.value)))
        if taken is not None:
            holding = [n for n, records in held.items() if holds_value(records[-1:], taken)]
            if len(holding) == 1:
                return self._record_corrected(fact, holding[0])
        sentence = next(
            (s for s in SENTENCE_END.split(self.item.text) if value_said(fact.value, s)), None
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
        return self._record_corrected(fact, next(iter(corrected)))

    def _record_corrected(self, fact: ExtractedFact, chosen: str) -> str:
        self.resolver.record(
            self.item.turn().turn_id, "property", fact.property, "choose_existing",
            chosen=chosen, via="rule",
            rationale=f"the turn corrects the entity's {chosen!r} value with this one",
        )  # fmt: skip
        return chosen

    def _known(self, name: str, fallback: Property) -> Property:
        return self.resolver.properties.properties.get(name, fallback)

    def _restates_left_value(
        self, fact: ExtractedFact, prop_name: str, records: list[FactRecord]
    ) -> bool:
        """Whether the fact says the entity's current value again in a turn that gives the
        same property a new value ("I packed up in Omaha and settled in Raleigh"), under the
        fact's own name or the one it was joined to ("vehicle = Genesis G70" beside "nephew
        = Rivian R1T", joined to ``car``, for "the Rivian R1T went to my nephew")."""
        if not records or records[-1].value is None or not holds_value(records[-1:], fact.value):
            return False
        subject = _subject_key(fact.subject, self.item.speaker)
        own = stored_property_name(fact.property)
        given: set[str] = set()
        for (other_subject, other_prop), values in self._stated.items():
            if other_subject == subject and other_prop in (own, prop_name):
                given |= values
        return len(given) > 1

    def _said_under_common_name(self, fact: ExtractedFact, prop_name: str) -> bool:
        """Whether this turn gives the fact's value (or a value containing it) to the same
        subject under a lexicon property, while this fact's property is not one: the model
        said "employer = Soylent Foods" and also "commute = Soylent Foods"."""
        if common_property(prop_name) is not None:
            return False
        subject = _subject_key(fact.subject, self.item.speaker)
        value = normalize_text(str(fact.value))
        for (other_subject, other_prop), values in self._stated.items():
            if other_subject != subject or common_property(other_prop) is None:
                continue
            if any(value and value in said for said in values):
                return True
        return False

    def _corrected(
        self, fact: ExtractedFact, prop_name: str, records: list[FactRecord]
    ) -> FactRecord | None:
        """The current value a correction ("I misspoke: it's Y, not X") replaces, or None.
        Y takes X's t_from, so every read after that time gives Y and X never holds again;
        Y is recorded after X, so that Y wins the tie at X's start (``_recorded_after``)."""
        if not records or records[-1].value is None:
            return None
        last = records[-1]
        value_said_before = normalize_text(str(last.value)) != normalize_text(str(fact.value))
        text = self.item.text
        if not value_said_before or not value_said(last.value, text, prop_name):
            return None
        if not is_correction(text, last.value):
            return None
        self.resolver.record(
            self.item.turn().turn_id,
            "time",
            f"{fact.subject}.{prop_name}",
            "choose_existing",
            chosen=last.t_from,
            via="correction",
            rationale=f"corrects {last.value!r}: the new value holds from its start",
        )
        return last

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

    def _drop(self, fact: ExtractedFact, why: str) -> None:
        self.dropped += 1
        self.resolver.record(
            self.item.turn().turn_id,
            "dropped",
            f"{fact.subject}.{fact.property}",
            "none",
            confidence=0.0,
            rationale=why,
        )


def _noise(fact: ExtractedFact) -> str | None:
    """Why a fact holds nothing to remember (a speech act or an empty value), or None."""
    name = stored_property_name(fact.property)
    if name in SPEECH_ACTS or _SHARING_ACT.search(name):
        return f"{fact.property!r} is a speech act, not a property of {fact.subject!r}"
    if isinstance(fact.value, str) and normalize_text(fact.value) in NO_VALUE:
        return f"the value {fact.value!r} says there is no value"
    if isinstance(fact.value, str) and PHOTO_MARKUP[1:] in fact.value.casefold():
        return f"the value {fact.value!r} is the photo's markup, not something said"
    return None


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


def _stated_values(facts: list[ExtractedFact], speaker: str) -> dict[tuple[str, str], set[str]]:
    """The values a turn gives each (subject, property name); the speaker's key is "*"."""
    stated: dict[tuple[str, str], set[str]] = {}
    for fact in facts:
        key = (_subject_key(fact.subject, speaker), stored_property_name(fact.property))
        stated.setdefault(key, set()).add(normalize_text(str(fact.value)))
    return stated


def _subject_key(subject: str, speaker: str) -> str:
    folded = normalize_text(subject)
    return "*" if folded in SPEAKER_WORDS or folded == normalize_text(speaker) else folded


def _held_until_now(row: Fact) -> list[Fact]:
    """A value the turn says ended, which memory did not hold: the value, then its end (a
    fact whose value is None) at the same time and recorded just after, so reads find it
    in the history and never as current. When it began is not known."""
    now = normalize_time(utc_now())
    held = row.model_copy(update={"recorded_at": now})
    end = Fact(entity_id=row.entity_id, property=row.property, dtype=row.dtype, value=None,
               t_from=row.t_from, confidence=row.confidence, event_id=row.event_id,
               evidence_id=row.evidence_id, recorded_at=just_after(now))  # fmt: skip
    return [held, end]


def _recorded_after(corrected: FactRecord) -> str:
    """When a correction is recorded: now, or just after the value it corrects when that was
    recorded within the same second, so that reads order the correction last."""
    return max(normalize_time(utc_now()), just_after(corrected.recorded_at))


def _not_before_the_day_earlier(t_from: str, anchor: str, records: list[FactRecord] | None) -> str:
    """A value said with a day's precision on the turn's own day ("today") starts at the
    turn's time when its day start would put it before the value an earlier turn of that day
    gave the same property: said later, it cannot have begun first."""
    if not records or not t_from.endswith(DAY_START) or t_from[:10] != anchor[:10]:
        return t_from
    return anchor if t_from < records[-1].t_from <= anchor else t_from
