"""The known truth of a generated conversation: who held which value of which concept when,
and what each turn says, as pydantic data (no I/O).

Dates are ISO days. A time a turn names is a ``DateWindow``: the days it may mean (one day
for "yesterday", a calendar month for "last month"). A value holds surely from the end of its
start window to the beginning of its end window (its "sure span"), which is where as-of
questions and reads are asked, so an answer is never judged at a day the words leave open.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Literal

from pydantic import BaseModel

Granularity = Literal["day", "month"]
Role = Literal["subject", "other", "third_party"]
QuestionKind = Literal["now", "as_of", "when", "before"]
QUESTION_KINDS: tuple[QuestionKind, ...] = ("now", "as_of", "when", "before")


class DateWindow(BaseModel):
    """The days a time expression may mean, ``lo`` to ``hi`` inclusive."""

    lo: str
    hi: str
    granularity: Granularity

    @classmethod
    def day(cls, day: date) -> DateWindow:
        return cls(lo=day.isoformat(), hi=day.isoformat(), granularity="day")

    @classmethod
    def month(cls, year: int, month: int) -> DateWindow:
        first = date(year, month, 1)
        last = (first.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
        return cls(lo=first.isoformat(), hi=last.isoformat(), granularity="month")


class Interval(BaseModel):
    """One value of a concept over time. ``start`` None: it held before anything was said
    (``stated_on`` is the first day it is known to hold); ``end`` None: it still holds."""

    value: str
    start: DateWindow | None
    end: DateWindow | None
    stated_on: str
    turn: str

    def sure_from(self) -> str:
        return self.start.hi if self.start is not None else self.stated_on


class Person(BaseModel):
    """A person of a conversation: a speaker, or a third party named by ``relation``."""

    name: str
    role: Role
    relation: str | None = None


class ConceptTruth(BaseModel):
    """The timeline of one concept of one person, with the values said and taken back."""

    owner: str
    concept: str
    property: str
    intervals: list[Interval]
    retracted: list[str] = []

    def values(self) -> list[str]:
        return [i.value for i in self.intervals]


class ValueRef(BaseModel):
    """A value of an owner's concept, as a turn asserts or denies it."""

    owner: str
    concept: str
    value: str


class GenTurn(BaseModel):
    """A generated turn with what it asserts (holds from its time) and denies (no longer or
    never held)."""

    id: str
    session: str
    speaker: str
    listener: str | None
    text: str
    timestamp: str
    asserts: list[ValueRef] = []
    denies: list[ValueRef] = []


class Question(BaseModel):
    """A question with its gold answer: a value (now, as_of, before) or a date window
    (when); ``read_at`` is the day an as-of read checks."""

    qid: str
    kind: QuestionKind
    owner: str
    concept: str
    text: str
    at: str
    gold: str
    gold_window: DateWindow | None = None
    read_at: str | None = None
    others: list[str] = []


class Conversation(BaseModel):
    conversation_id: str
    family: str
    people: list[Person]
    turns: list[GenTurn]
    truth: list[ConceptTruth]
    question_date: str
    questions: list[Question] = []

    def person(self, name: str) -> Person:
        return next(p for p in self.people if p.name == name)

    def timeline(self, owner: str, concept: str) -> ConceptTruth:
        return next(t for t in self.truth if t.owner == owner and t.concept == concept)


class DataSet(BaseModel):
    """One generated set: its name, template family, seed and conversations."""

    name: str
    family: str
    seed: int
    conversations: list[Conversation]

    @property
    def turns(self) -> int:
        return sum(len(c.turns) for c in self.conversations)


def sure_span(timeline: ConceptTruth, index: int, until: str) -> tuple[str, str] | None:
    """The days ``[first, last]`` on which the ``index``-th value surely held (``until``
    bounds the last one), or None when the words leave no such day."""
    interval = timeline.intervals[index]
    first = date.fromisoformat(interval.sure_from())
    if interval.end is not None:
        last = date.fromisoformat(interval.end.lo) - timedelta(days=1)
    elif index + 1 < len(timeline.intervals):
        following = timeline.intervals[index + 1]
        start = following.start.lo if following.start is not None else following.stated_on
        last = date.fromisoformat(start) - timedelta(days=1)
    else:
        last = date.fromisoformat(until)
    return (first.isoformat(), last.isoformat()) if first <= last else None


def truth_problems(conv: Conversation) -> list[str]:
    """What is inconsistent in a conversation's truth (empty when all is well): intervals out
    of order or overlapping, a stated day before its start, a value owned twice, a turn
    asserting what no timeline holds."""
    problems: list[str] = []
    for tl in conv.truth:
        where = f"{conv.conversation_id} {tl.owner}/{tl.concept}"
        for i, interval in enumerate(tl.intervals):
            if interval.start is not None and interval.start.hi > interval.stated_on:
                problems.append(f"{where}: {interval.value} starts after it is stated")
            if sure_span(tl, i, conv.question_date) is None:
                problems.append(f"{where}: {interval.value} never surely holds")
            if i and tl.intervals[i - 1].sure_from() >= interval.sure_from():
                problems.append(f"{where}: {interval.value} is out of order")
        if set(tl.values()) & set(tl.retracted):
            problems.append(f"{where}: a retracted value also holds")
    owners: dict[str, str] = {}
    for tl in conv.truth:
        for value in [*tl.values(), *tl.retracted]:
            if owners.setdefault(value, tl.owner) != tl.owner:
                problems.append(f"{conv.conversation_id}: {value} belongs to two people")
    known = {(t.owner, t.concept, v) for t in conv.truth for v in [*t.values(), *t.retracted]}
    for turn in conv.turns:
        for ref in [*turn.asserts, *turn.denies]:
            if (ref.owner, ref.concept, ref.value) not in known:
                problems.append(f"{turn.id}: {ref.value} is in no timeline")
    return problems
