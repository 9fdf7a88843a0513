"""The question's own time words, resolved against the question date before the agent runs."""

from __future__ import annotations

from datetime import datetime

from apexmem_neo.construction.grounding import FINDER, ground_expression
from apexmem_neo.ontology.types import TimeLike, normalize_time


def resolve_time_words(question: str, question_date: TimeLike | None) -> list[str]:
    """Lines like ``"last month" = 2024-02-01 to 2024-02-29`` for each time word found.

    Without a question date nothing can be resolved and the list is empty.
    """
    if question_date is None:
        return []
    anchor = datetime.fromisoformat(normalize_time(question_date))
    hints: list[str] = []
    for match in FINDER.finditer(question):
        expression = match.group(0)
        found = ground_expression(expression, anchor)
        if found is None:
            continue
        span, _ = found
        start, end = span.start.isoformat(), span.end.isoformat()
        when = start if start == end else f"{start} to {end}"
        hints.append(f'"{expression}" = {when}')
    return list(dict.fromkeys(hints))


def hints_text(question_date: str | None, hints: list[str]) -> str:
    if not hints:
        return "(none)" if question_date else "(no question date given)"
    return "; ".join(hints)
