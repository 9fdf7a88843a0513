"""The question's own time words, resolved against the question date before the agent runs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from apexmem_neo.construction.grounding import FINDER, MONTHS, ground_expression
from apexmem_neo.ontology.types import TimeLike, normalize_time

# Absolute dates the relative FINDER leaves alone: 2024-02-01, April 15, 2024, 15 April 2024.
_MONTH = "|".join(MONTHS)
ABSOLUTE_DATE: Final = re.compile(
    rf"\b(\d{{4}}-\d{{2}}-\d{{2}}|(?:{_MONTH}) \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}|"
    rf"\d{{1,2}}(?:st|nd|rd|th)? (?:{_MONTH}),? \d{{4}})\b",
    re.IGNORECASE,
)


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
        grounded = ground_expression(expression, anchor)
        if grounded is not None:
            span, _ = grounded
            out.append(QuestionTime(expression, span.start.isoformat(), span.end.isoformat()))
    return out


def resolve_time_words(question: str, question_date: TimeLike | None) -> list[str]:
    """Lines like ``"last month" = 2024-02-01 to 2024-02-29`` for each time word found.

    Relative words need the question date; without one only absolute dates are listed.
    """
    return list(dict.fromkeys(t.hint() for t in question_times(question, question_date)))


def hints_text(question_date: str | None, hints: list[str]) -> str:
    if not hints:
        return "(none)" if question_date else "(no question date given)"
    return "; ".join(hints)
