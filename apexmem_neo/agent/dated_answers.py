"""When-questions: the model picks the evidence, the memory gives its date.

The small model cites the right turn for a when-question far more often than it gives that
turn's date: it answered the day a turn was said when the turn says "yesterday", and made up
dates found nowhere in its context. The memory already knows each turn's day and what its
time words mean (``said_times``), so after the answer program has answered, ``evidence_date``
replaces such an answer with the date of the first turn it cites; an answer that gives a date
its context holds (a computed line's, a time word's) is kept. Which questions ask when is
``apexmem_neo.agent.question.asks_when``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from apexmem_neo.agent.question import asks_when
from apexmem_neo.agent.timewords import (
    VAGUE_AMOUNT,
    QuestionTime,
    question_times,
    spoken_date,
    spoken_time,
)


@dataclass(frozen=True)
class TurnDates:
    """A context turn's day (ISO) and its time words resolved against that day."""

    said_on: str
    times: list[QuestionTime] = field(default_factory=list)

    def event_date(self) -> str:
        """What the turn dates: its first time word's date (with the words themselves when
        vague: "a few years ago (around 2020)"), else the day it was said."""
        if not self.times:
            return spoken_date(self.said_on)
        first = self.times[0]
        if VAGUE_AMOUNT.search(first.expression):
            return f"{first.expression} ({spoken_time(first)})"
        return spoken_time(first)


def _in_context(day: str, context: str) -> bool:
    return day[:10] in context or spoken_date(day) in context


def evidence_date(
    question: str,
    answer: str,
    cited: Sequence[str],
    dates: Mapping[str, TurnDates],
    context: str,
) -> str | None:
    """The date to answer a when-question with, when the model's ``answer`` got it wrong:
    it gave the first cited turn's own day although that turn's time words date it, gave a
    date its ``context`` never shows, or repeated one of that turn's time words ("next month")
    instead of its date. None keeps the model's answer (no when-question, nothing cited from
    the context, or a date the context holds)."""
    turn = next((dates[t] for t in cited if t in dates), None)
    if not asks_when(question) or turn is None:
        return None
    days = {t.start[:10] for t in question_times(answer, None)}
    if days:
        ignored_time_words = bool(turn.times) and turn.said_on[:10] in days
        made_up = not any(_in_context(day, context) for day in days)
        return turn.event_date() if ignored_time_words or made_up else None
    said = answer.casefold()
    if any(t.expression.casefold() in said for t in turn.times):
        return turn.event_date()
    return None
