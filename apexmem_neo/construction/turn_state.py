"""The state one turn's merge shares among its rules (the turn, its resolver, memory's facts,
what the turn resolved, stated and dropped), passed to each rule module explicitly."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from apexmem_neo.construction.candidates import stored_property_name
from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.construction.resolver import Resolver
from apexmem_neo.llm.extract_event import ExtractedFact
from apexmem_neo.ontology import Entity, EntityType, Fact, GraphBatch, Role
from apexmem_neo.ontology.ids import normalize_text
from apexmem_neo.store.protocol import FactRecord

HeldFacts = Callable[[str], list[FactRecord]]
"""Every fact memory holds about an entity id, in time order (the turns already merged)."""

SPEAKER_WORDS: Final = frozenset({"i", "me", "my", "myself", "mine", "we", "us", "our", "speaker"})
LISTENER_WORDS: Final = frozenset({"you", "your", "yourself", "yours", "listener"})
WORLD: Final = "World"


@dataclass
class TurnState:
    """One turn's merge state: what its rules read and what they record as they decide."""

    item: TurnInput
    resolver: Resolver
    held: HeldFacts | None = None
    """Memory's facts about an entity: lets a changed value find the property that holds the
    earlier one and a correction find what it corrects (None: the turn is judged alone)."""
    dropped: int = 0
    copied: list[str] = field(default_factory=list)
    """Property names of the facts dropped because their value is not said in the turn
    (copied or made up)."""
    resolved: dict[str, Entity | None] = field(default_factory=dict)
    stated: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    people: set[str] = field(default_factory=set)
    """Subjects the rules found to be people (a relative named in the turn)."""
    renamed: dict[str, str] = field(default_factory=dict)
    """This turn's unknown property names already joined to an entity's property: the
    other values the turn gives under that name join it too."""
    held_memo: dict[str, dict[str, list[FactRecord]]] = field(default_factory=dict)
    corrects: dict[str, str] = field(default_factory=dict)
    """Names this turn gives in place of a value it takes back, with the value taken back."""

    def resolve(self, mention: str, kind: EntityType, role: Role) -> Entity | None:
        folded = normalize_text(mention)
        if folded in SPEAKER_WORDS and self.item.speaker != WORLD:
            mention, kind = self.item.speaker, EntityType.PERSON
        elif folded in LISTENER_WORDS and self.item.listener:
            mention, kind = self.item.listener, EntityType.PERSON
        if not mention.strip() or normalize_text(mention) == normalize_text(WORLD):
            return None
        key = normalize_text(mention)
        if key not in self.resolved:
            turn_id = self.item.turn().turn_id
            self.resolved[key] = self.resolver.entity(turn_id, mention, kind, role, self.item.text)
        return self.resolved[key]

    def drop(self, fact: ExtractedFact, why: str) -> None:
        self.dropped += 1
        self.resolver.record(
            self.item.turn().turn_id,
            "dropped",
            f"{fact.subject}.{fact.property}",
            "none",
            confidence=0.0,
            rationale=why,
        )

    def drop_row(self, batch: GraphBatch, row: Fact, why: str) -> None:
        """Remove a fact already built for this turn, recorded as a dropped decision."""
        batch.facts.remove(row)
        self.dropped += 1
        self.resolver.record(
            self.item.turn().turn_id, "dropped", f"{row.entity_id}.{row.property}", "none",
            confidence=0.0, rationale=why,
        )  # fmt: skip

    def held_by_property(self, entity_id: str) -> dict[str, list[FactRecord]]:
        """Memory's facts about the entity by property, read once per turn and entity."""
        if entity_id not in self.held_memo:
            held: dict[str, list[FactRecord]] = {}
            for record in self.held(entity_id) if self.held is not None else []:
                held.setdefault(record.property, []).append(record)
            self.held_memo[entity_id] = held
        return self.held_memo[entity_id]


def stated_values(facts: list[ExtractedFact], speaker: str) -> dict[tuple[str, str], set[str]]:
    """The values a turn gives each (subject, property name); the speaker's key is "*"."""
    stated: dict[tuple[str, str], set[str]] = {}
    for fact in facts:
        key = (subject_key(fact.subject, speaker), stored_property_name(fact.property))
        stated.setdefault(key, set()).add(normalize_text(str(fact.value)))
    return stated


def subject_key(subject: str, speaker: str) -> str:
    folded = normalize_text(subject)
    return "*" if folded in SPEAKER_WORDS or folded == normalize_text(speaker) else folded
