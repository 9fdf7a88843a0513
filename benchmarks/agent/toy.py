"""The toy temporal memory: the packaged Alice sample with gold facts (no LLM extraction).

Turns come from ``apexmem_neo/samples/alice.jsonl`` through the JSONL loader (so turn ids
match what `apexmem demo` ingests); each turn gets one event, its evidence (the whole turn)
and the gold facts below, valid from the turn's anchor time. Questions carry their gold
answers as accepted alternatives (case-insensitive substrings of the answer).
"""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel

from apexmem_neo.construction.loaders import TurnInput, load_turns
from apexmem_neo.ontology import (
    Entity,
    Event,
    EventParticipant,
    Evidence,
    Fact,
    GraphBatch,
    Property,
)
from apexmem_neo.samples import sample_path

GOLD_FACTS: Final[dict[str, list[tuple[str, str]]]] = {
    "alice-demo:t1": [("favourite_restaurant", "Italian Garden")],
    "alice-demo:t2": [("employer", "City Hospital"), ("job_title", "nurse")],
    "alice-demo:t3": [("city", "Boston")],
    "alice-demo:t4": [("favourite_restaurant", "Sakura Sushi")],
    "alice-demo:t5": [("employer", "Google"), ("job_title", "software engineer")],
    "alice-demo:t6": [("city", "Seattle")],
}


class Question(BaseModel):
    kind: str
    question: str
    date: str
    gold: tuple[str, ...]

    def correct(self, answer: str) -> bool:
        text = answer.lower()
        return any(g.lower() in text for g in self.gold)


QUESTIONS: Final[tuple[Question, ...]] = (
    Question(kind="current", question="What is Alice's favourite restaurant now?",
             date="2024-07-01", gold=("Sakura Sushi",)),
    Question(kind="current", question="Which city does Alice live in now?",
             date="2024-07-01", gold=("Seattle",)),
    Question(kind="current", question="Who is Alice's employer now?",
             date="2024-07-01", gold=("Google",)),
    Question(kind="as-of", question="What was Alice's favourite restaurant on 2024-02-01?",
             date="2024-07-01", gold=("Italian Garden",)),
    Question(kind="as-of", question="Which city did Alice live in on 2024-04-15?",
             date="2024-07-01", gold=("Boston",)),
    Question(kind="as-of", question="What was Alice's favourite restaurant two months ago?",
             date="2024-04-01", gold=("Italian Garden",)),
    Question(kind="when-changed", question="When did Alice's favourite restaurant change?",
             date="2024-07-01", gold=("2024-03-20", "march 20")),
    Question(kind="when-changed", question="When did Alice move to Seattle?",
             date="2024-07-01", gold=("2024-06-10", "june 10")),
    Question(kind="before-X", question="Where did Alice work before Google?",
             date="2024-07-01", gold=("City Hospital",)),
    Question(kind="before-X",
             question="What was Alice's job before she became a software engineer?",
             date="2024-07-01", gold=("nurse",)),
    Question(kind="count", question="How many times did Alice's favourite restaurant change?",
             date="2024-07-01", gold=("1", "once", "one")),
)  # fmt: skip


def toy_batch() -> GraphBatch:
    """The Alice sample as a graph batch with the gold facts."""
    return gold_batch(load_turns(sample_path(), "jsonl"), "Alice", GOLD_FACTS, "2024-07-01")


def gold_batch(
    turns: list[TurnInput],
    person: str,
    gold: dict[str, list[tuple[str, str]]],
    recorded_at: str,
) -> GraphBatch:
    """Turns with one event each (its evidence the whole turn) and the gold facts of
    ``gold[turn.source_key]`` about ``person``, valid from the turn's anchor time."""
    subject = Entity(name=person, entity_type="Person", role="Speaker")
    batch = GraphBatch(
        sessions=list({t.session_id: t.session() for t in turns}.values()),
        turns=[t.turn() for t in turns],
        entities=[subject],
        properties=[
            Property(name=p, dtype="str")
            for p in sorted({p for fs in gold.values() for p, _ in fs})
        ],
        recorded_at=recorded_at,
    )
    for item in turns:
        turn = item.turn()
        evidence = Evidence(turn_id=turn.turn_id, text=turn.text)
        event = Event(event_type="statement", anchor_datetime=turn.anchor_datetime,
                      turn_id=turn.turn_id, evidence_id=evidence.evidence_id)  # fmt: skip
        batch.evidence.append(evidence)
        batch.events.append(event)
        batch.participants.append(
            EventParticipant(event_id=event.event_id, entity_id=subject.entity_id, role="Agent")
        )
        for prop, value in gold.get(item.source_key, []):
            batch.facts.append(
                Fact(
                    entity_id=subject.entity_id,
                    property=prop,
                    dtype="str",
                    value=value,
                    t_from=turn.anchor_datetime,
                    event_id=event.event_id,
                    evidence_id=evidence.evidence_id,
                )  # fmt: skip
            )
    return batch
