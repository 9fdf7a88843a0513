"""Questions with gold answers, and the structured reads to check, from a conversation's
truth (never from memory).

Per concept of the subject: now (the last value), as-of (the first value, at a time inside
its sure span: a whole month when one fits, else the middle day), when-did-it-change (the
last value's start, at its own granularity) and before-X (the value before the last). The
other speaker's and the third party's values are asked as now-questions, which is where a
fact on the wrong person shows. Reads: ``current`` of every timeline and ``as_of`` at the
middle of every sure span of the subject's timelines.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Literal

from dateutil.relativedelta import relativedelta
from pydantic import BaseModel

from benchmarks.construction_quality.templates import Family
from benchmarks.construction_quality.truth import (
    ConceptTruth,
    Conversation,
    DateWindow,
    Question,
    sure_span,
)


class Read(BaseModel):
    """A structured read to check: ``current`` (``at`` None) or ``as_of`` at ``at``."""

    kind: Literal["current", "as_of"]
    owner: str
    concept: str
    property: str
    at: str | None
    gold: str


def window_text(window: DateWindow) -> str:
    """A gold date as people say it: an ISO day, or "April 2024" for a month."""
    if window.granularity == "day":
        return window.lo
    return f"{date.fromisoformat(window.lo):%B %Y}"


def as_of_time(family: Family, first: str, last: str) -> tuple[str, str]:
    """The words of an as-of time inside ``[first, last]`` and the day a read checks: the
    middle whole month when one fits, else the middle day."""
    lo, hi = date.fromisoformat(first), date.fromisoformat(last)
    months = []
    month = lo.replace(day=1) if lo.day == 1 else lo.replace(day=1) + relativedelta(months=1)
    while month + relativedelta(months=1) - timedelta(days=1) <= hi:
        months.append(month)
        month += relativedelta(months=1)
    if months:
        chosen = months[len(months) // 2]
        words = family.as_of_month.format(month=f"{chosen:%B}", year=chosen.year)
        return words, chosen.replace(day=15).isoformat()
    middle = lo + (hi - lo) / 2
    words = family.as_of_day.format(day=middle.day, month=f"{middle:%B}", year=middle.year)
    return words, middle.isoformat()


def _others(tl: ConceptTruth, gold: str) -> list[str]:
    return [v for v in [*tl.values(), *tl.retracted] if v != gold]


def subject_questions(conv: Conversation, family: Family, tl: ConceptTruth) -> list[Question]:
    """Now, as-of, when and before for one of the subject's changing concepts."""
    w, p = family.wordings[tl.concept], tl.owner
    last, prev = tl.intervals[-1], tl.intervals[-2]
    assert last.start is not None
    span = sure_span(tl, 0, conv.question_date)
    assert span is not None
    words, read_at = as_of_time(family, *span)
    base = {"owner": p, "concept": tl.concept, "at": conv.question_date}
    qid = f"{conv.conversation_id}:{p}:{tl.concept}"
    first = tl.intervals[0].value
    return [
        Question(qid=f"{qid}:now", kind="now", text=w.now.format(p=p), gold=last.value,
                 others=_others(tl, last.value), **base),
        Question(qid=f"{qid}:as_of", kind="as_of", text=w.as_of.format(p=p, date=words),
                 gold=first, read_at=read_at, others=_others(tl, first), **base),
        Question(qid=f"{qid}:when", kind="when", text=w.when.format(p=p, value=last.value),
                 gold=window_text(last.start), gold_window=last.start, **base),
        Question(qid=f"{qid}:before", kind="before",
                 text=w.before.format(p=p, value=last.value), gold=prev.value,
                 others=_others(tl, prev.value), **base),
    ]  # fmt: skip


def add_questions(conv: Conversation, family: Family) -> Conversation:
    """``conv`` with its questions: the subject's four kinds per concept, then a now-question
    for each other timeline (the other speaker's, the third party's)."""
    out: list[Question] = []
    for tl in conv.truth:
        if len(tl.intervals) > 1:
            out.extend(subject_questions(conv, family, tl))
    for tl in conv.truth:
        if len(tl.intervals) == 1:
            value = tl.intervals[0].value
            text = family.wordings[tl.concept].now.format(p=tl.owner)
            out.append(
                Question(
                    qid=f"{conv.conversation_id}:{tl.owner}:{tl.concept}:now", kind="now",
                    owner=tl.owner, concept=tl.concept, text=text, at=conv.question_date,
                    gold=value,
                )
            )  # fmt: skip
    return conv.model_copy(update={"questions": out})


def reads(conv: Conversation) -> list[Read]:
    """``current`` of every timeline; ``as_of`` in the middle of each sure span of a
    timeline that changes."""
    out: list[Read] = []
    for tl in conv.truth:
        common = {"owner": tl.owner, "concept": tl.concept, "property": tl.property}
        out.append(Read(kind="current", at=None, gold=tl.intervals[-1].value, **common))
        if len(tl.intervals) < 2:
            continue
        for i, interval in enumerate(tl.intervals):
            span = sure_span(tl, i, conv.question_date)
            if span is None:
                continue
            lo, hi = date.fromisoformat(span[0]), date.fromisoformat(span[1])
            at = (lo + (hi - lo) / 2).isoformat()
            out.append(Read(kind="as_of", at=at, gold=interval.value, **common))
    return out
