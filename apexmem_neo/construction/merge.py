"""Merge(G_t, g_t): resolve a turn's extraction against the graph and build its GraphBatch.

Entities and properties are resolved through ``candidates`` (exact, alias, loose, fuzzy,
dense); the LLM (ResolveEntity / ResolveProperty) is asked only when the candidates are
ambiguous. Canonicalisation is soft: an LLM ``choose_existing`` fuses the mention into the
known entity only at or above ``merge_threshold``; below it the two stay apart. Every
decision, with its rationale and confidence, is returned as a ``DecisionRecord``
(provenance). Times go through the deterministic grounder; evidence quotes are located in
the turn text so every span points into it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from pydantic import ValidationError
from rapidfuzz import fuzz

from apexmem_neo.construction.calls import LLMRunner
from apexmem_neo.construction.candidates import (
    Candidate,
    CandidateSource,
    EntityCatalog,
    PropertyCatalog,
    convert_value,
    infer_dtype,
    settle_entity,
    settle_property,
    stored_property_name,
    to_snake_case,
)
from apexmem_neo.construction.checkpoint import DecisionRecord
from apexmem_neo.construction.grounding import GroundedTime, find_expression, ground_time
from apexmem_neo.construction.job_facts import organisation_test, repair_job_facts
from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.llm.extract_event import ExtractedEvent, ExtractedFact
from apexmem_neo.llm.resolve_entity import ResolveEntity
from apexmem_neo.llm.resolve_property import ResolveProperty
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
from apexmem_neo.ontology.ids import DEFAULT_SCOPE, normalize_text
from apexmem_neo.ontology.lexicon import canonical_property_name, common_property

MERGE_THRESHOLD: Final = 0.75
SPEAKER_WORDS: Final = frozenset({"i", "me", "my", "myself", "mine", "we", "us", "our", "speaker"})
LISTENER_WORDS: Final = frozenset({"you", "your", "yourself", "yours", "listener"})
WORLD: Final = "World"
EVIDENCE_MIN_SCORE: Final = 80.0
SPEECH_ACTS: Final = frozenset(
    {"greeting", "greetings", "thank_you", "thanks", "gratitude", "goodbye", "farewell",
     "acknowledgement", "acknowledgment", "reply", "response"}
)  # fmt: skip
"""Properties naming the act of speaking, not the subject: on LOCOMO the local model stored
"Hey Gina!" as ``greeting`` and "Thanks!" as ``thank_you``, noise that crowds search."""
NO_VALUE: Final = frozenset({"", "none", "null", "n/a", "unknown"})
"""Values that say there is no value (the model wrote ``job_loss = "None"``)."""
_FIRST_PERSON: Final = re.compile(
    r"\b(" + "|".join(sorted(SPEAKER_WORDS - {"speaker"})) + r")\b", re.IGNORECASE
)
"""A speaker word anywhere in the turn ("I'm" matches on "I")."""


@dataclass
class Resolver:
    """Entity and property resolution over the catalogs; collects this turn's changes."""

    entities: EntityCatalog
    properties: PropertyCatalog
    runner: LLMRunner | None = None
    source: CandidateSource | None = None
    merge_threshold: float = MERGE_THRESHOLD
    scope: str = DEFAULT_SCOPE
    """New entities and properties belong to this scope (their ids hash it)."""
    changed_entities: dict[str, Entity] = field(default_factory=dict)
    changed_properties: dict[str, Property] = field(default_factory=dict)
    decisions: list[DecisionRecord] = field(default_factory=list)
    llm_calls: int = 0
    _entity_llm: ResolveEntity = field(default_factory=ResolveEntity)
    _property_llm: ResolveProperty = field(default_factory=ResolveProperty)

    def start_turn(self) -> None:
        self.changed_entities, self.changed_properties = {}, {}
        self.decisions, self.llm_calls = [], 0

    def record(self, turn_id: str, kind: str, mention: str, decision: str, **kw: object) -> None:
        self.decisions.append(
            DecisionRecord.model_validate(
                {"turn_id": turn_id, "kind": kind, "mention": mention, "decision": decision, **kw}
            )
        )

    def _new_entity(self, name: str, kind: EntityType, role: Role) -> Entity:
        entity = Entity(name=" ".join(name.split()), entity_type=kind, role=role, scope=self.scope)
        self.entities.add(entity)
        self.changed_entities[entity.entity_id] = self.entities.entities[entity.entity_id]
        return self.entities.entities[entity.entity_id]

    def _use_existing(self, entity_id: str, mention: str) -> Entity:
        if self.entities.add_alias(entity_id, mention.strip()):
            self.changed_entities[entity_id] = self.entities.entities[entity_id]
        return self.entities.entities[entity_id]

    def entity(
        self, turn_id: str, mention: str, kind: EntityType, role: Role, text: str
    ) -> Entity | None:
        """The entity ``mention`` denotes (existing or new), or None if it is not one."""
        candidates = self.entities.rank(mention, kind, self.source)
        settled = settle_entity(mention, kind, candidates)
        if settled is not None:
            chosen = settled.candidate
            decision = "choose_existing" if chosen else "propose_new"
            self.record(
                turn_id,
                "entity",
                mention,
                decision,
                confidence=settled.confidence,
                chosen=chosen.key if chosen else None,
                via=chosen.via if chosen else "rule",
                rationale=settled.rationale,
            )
            if chosen is not None:
                return self._use_existing(chosen.key, mention)
            return self._new_entity(mention, kind, role)
        return self._ask_entity(turn_id, mention, kind, role, text, candidates)

    def _ask_entity(
        self,
        turn_id: str,
        mention: str,
        kind: EntityType,
        role: Role,
        text: str,
        cands: list[Candidate],
    ) -> Entity | None:
        if self.runner is None:
            why = "ambiguous candidates and no LLM configured"
            self.record(turn_id, "entity", mention, "propose_new", confidence=0.0, rationale=why)
            return self._new_entity(mention, kind, role)
        triples = [(c.name, c.entity_type or "", c.aliases) for c in cands]
        result = self.runner.run(
            "resolve_entity",
            lambda cfg: self._entity_llm(
                mention=mention, mention_type=kind.value, text=text, candidates=triples, config=cfg
            ),
        )
        self.llm_calls += result.calls
        out = result.value
        if out is None:
            why = f"resolver failed: {result.error}"
            self.record(
                turn_id, "entity", mention, "propose_new", confidence=0.0, via="llm", rationale=why
            )
            return self._new_entity(mention, kind, role)
        index = (out.candidate or 0) - 1
        valid = out.decision == "choose_existing" and 0 <= index < len(cands)
        chosen = cands[index] if valid else None
        self.record(
            turn_id,
            "entity",
            mention,
            out.decision,
            chosen=chosen.key if chosen else None,
            confidence=out.confidence,
            via="llm",
            rationale=out.rationale,
        )
        if out.decision == "none":
            return None
        if chosen is None:
            return self._new_entity(mention, kind, role)
        return self._soft_merge(turn_id, mention, kind, role, chosen, out.confidence)

    def _soft_merge(
        self,
        turn_id: str,
        mention: str,
        kind: EntityType,
        role: Role,
        chosen: Candidate,
        confidence: float,
    ) -> Entity:
        """Fuse into ``chosen`` at or above the threshold; below it keep a separate entity."""
        fused = confidence >= self.merge_threshold
        why = f"confidence {confidence:.2f} vs threshold {self.merge_threshold:.2f}"
        self.record(
            turn_id,
            "merge",
            mention,
            "fused" if fused else "kept_apart",
            chosen=chosen.key,
            confidence=confidence,
            via="threshold",
            rationale=why,
        )
        if fused:
            return self._use_existing(chosen.key, mention)
        return self._new_entity(mention, kind, role)

    def property(self, turn_id: str, fact: ExtractedFact) -> Property:
        """The property a fact's proposed name resolves to (existing or new)."""
        proposed = to_snake_case(fact.property)
        snake = canonical_property_name(proposed)
        synonym = f"{proposed!r} is a synonym of {snake!r}; " if snake != proposed else ""
        candidates = self.properties.rank(snake, self.source)
        settled = settle_property(snake, candidates)
        chosen_name: str | None
        if settled is not None:
            chosen_name = settled.candidate.key if settled.candidate else None
            self.record(
                turn_id,
                "property",
                fact.property,
                "choose_existing" if chosen_name else "propose_new",
                chosen=chosen_name or (snake if synonym else None),
                confidence=settled.confidence,
                via="lexicon" if synonym else "rule",
                rationale=synonym + settled.rationale,
            )
        else:
            chosen_name = self._ask_property(turn_id, fact, snake, [c.key for c in candidates])
        if chosen_name is not None:
            return self._with_enum_value(self.properties.properties[chosen_name], fact)
        dtype = _new_property_dtype(snake, fact)
        enum_values = (str(fact.value).strip(),) if dtype == DType.ENUM else ()
        prop = Property(name=snake, dtype=dtype, enum_values=enum_values, scope=self.scope)
        self.properties.add(prop)
        self.changed_properties[snake] = prop
        return prop

    def _ask_property(
        self, turn_id: str, fact: ExtractedFact, snake: str, names: list[str]
    ) -> str | None:
        if self.runner is None:
            return None
        pairs = [(n, self.properties.properties[n].dtype.value) for n in names]
        example = f"{fact.subject} | {snake} | {fact.value}"
        result = self.runner.run(
            "resolve_property",
            lambda cfg: self._property_llm(
                proposed=snake, example=example, candidates=pairs, config=cfg
            ),
        )
        self.llm_calls += result.calls
        out = result.value
        if out is None:
            self.record(
                turn_id,
                "property",
                fact.property,
                "propose_new",
                confidence=0.0,
                via="llm",
                rationale=f"resolver failed: {result.error}",
            )
            return None
        index = (out.candidate or 0) - 1
        ok = out.decision == "choose_existing" and 0 <= index < len(names)
        fused = ok and out.confidence >= self.merge_threshold
        self.record(
            turn_id,
            "property",
            fact.property,
            out.decision,
            chosen=names[index] if ok else None,
            confidence=out.confidence,
            via="llm",
            rationale=out.rationale,
        )
        return names[index] if fused else None

    def _with_enum_value(self, prop: Property, fact: ExtractedFact) -> Property:
        value = str(fact.value).strip()
        if prop.dtype != DType.ENUM or value in prop.enum_values or not value:
            return prop
        widened = prop.model_copy(update={"enum_values": (*prop.enum_values, value)})
        self.properties.properties[prop.name] = widened
        self.changed_properties[prop.name] = widened
        return widened


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


@dataclass
class TurnMerge:
    """Builds one turn's GraphBatch from its extraction (None: the turn alone)."""

    item: TurnInput
    resolver: Resolver
    dropped: int = 0
    _memo: dict[str, Entity | None] = field(default_factory=dict)

    def build(self, extraction: ExtractedEvent | None) -> GraphBatch:
        item, turn = self.item, self.item.turn()
        batch = GraphBatch(sessions=[item.session()], turns=[turn], scope=item.scope)
        if extraction is None or not turn.text.strip():
            return batch
        extraction = self._repair_jobs(extraction)
        whole = Evidence(
            text=turn.text, turn_id=turn.turn_id, span_start=0, span_end=len(turn.text)
        )
        when = ground_time(
            extraction.when or find_expression(turn.text), extraction.time, turn.anchor_datetime
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
        for fact in extraction.facts:
            self._add_fact(batch, fact, event, when)
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

    def _subject_name(self, fact: ExtractedFact) -> str:
        """The fact's subject, or the speaker when the model made the value its own subject.

        A small model turns "I live in Denver" into ``Denver.location = Denver``: a subject
        equal to its value, said in the first person, is the speaker's attribute.
        """
        own_value = normalize_text(fact.subject) == normalize_text(str(fact.value))
        if not own_value or self.item.speaker == WORLD or not _FIRST_PERSON.search(self.item.text):
            return fact.subject
        self.resolver.record(
            self.item.turn().turn_id,
            "subject",
            f"{fact.subject}.{fact.property}",
            "choose_existing",
            chosen=self.item.speaker,
            via="rule",
            rationale="subject equals its value in a first-person statement: the speaker's",
        )
        return self.item.speaker

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
        name = self._subject_name(fact)
        subject = self._resolve(name, self._subject_type(name, types), Role.MENTIONED)
        if subject is None:
            self._drop(fact, "subject is not an entity")
            return
        prop = self.resolver.property(turn.turn_id, fact)
        value, dtype = _typed_value(fact, prop, turn.anchor_datetime)
        span = locate_evidence(fact.evidence, turn.text)
        start, end = span if span is not None else (0, len(turn.text))
        evidence = Evidence(
            text=turn.text[start:end], turn_id=turn.turn_id, span_start=start, span_end=end
        )
        t_from, t_to = self._interval(fact, when, turn.anchor_datetime, turn.text[start:end])
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
            )
        except ValidationError as exc:
            self._drop(fact, f"invalid fact: {exc.errors()[0]['msg']}")
            return
        if evidence.evidence_id not in {e.evidence_id for e in batch.evidence}:
            batch.evidence.append(evidence)
        batch.facts.append(row)

    def _interval(
        self, fact: ExtractedFact, when: GroundedTime, anchor: str, quote: str
    ) -> tuple[str, str | None]:
        expression = fact.when or find_expression(quote)
        grounded = ground_time(expression, fact.t_from, anchor)
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
    if stored_property_name(fact.property) in SPEECH_ACTS:
        return f"{fact.property!r} is a speech act, not a property of {fact.subject!r}"
    if isinstance(fact.value, str) and normalize_text(fact.value) in NO_VALUE:
        return f"the value {fact.value!r} says there is no value"
    return None


def _new_property_dtype(name: str, fact: ExtractedFact) -> DType:
    """A common property's own dtype when the value fits it, else the fact's, else inferred."""
    common = common_property(name)
    for dtype in (common.dtype if common else None, fact.dtype):
        if dtype is not None and convert_value(fact.value, dtype) is not None:
            return dtype
    return infer_dtype(fact.value)


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
