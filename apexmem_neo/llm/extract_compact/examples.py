"""Few-shot demonstrations written for this project (none is taken from a benchmark dataset).

The turns and facts of ExtractEvent's demos (see its examples module for the patterns they
cover), in the compact form: no dtypes, dates, confidences, participants or evidence, only
each fact's subject, property, value and time words.
"""

from __future__ import annotations

from typing import Any

import dspy

from apexmem_neo.llm.extract_compact.models import CompactEvent, CompactFact
from apexmem_neo.llm.extract_event.examples import turn_demo


def _f(subject: str, prop: str, value: Any, when: str | None = None) -> CompactFact:
    return CompactFact(subject=subject, property=prop, value=value, when=when)


def _demo(
    speaker: str,
    listener: str,
    text: str,
    anchor: str,
    event: str,
    facts: list[CompactFact],
    context: str = "(start of conversation)",
) -> dspy.Example:
    """The turn's demo with its facts in the compact form; a turn said to no one names its
    listener "(none)", as ``TurnExtractor`` does."""
    compact = CompactEvent(event=event, facts=facts)
    return turn_demo(speaker, listener or "(none)", text, anchor, compact, context)


MARATHON = _demo(
    "Tom", "Lena", "I ran the Chicago marathon last Sunday, finished in 252 minutes!",
    "2023-10-10T09:00:00 (Tuesday)", "ran_marathon",
    [
        _f("Tom", "attended_event", "Chicago marathon", "last Sunday"),
        _f("Tom", "marathon_time_minutes", 252, "last Sunday"),
    ],
)  # fmt: skip

TIRED_PARENT = _demo(
    "Priya", "Sam",
    "Honestly I'm exhausted, the twins kept me up all night. Nursing shifts don't help.",
    "2024-02-02T21:15:00 (Friday)", "felt_exhausted",
    [
        _f("Priya", "emotional_state", "exhausted"),
        _f("Priya", "has_children", True),
        _f("Priya", "number_of_children", 2),
        _f("Priya", "occupation", "nurse"),
    ],
)  # fmt: skip

SNOW = _demo(
    "World", "", "Heavy snow closed all schools in Denver on Monday.",
    "2024-01-17T08:00:00 (Wednesday)", "school_closure",
    [
        _f("Denver", "weather_condition", "heavy snow", "on Monday"),
        _f("Denver", "schools_closed", True, "on Monday"),
    ],
)  # fmt: skip

WEDDING = _demo(
    "Sam", "Priya", "My sister Ana is getting married on June 3rd!",
    "2023-05-20T18:00:00 (Saturday)", "wedding_announcement",
    [
        _f("Ana", "event_date", "2023-06-03", "on June 3rd"),
        _f("Ana", "sibling_of", "Sam"),
    ],
)  # fmt: skip

# A move: the new city is the speaker's lives_in from the day of the move (not a "moved" fact).
MOVE = _demo(
    "Leo", "Mia", "I moved to Lisbon two weeks ago, the flat is tiny but I love it.",
    "2024-05-20T19:00:00 (Monday)", "moved_city",
    [_f("Leo", "lives_in", "Lisbon", "two weeks ago")],
)  # fmt: skip

# A job change and a new partner in one turn: employer and occupation apart, the partner by name.
NEW_JOB = _demo(
    "Dana", "Leo", "Started at Orbit Labs as a designer last week, and I'm seeing Chris now.",
    "2024-09-12T20:00:00 (Thursday)", "started_job",
    [
        _f("Dana", "employer", "Orbit Labs", "last week"),
        _f("Dana", "occupation", "designer", "last week"),
        _f("Dana", "partner", "Chris"),
    ],
)  # fmt: skip

# A preference stated with the value first: the subject is still the speaker, not the place.
PREFERENCE = _demo(
    "Mia", "Leo", "Blue Lagoon is my go-to cafe now, the old one closed.",
    "2024-04-02T10:00:00 (Tuesday)", "preference_stated",
    [_f("Mia", "favourite_cafe", "Blue Lagoon")],
)  # fmt: skip

# A relative's news: the facts are the relative's, not the speaker's.
RELATIVE_NEWS = _demo(
    "Ravi", "Ines", "My cousin Lena got a job at Northwind and moved to Leeds in March.",
    "2024-06-03T18:30:00 (Monday)", "relative_moved",
    [
        _f("Lena", "employer", "Northwind", "in March"),
        _f("Lena", "lives_in", "Leeds", "in March"),
    ],
)  # fmt: skip

# A correction: only the corrected value, under the property the earlier value had.
CORRECTION = _demo(
    "Mia", "Leo", "Sorry, wrong city: it's Braga, not Porto.",
    "2024-04-02T10:05:00 (Tuesday)", "corrected_statement",
    [_f("Mia", "lives_in", "Braga")],
    context="Mia: I moved to Porto last summer.",
)  # fmt: skip

# A reply that only reacts: values from the previous turns are not repeated.
REACTION = _demo(
    "Ines", "Ravi", "Oh nice, congrats to her!",
    "2024-06-03T18:31:00 (Monday)", "reaction", [],
    context="Ravi: My cousin Lena got a job at Northwind and moved to Leeds in March.",
)  # fmt: skip

GREETING = _demo(
    "Lena", "Tom", "Hey Tom, good to see you! How have you been?",
    "2023-10-10T09:00:00 (Tuesday)", "greeting", [],
)  # fmt: skip

DEMOS: list[dspy.Example] = [
    MARATHON, TIRED_PARENT, SNOW, WEDDING, MOVE, NEW_JOB, PREFERENCE, RELATIVE_NEWS,
    CORRECTION, REACTION, GREETING,
]  # fmt: skip
