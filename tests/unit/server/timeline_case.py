"""Alice's demo as gold facts for the /ui timeline tests: the six turns of
``apexmem_neo/samples/alice.jsonl``, each with the event, evidence and fact the demo's
extraction stores (favourite restaurant, employer and home city, each changed once), written
straight to a store with no LLM. ``extra_batch`` adds what the unit tests need beyond the demo:
an end and values that look like HTML."""

from __future__ import annotations

from typing import Final

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

RECORDED: Final = "2024-07-01T00:00:00"
DEMO: Final = (
    ("s1", "2024-01-15T19:00:00", "My favourite restaurant is Italian Garden.",
     "favourite_restaurant", "Italian Garden"),
    ("s1", "2024-01-15T19:02:00", "I work as a nurse at City Hospital.",
     "employer", "City Hospital"),
    ("s1", "2024-01-15T19:04:00", "I live in Boston.", "home_city", "Boston"),
    ("s2", "2024-03-20T19:00:00", "Sakura Sushi is my favourite restaurant now.",
     "favourite_restaurant", "Sakura Sushi"),
    ("s3", "2024-05-02T09:00:00",
     "Google is my employer now: I started there as a software engineer.",
     "employer", "Google"),
    ("s4", "2024-06-10T18:00:00", "Seattle is my home city now: I moved there from Boston.",
     "home_city", "Seattle"),
)  # fmt: skip
"""(session, time, what Alice said, property, value), in the order she said it."""
CHANGES: Final = (
    ("2024-03-20", "favourite_restaurant", "Italian Garden", "Sakura Sushi"),
    ("2024-05-02", "employer", "City Hospital", "Google"),
    ("2024-06-10", "home_city", "Boston", "Seattle"),
)
ROWS: Final = ("sessions", "turns", "evidence", "events", "participants", "facts")
XSS: Final = "<script>alert(1)</script>"
XSS_TURN: Final = 'Call me <img src=x onerror="alert(2)"> from now on & "so on".'


def alice(scope: str) -> Entity:
    return Entity(name="Alice", entity_type="Person", role="Speaker", scope=scope)


def said(scope: str, lines: tuple[tuple[str, str, str, str, object], ...]) -> GraphBatch:
    """One turn per line, each with an event, its evidence and one fact of Alice (the rows
    are gathered first: a batch derives its properties from its facts when it is made)."""
    person = alice(scope)
    rows: dict[str, list[object]] = {k: [] for k in ROWS}
    for seq, (session, when, text, prop, value) in enumerate(lines):
        sid = f"{scope}-{session}"
        turn = Turn(session_id=sid, seq=seq, speaker="Alice", listener="Bob", text=text,
                    anchor_datetime=when)  # fmt: skip
        evidence = Evidence(turn_id=turn.turn_id, text=text)
        event = Event(event_type="statement", anchor_datetime=when, turn_id=turn.turn_id,
                      evidence_id=evidence.evidence_id)  # fmt: skip
        if all(s.session_id != sid for s in rows["sessions"]):  # type: ignore[attr-defined]
            rows["sessions"].append(Session(session_id=sid, conversation_id=f"{scope}-demo"))
        rows["turns"].append(turn)
        rows["evidence"].append(evidence)
        rows["events"].append(event)
        rows["participants"].append(
            EventParticipant(event_id=event.event_id, entity_id=person.entity_id, role="Agent")
        )
        rows["facts"].append(
            Fact(entity_id=person.entity_id, property=prop, dtype="str", value=value,
                 t_from=when[:10], event_id=event.event_id, evidence_id=evidence.evidence_id)
        )  # fmt: skip
    return GraphBatch(entities=[person], recorded_at=RECORDED, scope=scope, **rows)  # type: ignore[arg-type]


def demo_batch(scope: str = "alice") -> GraphBatch:
    """The demo's facts in ``scope``: three properties, each changed once."""
    return said(scope, DEMO)


def extra_batch(scope: str = "alice") -> GraphBatch:
    """A pet that Alice later no longer has (an end), and a nickname that looks like HTML."""
    return said(
        scope,
        (
            ("s5", "2024-02-01T10:00:00", "I adopted a dog called Rex.", "pet", "Rex"),
            ("s6", "2024-04-15T10:00:00", "Rex went to live with my parents.", "pet", None),
            ("s7", "2024-02-10T10:00:00", XSS_TURN, "nickname", XSS),
        ),
    )
