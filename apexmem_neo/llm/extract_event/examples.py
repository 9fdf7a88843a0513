"""Few-shot demonstrations written for this project (none is taken from a benchmark dataset).

They cover the patterns of the paper's Table 13: an assertion (attended_event), a number, an
emotional state as an enum, an environment condition from a document stream ("World"), a
personal attribute as a bool (has_children), an event date as a date, a move to a new city
(lives_in, dated by the move), a job change with a new partner (employer, occupation and
partner as separate facts), a preference stated value-first (favourite_cafe), and a
greeting that yields no facts. Kept compact: the local model reads them on every call (the
server caches the shared prompt prefix, so they cost prompt time once).
"""

from __future__ import annotations

import dspy
from pydantic import BaseModel

from apexmem_neo.llm.extract_event.models import (
    ExtractedEvent,
    ExtractedFact,
    ExtractedParticipant,
)
from apexmem_neo.ontology import DType, EntityType, Role
from apexmem_neo.ontology.lexicon import common_property_names

# What the pipeline offers: the common properties (ontology/lexicon.py), then memory's own.
KNOWN = ", ".join([*common_property_names(), "attended_event"])


def _p(name: str, kind: EntityType, role: Role) -> ExtractedParticipant:
    return ExtractedParticipant(name=name, type=kind, role=role)


def _f(
    subject: str,
    prop: str,
    value: str | int | float | bool,
    dtype: DType,
    evidence: str,
    when: str | None = None,
    t_from: str | None = None,
) -> ExtractedFact:
    return ExtractedFact(
        subject=subject,
        property=prop,
        value=value,
        dtype=dtype,
        when=when,
        t_from=t_from,
        t_to=None,
        confidence=0.9,
        evidence=evidence,
    )


TURN_INPUTS = ("speaker", "listener", "text", "anchor", "context", "known_properties")
"""The inputs every turn-extraction signature takes (``TurnExtractor.forward`` fills them)."""


def turn_demo(
    speaker: str, listener: str, text: str, anchor: str, event: BaseModel, context: str = ""
) -> dspy.Example:
    """A few-shot demo of a turn-extraction signature: the turn as its inputs, offering the
    ``KNOWN`` properties, and the ``event`` the model should answer (ExtractEvent's or
    ExtractCompact's form)."""
    return dspy.Example(
        speaker=speaker,
        listener=listener,
        text=text,
        anchor=anchor,
        context=context,
        known_properties=KNOWN,
        event=event,
    ).with_inputs(*TURN_INPUTS)


MARATHON = turn_demo(
    "Tom",
    "Lena",
    "I ran the Chicago marathon last Sunday, finished in 252 minutes!",
    "2023-10-10T09:00:00 (Tuesday)",
    ExtractedEvent(
        type="ran_marathon",
        when="last Sunday",
        time="2023-10-08",
        location="Chicago",
        participants=[
            _p("Tom", EntityType.PERSON, Role.SPEAKER),
            _p("Chicago marathon", EntityType.EVENT, Role.MENTIONED),
        ],
        facts=[
            _f("Tom", "attended_event", "Chicago marathon", DType.STR,
               "I ran the Chicago marathon last Sunday", "last Sunday", "2023-10-08"),
            _f("Tom", "marathon_time_minutes", 252, DType.INT,
               "finished in 252 minutes", "last Sunday", "2023-10-08"),
        ],
    ),
)  # fmt: skip

TIRED_PARENT = turn_demo(
    "Priya",
    "Sam",
    "Honestly I'm exhausted, the twins kept me up all night. Nursing shifts don't help.",
    "2024-02-02T21:15:00 (Friday)",
    ExtractedEvent(
        type="felt_exhausted",
        participants=[
            _p("Priya", EntityType.PERSON, Role.SPEAKER),
            _p("twins", EntityType.GROUP, Role.MENTIONED),
        ],
        facts=[
            _f("Priya", "emotional_state", "exhausted", DType.ENUM, "I'm exhausted"),
            _f("Priya", "has_children", True, DType.BOOL, "the twins kept me up"),
            _f("Priya", "number_of_children", 2, DType.INT, "the twins"),
            _f("Priya", "occupation", "nurse", DType.STR, "Nursing shifts"),
        ],
    ),
)  # fmt: skip

SNOW = turn_demo(
    "World",
    "",
    "Heavy snow closed all schools in Denver on Monday.",
    "2024-01-17T08:00:00 (Wednesday)",
    ExtractedEvent(
        type="school_closure",
        when="on Monday",
        time="2024-01-15",
        location="Denver",
        participants=[_p("Denver", EntityType.PLACE, Role.MENTIONED)],
        facts=[
            _f("Denver", "weather_condition", "heavy snow", DType.STR,
               "Heavy snow", "on Monday", "2024-01-15"),
            _f("Denver", "schools_closed", True, DType.BOOL,
               "closed all schools in Denver", "on Monday", "2024-01-15"),
        ],
    ),
)  # fmt: skip

WEDDING = turn_demo(
    "Sam",
    "Priya",
    "My sister Ana is getting married on June 3rd!",
    "2023-05-20T18:00:00 (Saturday)",
    ExtractedEvent(
        type="wedding_announcement",
        participants=[
            _p("Sam", EntityType.PERSON, Role.SPEAKER),
            _p("Ana", EntityType.PERSON, Role.MENTIONED),
        ],
        facts=[
            _f("Ana", "event_date", "2023-06-03", DType.DATE, "getting married on June 3rd"),
            _f("Ana", "sibling_of", "Sam", DType.STR, "My sister Ana"),
        ],
    ),
)  # fmt: skip

# A move: the new city is the speaker's lives_in from the day of the move (not a "moved" fact).
MOVE = turn_demo(
    "Leo",
    "Mia",
    "I moved to Lisbon two weeks ago, the flat is tiny but I love it.",
    "2024-05-20T19:00:00 (Monday)",
    ExtractedEvent(
        type="moved_city",
        when="two weeks ago",
        time="2024-05-06",
        location="Lisbon",
        participants=[
            _p("Leo", EntityType.PERSON, Role.SPEAKER),
            _p("Lisbon", EntityType.PLACE, Role.MENTIONED),
        ],
        facts=[
            _f("Leo", "lives_in", "Lisbon", DType.STR,
               "I moved to Lisbon two weeks ago", "two weeks ago", "2024-05-06"),
        ],
    ),
)  # fmt: skip

# A job change and a new partner in one turn: employer and occupation apart, the partner by name.
NEW_JOB = turn_demo(
    "Dana",
    "Leo",
    "Started at Orbit Labs as a designer last week, and I'm seeing Chris now.",
    "2024-09-12T20:00:00 (Thursday)",
    ExtractedEvent(
        type="started_job",
        when="last week",
        time="2024-09-05",
        participants=[
            _p("Dana", EntityType.PERSON, Role.SPEAKER),
            _p("Orbit Labs", EntityType.CORPORATION, Role.MENTIONED),
            _p("Chris", EntityType.PERSON, Role.MENTIONED),
        ],
        facts=[
            _f("Dana", "employer", "Orbit Labs", DType.STR,
               "Started at Orbit Labs", "last week", "2024-09-05"),
            _f("Dana", "occupation", "designer", DType.STR,
               "as a designer", "last week", "2024-09-05"),
            _f("Dana", "partner", "Chris", DType.STR, "I'm seeing Chris now"),
        ],
    ),
)  # fmt: skip

# A preference stated with the value first: the subject is still the speaker, not the place.
PREFERENCE = turn_demo(
    "Mia",
    "Leo",
    "Blue Lagoon is my go-to cafe now, the old one closed.",
    "2024-04-02T10:00:00 (Tuesday)",
    ExtractedEvent(
        type="preference_stated",
        participants=[
            _p("Mia", EntityType.PERSON, Role.SPEAKER),
            _p("Blue Lagoon", EntityType.PLACE, Role.MENTIONED),
        ],
        facts=[
            _f("Mia", "favourite_cafe", "Blue Lagoon", DType.STR,
               "Blue Lagoon is my go-to cafe now"),
        ],
    ),
)  # fmt: skip

GREETING = turn_demo(
    "Lena",
    "Tom",
    "Hey Tom, good to see you! How have you been?",
    "2023-10-10T09:00:00 (Tuesday)",
    ExtractedEvent(
        type="greeting",
        participants=[
            _p("Lena", EntityType.PERSON, Role.SPEAKER),
            _p("Tom", EntityType.PERSON, Role.LISTENER),
        ],
        facts=[],
    ),
)

DEMOS: list[dspy.Example] = [
    MARATHON, TIRED_PARENT, SNOW, WEDDING, MOVE, NEW_JOB, PREFERENCE, GREETING,
]  # fmt: skip
