"""The question's own time words, resolved against the question date before the agent runs."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Final

from apexmem_neo.construction.grounding import FINDER, MONTHS, ground_expression
from apexmem_neo.ontology.types import TimeLike, normalize_time

# Absolute dates the relative FINDER leaves alone: 2024-02-01, April 15, 2024, 15 April 2024,
# and whole months: "as of December 2024", "during March, 2024", "in September of 2024".
_MONTH = "|".join(MONTHS)
ABSOLUTE_DATE: Final = re.compile(
    rf"\b(\d{{4}}-\d{{2}}-\d{{2}}|(?:{_MONTH}) \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}|"
    rf"\d{{1,2}}(?:st|nd|rd|th)? (?:{_MONTH}),? \d{{4}}|(?:{_MONTH})(?: of|,)? \d{{4}})\b",
    re.IGNORECASE,
)
_MONTH_OF_YEAR: Final = re.compile(rf"\b({_MONTH}) of (\d{{4}})\b", re.IGNORECASE)


@dataclass(frozen=True)
class QuestionTime:
    """One time expression of the question and the dates it denotes (start == end for a day)."""

    expression: str
    start: str
    end: str

    def hint(self) -> str:
        when = self.start if self.start == self.end else f"{self.start} to {self.end}"
        return f'"{self.expression}" = {when}'


def question_times(question: str, question_date: TimeLike | None) -> list[QuestionTime]:
    """Every absolute date of the question, and its relative time words grounded against the
    question date (without one, only the absolute dates)."""
    anchor = datetime.fromisoformat(normalize_time(question_date or "2000-01-01"))
    found = [m.group(0) for m in ABSOLUTE_DATE.finditer(question)]
    if question_date is not None:
        found += [m.group(0) for m in FINDER.finditer(question)]
    out: list[QuestionTime] = []
    for expression in dict.fromkeys(found):
        grounded = ground_expression(_MONTH_OF_YEAR.sub(r"\1 \2", expression), anchor)
        if grounded is None:
            continue
        span, _ = grounded
        _add_time(out, QuestionTime(expression, span.start.isoformat(), span.end.isoformat()))
    return out


def _add_time(times: list[QuestionTime], new: QuestionTime) -> None:
    """Add ``new`` unless the same days are already found in other words: "May 2024" inside
    "in May 2024" is one time, kept in the wording that holds the other."""
    for i, old in enumerate(times):
        if (old.start, old.end) == (new.start, new.end):
            if old.expression in new.expression:
                times[i] = new
            return
    times.append(new)


def spoken_date(day: str) -> str:
    """An ISO day as people write it: "2023-01-19" -> "19 January 2023" (reference answers and
    users say dates this way; token F1 gives an ISO date no credit against them)."""
    d = date.fromisoformat(day[:10])
    return f"{d.day} {calendar.month_name[d.month]} {d.year}"


def spoken_span(start: str, end: str) -> str:
    """A span of days as people say it: one day, a whole month ("January 2023"), a whole year
    ("2023"), or "22 January 2023 to 28 January 2023"."""
    first, last = date.fromisoformat(start[:10]), date.fromisoformat(end[:10])
    if first == last:
        return spoken_date(start)
    month_end = calendar.monthrange(first.year, first.month)[1]
    if first.day == 1 and (last.year, last.month, last.day) == (first.year, first.month, month_end):
        return f"{calendar.month_name[first.month]} {first.year}"
    if (first.month, first.day, last.month, last.day) == (1, 1, 12, 31) and first.year == last.year:
        return str(first.year)
    return f"{spoken_date(start)} to {spoken_date(end)}"


VAGUE_AMOUNT: Final = re.compile(r"\b(few|several|couple)\b", re.IGNORECASE)


def spoken_time(t: QuestionTime) -> str:
    """What a time word denotes, as people say it; a vague amount ("a few years ago") is
    only "around" the day the grounder computed for it, at the granularity of its unit."""
    if not VAGUE_AMOUNT.search(t.expression):
        return spoken_span(t.start, t.end)
    d = date.fromisoformat(t.start[:10])
    if "year" in t.expression.lower():
        return f"around {d.year}"
    if "month" in t.expression.lower():
        return f"around {calendar.month_name[d.month]} {d.year}"
    return f"around {spoken_date(t.start)}"


def said_times(text: str, said_on: str) -> list[QuestionTime]:
    """The relative time words of a turn, resolved against the day it was said; words that
    denote that same day, and absolute dates, are left out (the turn shows its day)."""
    return [
        t
        for t in question_times(text, said_on)
        if not ABSOLUTE_DATE.fullmatch(t.expression)
        and not t.start[:10] == t.end[:10] == said_on[:10]
    ]


def with_said_dates(text: str, times: list[QuestionTime]) -> str:
    """``text`` with each of its ``said_times`` followed by the date it denotes, in place:
    "Lost my job yesterday (19 January 2023)". Beside the words the small model copies the
    date; from a separate line it copied the day the turn was said or the words themselves."""
    for t in times:
        text = text.replace(t.expression, f"{t.expression} ({spoken_time(t)})", 1)
    return text


def resolve_time_words(question: str, question_date: TimeLike | None) -> list[str]:
    """Lines like ``"last month" = 2024-02-01 to 2024-02-29`` for each time word found.

    Relative words need the question date; without one only absolute dates are listed.
    """
    return list(dict.fromkeys(t.hint() for t in question_times(question, question_date)))


def hints_text(question_date: str | None, hints: list[str]) -> str:
    if not hints:
        return "(none)" if question_date else "(no question date given)"
    return "; ".join(hints)
