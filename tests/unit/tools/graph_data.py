# ruff: noqa: E501 - a table of queries reads best one per line
"""A small memory graph for the tool tests, written the same way to SQLite and Neo4j.

Every id, name and property carries the prefix ``tqx`` so that tests on the shared Neo4j
server can find (and clean up) exactly their own nodes. The data has what the queries need:
values that change over time, overlapping and open intervals, facts without an event or
evidence, an entity without facts, an event without participants, a turn without listener.
"""

from __future__ import annotations

from typing import Any, Final

from apexmem_neo.ontology import (
    Entity,
    Event,
    EventParticipant,
    Evidence,
    Fact,
    GraphBatch,
    Session,
    Turn,
)

P: Final = "tqx"
RECORDED: Final = "2030-01-01T00:00:00"
ALICE: Final = f"{P}_ent_alice"
BOB: Final = f"{P}_ent_bob"
PARIS: Final = f"{P}_ent_paris"
ACME: Final = f"{P}_ent_acme"
REX: Final = f"{P}_ent_rex"


def _sessions() -> list[Session]:
    return [
        Session(session_id=f"{P}_ses_1", conversation_id=f"{P}_conv", seq=1,
                started_at="2021-06-01T10:00:00"),
        Session(session_id=f"{P}_ses_2", conversation_id=f"{P}_conv", seq=2,
                started_at=None),
    ]  # fmt: skip


TURNS: Final = [
    (1, 0, "Alice", "Bob", "I moved to Paris last month!", "2021-08-02T09:15:00"),
    (1, 1, "Bob", "Alice", "Nice. I still work at Acme.", "2021-08-02T09:16:30"),
    (1, 2, "Alice", None, "I turned 31 in January.", "2021-08-02T09:18:00"),
    (2, 0, "Alice", "Bob", "Now I am in London and at Globex.", "2023-04-10T18:00:00"),
    (2, 1, "Bob", "Alice", "We adopted Rex, our dog!", "2023-04-10T18:02:00"),
    (2, 2, "World", None, "Acme | announced | layoffs\nin 2022", "2023-04-11T00:00:00"),
]


def _turns() -> list[Turn]:
    return [
        Turn(turn_id=f"{P}_turn_{s}_{q}", session_id=f"{P}_ses_{s}", seq=q, speaker=sp,
             listener=li, text=tx, anchor_datetime=at)
        for s, q, sp, li, tx, at in TURNS
    ]  # fmt: skip


def _entities() -> list[Entity]:
    spec = [
        (ALICE, "Alice Tqx", "Person", "Speaker", ("Ali",)),
        (BOB, "Bob Tqx", "Person", "Speaker", ()),
        (PARIS, "Paris Tqx", "Place", "Mentioned", ("City of Light",)),
        (ACME, "Acme Tqx", "Organization", "Mentioned", ()),
        (REX, "Rex Tqx", "Animal", "Mentioned", ()),
    ]
    return [
        Entity(entity_id=i, name=n, entity_type=t, role=r, aliases=a, description=f"{n} desc")
        for i, n, t, r, a in spec
    ]


def _evidence() -> list[Evidence]:
    spec = [
        ("move", "1_0", 0, 28, "I moved to Paris last month!"),
        ("work", "1_1", 6, 27, "I still work at Acme."),
        ("age", "1_2", 0, 23, "I turned 31 in January."),
        ("london", "2_0", 0, 33, "Now I am in London and at Globex."),
        ("news", None, None, None, "Acme announced layoffs"),
    ]
    return [
        Evidence(evidence_id=f"{P}_evd_{k}", turn_id=f"{P}_turn_{t}" if t else None,
                 span_start=a, span_end=b, text=tx)
        for k, t, a, b, tx in spec
    ]  # fmt: skip


def _events() -> list[Event]:
    spec = [
        ("move", "move", "2021-07-01T00:00:00", "Paris", "1_0", "move"),
        ("job", "job_change", "2023-01-01T00:00:00", None, "2_0", "london"),
        ("birthday", "birthday", "2021-01-15T00:00:00", None, "1_2", "age"),
        ("adopt", "adoption", "2023-04-01T12:30:00", "London", "2_1", None),
        ("layoffs", "announcement", "2022-11-20T08:00:00", None, None, "news"),
    ]
    return [
        Event(event_id=f"{P}_ev_{k}", event_type=t, anchor_datetime=at, location=loc,
              turn_id=f"{P}_turn_{tu}" if tu else None,
              evidence_id=f"{P}_evd_{ev}" if ev else None)
        for k, t, at, loc, tu, ev in spec
    ]  # fmt: skip


def _participants() -> list[EventParticipant]:
    spec = [
        ("move", ALICE, "Agent"), ("move", PARIS, "Mentioned"), ("job", ALICE, "Agent"),
        ("job", ACME, "Mentioned"), ("birthday", ALICE, "Agent"), ("adopt", BOB, "Agent"),
        ("adopt", REX, "Mentioned"), ("adopt", ALICE, "Mentioned"),
    ]  # fmt: skip
    return [EventParticipant(event_id=f"{P}_ev_{e}", entity_id=x, role=r) for e, x, r in spec]


FACTS: Final[list[tuple[str, str, str, Any, str, str | None, float, str | None, str | None]]] = [
    # (entity, property, dtype, value, t_from, t_to, confidence, event, evidence)
    (ALICE, "city", "str", "Berlin", "2020-01-01T00:00:00", "2021-06-30T23:59:59", 0.9, None, None),
    (ALICE, "city", "str", "Paris", "2021-07-01T00:00:00", None, 1.0, "move", "move"),
    (ALICE, "city", "str", "London", "2023-03-15T00:00:00", None, 0.95, "job", "london"),
    (ALICE, "employer", "str", "Acme", "2019-05-01T00:00:00", "2022-12-31T00:00:00", 0.8, None, "work"),
    (ALICE, "employer", "str", "Globex", "2023-01-01T00:00:00", None, 1.0, "job", "london"),
    (ALICE, "age", "int", 30, "2020-01-15T00:00:00", "2021-01-14T00:00:00", 1.0, None, None),
    (ALICE, "age", "int", 31, "2021-01-15T00:00:00", "2022-01-14T00:00:00", 1.0, "birthday", "age"),
    (ALICE, "age", "int", 32, "2022-01-15T00:00:00", "2023-01-14T00:00:00", 0.7, None, None),
    (BOB, "city", "str", "Paris", "2020-02-01T00:00:00", None, 1.0, None, None),
    (BOB, "employer", "str", "Acme", "2018-01-01T00:00:00", "2020-12-31T00:00:00", 1.0, None, "work"),
    (BOB, "employer", "str", "Acme", "2021-01-01T00:00:00", None, 0.6, None, "work"),
    (BOB, "age", "int", 40, "2021-08-02T00:00:00", None, 0.5, None, None),
    (BOB, "pet", "str", "Rex", "2023-04-01T12:30:00", None, 1.0, "adopt", None),
    (ACME, "headcount", "int", 1200, "2022-01-01T00:00:00", "2022-11-19T00:00:00", 0.8, None, None),
    (ACME, "headcount", "int", 900, "2022-11-20T08:00:00", None, 0.9, "layoffs", "news"),
]  # fmt: skip


def _facts() -> list[Fact]:
    out = []
    for i, (ent, prop, dtype, value, t1, t2, conf, ev, evd) in enumerate(FACTS):
        out.append(
            Fact(fact_id=f"{P}_fact_{i:02d}", entity_id=ent, property=f"{P}_{prop}",
                 dtype=dtype, value=value, t_from=t1, t_to=t2, confidence=conf,
                 event_id=f"{P}_ev_{ev}" if ev else None,
                 evidence_id=f"{P}_evd_{evd}" if evd else None,
                 recorded_at="2030-01-02T00:00:00" if i == 2 else None)
        )  # fmt: skip
    return out


def build_batch() -> GraphBatch:
    """The test graph as one batch (same content, same recorded_at on every backend)."""
    return GraphBatch(
        sessions=_sessions(),
        turns=_turns(),
        entities=_entities(),
        evidence=_evidence(),
        events=_events(),
        participants=_participants(),
        facts=_facts(),
        recorded_at=RECORDED,
    )
