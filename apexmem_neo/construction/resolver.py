"""Resolution of a turn's mentions against memory's catalogs (the Merge step's first half).

Entities and properties are resolved through ``candidates`` (exact, alias, loose, fuzzy,
dense); the LLM (ResolveEntity / ResolveProperty) is asked only when the candidates are
ambiguous. Canonicalisation is soft: an LLM ``choose_existing`` fuses the mention into the
known entity only at or above ``merge_threshold``; below it the two stay apart. Every
decision, with its rationale and confidence, is recorded as a ``DecisionRecord``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

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
    to_snake_case,
)
from apexmem_neo.construction.checkpoint import DecisionRecord
from apexmem_neo.llm.extract_event import ExtractedFact
from apexmem_neo.llm.resolve_entity import ResolveEntity
from apexmem_neo.llm.resolve_property import ResolveProperty
from apexmem_neo.ontology import DType, Entity, EntityType, Property, Role
from apexmem_neo.ontology.ids import DEFAULT_SCOPE
from apexmem_neo.ontology.lexicon import canonical_property_name, common_property

MERGE_THRESHOLD: Final = 0.75


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
            chosen_name = self.ask_property(turn_id, fact, snake, [c.key for c in candidates])
        if chosen_name is not None:
            return self._with_enum_value(self.properties.properties[chosen_name], fact)
        dtype = _new_property_dtype(snake, fact)
        enum_values = (str(fact.value).strip(),) if dtype == DType.ENUM else ()
        prop = Property(name=snake, dtype=dtype, enum_values=enum_values, scope=self.scope)
        self.properties.add(prop)
        self.changed_properties[snake] = prop
        return prop

    def ask_property(
        self, turn_id: str, fact: ExtractedFact, snake: str, names: list[str]
    ) -> str | None:
        """The LLM's choice among the known property ``names`` for ``snake`` (None: new)."""
        names = [n for n in names if n in self.properties.properties]
        if self.runner is None or not names:
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


def _new_property_dtype(name: str, fact: ExtractedFact) -> DType:
    """A common property's own dtype when the value fits it, else the fact's, else inferred."""
    common = common_property(name)
    for dtype in (common.dtype if common else None, fact.dtype):
        if dtype is not None and convert_value(fact.value, dtype) is not None:
            return dtype
    return infer_dtype(fact.value)
