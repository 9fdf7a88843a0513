"""A small store shaped like one construction builds from a conversation, with its mess.

One scope, a session with turns, evidence quoting them, an event per turn with its speaker
and listener, and facts at turn times: two values filed at one time, a value repeated, an
end (None), photo markup, a bare "true", a short word, a place whose value is its own name,
and a partner that names another entity (a join). Shared by the unit tests and the Neo4j
integration test of the real-memory questions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from apexmem_neo.ontology import (
    DType,
    Entity,
    Event,
    EventParticipant,
    Evidence,
    Fact,
    GraphBatch,
    Session,
    Turn,
)
from apexmem_neo.store.sqlite import SQLiteGraphStore

SCOPE: Final = "conv-x"
FACTS: Final[list[tuple[str, str, str, Any]]] = [
    ("Ann", "lives_in", "2023-01-10T09:15:00", "Denver"),
    ("Ann", "lives_in", "2023-02-01T14:00:00", "Boston"),
    ("Ann", "lives_in", "2023-02-01T14:00:00", "Austin"),
    ("Ann", "lives_in", "2023-03-01T10:00:00", "Austin"),
    ("Ann", "favourite_restaurant", "2023-01-10T09:15:00", "Cafe Rio"),
    ("Ann", "favourite_restaurant", "2023-01-20T18:30:00", "Noodle Bar"),
    ("Ann", "favourite_restaurant", "2023-01-20T18:30:00", "Noodle Bar"),
    ("Ann", "favourite_restaurant", "2023-02-15T12:00:00", None),
    ("Ann", "mood", "2023-01-10T09:15:00", "[shares a photo of a cake]"),
    ("Ann", "mood", "2023-01-25T00:00:00", "true"),
    ("Ann", "mood", "2023-02-20T00:00:00", "happy"),
    ("Ann", "hobby", "2023-01-10T09:15:00", "art"),
    ("Ann", "hobby", "2023-02-10T08:00:00", "pottery"),
    ("Ann", "occupation", "2023-01-05T10:00:00", "nurse"),
    ("Ann", "occupation", "2023-02-05T11:00:00", "teacher"),
    ("Ann", "occupation", "2023-03-05T12:00:00", "nurse"),
    ("Bo", "occupation", "2023-01-07T10:00:00", "nurse"),
    ("Bo", "partner", "2023-01-07T10:00:00", "Ann"),
    ("Bo", "partner", "2023-03-07T10:00:00", "Cy Lane"),
    ("Lisbon", "location", "2023-01-10T09:15:00", "Lisbon"),
]
"""(entity, property, t_from, value): the facts, in the order construction filed them."""
TYPES: Final = {"Ann": "Person", "Bo": "Person", "Lisbon": "Place"}
SPEAKERS: Final = {"Ann": "Speaker", "Bo": "Listener", "Lisbon": "Mentioned"}


def messy_batch() -> GraphBatch:
    """The store's content: a turn, evidence and event per fact, ids hashed in the scope."""
    session = Session(conversation_id=SCOPE, seq=1)
    entities = {n: Entity(name=n, entity_type=t, role=SPEAKERS[n], scope=SCOPE)
                for n, t in TYPES.items()}  # fmt: skip
    batch: dict[str, list[Any]] = {"turns": [], "evidence": [], "events": [], "participants": [],
                                   "facts": []}  # fmt: skip
    for seq, (name, prop, t_from, value) in enumerate(FACTS):
        recorded = f"2026-01-01T00:{seq:02d}:00"
        turn = Turn(session_id=session.session_id, seq=seq, speaker="Ann", listener="Bo",
                    text=f"turn {seq} about {prop}", anchor_datetime=t_from)  # fmt: skip
        quote = Evidence(text=f"turn {seq}", turn_id=turn.turn_id, span_start=0, span_end=6)
        event = Event(event_type="remark", anchor_datetime=t_from, turn_id=turn.turn_id,
                      evidence_id=quote.evidence_id, recorded_at=recorded)  # fmt: skip
        batch["turns"].append(turn)
        batch["evidence"].append(quote)
        batch["events"].append(event)
        batch["participants"] += [
            EventParticipant(event_id=event.event_id, entity_id=entities[n].entity_id, role=r)
            for n, r in (("Ann", "Speaker"), ("Bo", "Listener"))
        ]
        batch["facts"].append(Fact(entity_id=entities[name].entity_id, property=prop,
                                   dtype=DType.STR, value=value, t_from=t_from,
                                   event_id=event.event_id, evidence_id=quote.evidence_id,
                                   confidence=0.9, recorded_at=recorded))  # fmt: skip
    return GraphBatch(sessions=[session], entities=list(entities.values()), scope=SCOPE, **batch)


def messy_store(path: Path) -> Path:
    """Write the messy store to ``path`` (a SQLite file) and return the path."""
    store = SQLiteGraphStore(path)
    store.init_schema()
    try:
        store.write(messy_batch())
    finally:
        store.close()
    return path
