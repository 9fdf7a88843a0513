"""Deterministic scoring against the known truth (no LLM judge).

Answers: a value answer is right when the gold value's words appear in it (case,
punctuation and articles ignored); a when-answer is right when it names a date at the
gold's granularity (the day, or for a month any day of it or the month itself, with the
year). Facts: each stored fact is matched to the truth by its value and its entity's name,
and to the turn it came from by the turn's text (see ``judge_fact``). Property names: the
names that hold a concept's values for a person, on facts of the turns that assert them;
the most used is the concept's "resolved" name, which the structured reads use beside the
canonical one.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import date
from typing import Any

from pydantic import BaseModel

from apexmem_neo.ontology.lexicon import canonical_property_name
from benchmarks.construction_quality.questions import Read
from benchmarks.construction_quality.truth import (
    ConceptTruth,
    Conversation,
    DateWindow,
    GenTurn,
    Question,
)

_ARTICLES = frozenset({"the", "a", "an"})
MONTHS = {
    name: i
    for i, full in enumerate(
        ("january", "february", "march", "april", "may", "june", "july", "august",
         "september", "october", "november", "december"),
        start=1,
    )
    for name in (full, full[:3], *(("sept",) if full == "september" else ()))
}  # fmt: skip
_MONTH = r"(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_ORD = r"(?:st|nd|rd|th)?"
_DATE_PATTERNS = (
    ("ymd", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")),
    ("dmy", re.compile(rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})\b")),
    ("mdy", re.compile(rf"\b{_MONTH}\s+(\d{{1,2}}){_ORD},?\s+(\d{{4}})\b")),
    ("my", re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?(\d{{4}})\b")),
    ("ym", re.compile(r"\b(\d{4})-(\d{1,2})\b(?!-\d)")),
)


def words(text: str) -> list[str]:
    """Lower-case word tokens without articles."""
    return [w for w in re.findall(r"[0-9a-z]+", text.casefold()) if w not in _ARTICLES]


def _contains(hay: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return n > 0 and any(hay[i : i + n] == needle for i in range(len(hay) - n + 1))


def mentions(text: str, value: str) -> bool:
    """Whether ``value``'s words appear, in order and together, in ``text``."""
    return _contains(words(text), words(value))


def value_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return " ; ".join(value_text(v) for v in value)
    return json.dumps(value)


def value_matches(stored: Any, truth: str) -> bool:
    """A stored value stands for ``truth`` when it contains it ("a Honda Civic") or is a
    part of it at least four letters long ("Civic"); generated values share no word."""
    got, want = words(value_text(stored)), words(truth)
    if not got or not want:
        return False
    return _contains(got, want) or (_contains(want, got) and len("".join(got)) >= 4)


# ---- dates ----


def _mention(kind: str, groups: tuple[str, ...]) -> DateWindow | None:
    try:
        if kind == "ymd":
            day = date(int(groups[0]), int(groups[1]), int(groups[2]))
        elif kind == "dmy":
            day = date(int(groups[2]), MONTHS[groups[1]], int(groups[0]))
        elif kind == "mdy":
            day = date(int(groups[2]), MONTHS[groups[0]], int(groups[1]))
        elif kind == "my":
            return DateWindow.month(int(groups[1]), MONTHS[groups[0]])
        else:
            return DateWindow.month(int(groups[0]), int(groups[1]))
    except ValueError:
        return None
    return DateWindow.day(day)


def dates_in(text: str) -> list[DateWindow]:
    """The days and months an answer names, each with its year, in order; a month inside a
    day's words ("15 March 2024", or a day that does not exist) is not named again."""
    lowered = text.casefold()
    found: list[tuple[int, DateWindow]] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _DATE_PATTERNS:
        for match in pattern.finditer(lowered):
            start, end = match.span()
            if any(start < e and s < end for s, e in taken):
                continue
            taken.append((start, end))
            window = _mention(kind, match.groups())
            if window is not None:
                found.append((start, window))
    return [window for _, window in sorted(found, key=lambda item: item[0])]


def date_right(gold: DateWindow, answer: str) -> bool:
    """The answer names the gold day, or for a gold month the month or a day in it."""
    for got in dates_in(answer):
        if gold.granularity == "day" and got.granularity == "day" and got.lo == gold.lo:
            return True
        if gold.granularity == "month" and gold.lo <= got.lo <= gold.hi:
            return True
    return False


class AnswerScore(BaseModel):
    correct: bool
    names_other_value: bool = False
    """The answer also names another value of the concept (a hedge, or history given)."""


def score_answer(question: Question, answer: str) -> AnswerScore:
    if question.kind == "when":
        assert question.gold_window is not None
        return AnswerScore(correct=date_right(question.gold_window, answer))
    other = any(mentions(answer, v) for v in question.others)
    return AnswerScore(correct=mentions(answer, question.gold), names_other_value=other)


# ---- facts ----


class FactRow(BaseModel):
    """A stored fact as the scorer needs it: the entity by name and the turn's text."""

    fact_id: str
    entity: str
    property: str
    value: Any
    t_from: str | None = None
    t_to: str | None = None
    turn_text: str | None = None


class FactJudgement(BaseModel):
    fact: FactRow
    owner: str | None
    judged: bool
    correct: bool
    reason: str


def owner_of(entity: str, conv: Conversation) -> str | None:
    """The person an entity name stands for: the exact name; a third party named by name or
    by relation ("Alice's sister"); else a speaker whose name it contains; else None."""
    got = words(entity)
    for person in conv.people:
        if got == words(person.name):
            return person.name
    for person in conv.people:
        if person.role == "third_party" and (
            _contains(got, words(person.name)) or _contains(got, words(person.relation or ""))
        ):
            return person.name
    for person in conv.people:
        if _contains(got, words(person.name)):
            return person.name
    return None


def turn_of(fact: FactRow, conv: Conversation) -> GenTurn | None:
    text = (fact.turn_text or "").strip()
    return next((t for t in conv.turns if t.text.strip() == text), None)


NameMap = dict[tuple[str, str], dict[str, set[str]]]


def concept_names(conv: Conversation, facts: list[FactRow]) -> NameMap:
    """(owner, concept) -> property name -> the truth values it holds, from facts on the
    owner that carry a value their own turn asserts."""
    names: NameMap = {}
    for fact in facts:
        turn, owner = turn_of(fact, conv), owner_of(fact.entity, conv)
        for ref in turn.asserts if turn is not None else []:
            if ref.owner == owner and value_matches(fact.value, ref.value):
                per = names.setdefault((ref.owner, ref.concept), {})
                per.setdefault(fact.property, set()).add(ref.value)
    return names


def resolved_property(tl: ConceptTruth, names: NameMap) -> str | None:
    """The name holding most of the concept's values (ties: the one holding the latest
    value, then alphabetical); None when no fact holds any."""
    held = names.get((tl.owner, tl.concept), {})
    if not held:
        return None
    order = [*tl.retracted, *tl.values()]

    def key(name: str) -> tuple[int, int, str]:
        latest = max(order.index(v) if v in order else -1 for v in held[name])
        return (-len(held[name]), -latest, name)

    return min(held, key=key)


def _names_concept(prop: str, tl: ConceptTruth, names: NameMap) -> bool:
    known = names.get((tl.owner, tl.concept), {})
    return prop in known or canonical_property_name(prop) == tl.property


def _match_reason(
    fact: FactRow, conv: Conversation, owner: str | None, turn: GenTurn | None,
    tl: ConceptTruth, value: str, names: NameMap,
) -> tuple[bool, str]:  # fmt: skip
    """Whether a fact carrying ``value`` of timeline ``tl`` is right, and why."""
    if tl.owner != owner:
        return False, "wrong_entity"
    if turn is None:
        return False, "no_turn"
    others = [t for t in conv.truth if t.owner == owner and t.concept != tl.concept]
    if not _names_concept(fact.property, tl, names) and any(
        _names_concept(fact.property, other, names) for other in others
    ):
        return False, "wrong_property"
    refs = {(r.owner, r.concept, r.value) for r in turn.asserts}
    denied = {(r.owner, r.concept, r.value) for r in turn.denies}
    if (tl.owner, tl.concept, value) in refs:
        return True, "asserted"
    if (tl.owner, tl.concept, value) in denied:
        if _names_concept(fact.property, tl, names):
            return False, "denied_value"
        return True, "denied_as_past"
    if mentions(turn.text, value):
        return True, "mentioned"
    return False, "not_in_turn"


def judge_fact(fact: FactRow, conv: Conversation, names: NameMap) -> FactJudgement:
    """A fact is judged when its value is a value of the truth or it sits on a person under
    a name of one of that person's concepts. It is right when it sits on the value's owner,
    not under a name of another of the owner's concepts only, and its turn asserts the
    value, or names it without asserting it (then not as the concept itself: "I quit Acme"
    may give ``previous_employer``, not ``employer``)."""
    owner, turn = owner_of(fact.entity, conv), turn_of(fact, conv)
    if fact.value is None:
        return _judge_end(fact, conv, owner, turn, names)
    matched = [
        (tl, v) for tl in conv.truth for v in [*tl.values(), *tl.retracted]
        if value_matches(fact.value, v)
    ]  # fmt: skip
    if matched:
        verdicts = [_match_reason(fact, conv, owner, turn, tl, v, names) for tl, v in matched]
        good = [r for ok, r in verdicts if ok]
        correct = bool(good)
        reason = good[0] if good else verdicts[0][1]
        return FactJudgement(fact=fact, owner=owner, judged=True, correct=correct, reason=reason)
    mine = [tl for tl in conv.truth if tl.owner == owner]
    if any(_names_concept(fact.property, tl, names) for tl in mine):
        return FactJudgement(
            fact=fact, owner=owner, judged=True, correct=False, reason="unknown_value"
        )
    return FactJudgement(fact=fact, owner=owner, judged=False, correct=False, reason="other")


def _judge_end(
    fact: FactRow, conv: Conversation, owner: str | None, turn: GenTurn | None, names: NameMap
) -> FactJudgement:
    """An end (value None: the property holds no value from ``t_from``) is right when its
    turn denies the owner's value of the concept the property names."""
    denied = [r for r in (turn.denies if turn is not None else ()) if r.owner == owner]
    by_concept = {tl.concept: tl for tl in conv.truth if tl.owner == owner}
    right = any(
        r.concept in by_concept and _names_concept(fact.property, by_concept[r.concept], names)
        for r in denied
    )
    reason = "ended" if right else "wrong_end"
    return FactJudgement(fact=fact, owner=owner, judged=True, correct=right, reason=reason)


def recall(conv: Conversation, facts: list[FactRow]) -> list[tuple[str, str, str, bool]]:
    """Every value that held, and whether some fact on its owner carries it."""
    owners = [(f, owner_of(f.entity, conv)) for f in facts]
    return [
        (tl.owner, tl.concept, i.value,
         any(o == tl.owner and value_matches(f.value, i.value) for f, o in owners))
        for tl in conv.truth
        for i in tl.intervals
    ]  # fmt: skip


# ---- structured reads ----


class ReadResult(BaseModel):
    """One ``current``/``as_of`` read as the memory answered it."""

    read: Read
    style: str  # "canonical" or "resolved"
    property: str | None
    entity: str | None
    value: Any = None
    error: str | None = None


def read_right(result: ReadResult, conv: Conversation) -> bool:
    """Right when the name found the owner's entity and the fact carries the gold value."""
    if result.entity is None or owner_of(result.entity, conv) != result.read.owner:
        return False
    return result.value is not None and value_matches(result.value, result.read.gold)


# ---- figures ----


def share(flags: list[bool]) -> dict[str, Any]:
    """A proportion with its count, as the published files keep it."""
    n, successes = len(flags), sum(flags)
    return {"successes": successes, "n": n, "rate": round(successes / n, 3) if n else 0.0}


def naming_figures(convs: list[Conversation], names: dict[str, NameMap]) -> dict[str, Any]:
    """One property name per concept: per (subject, concept) pair and per subject."""
    per_pair: list[bool] = []
    per_entity: list[bool] = []
    counts: list[int] = []
    for conv in convs:
        mine = [tl for tl in conv.truth if len(tl.intervals) > 1]
        flags = []
        for tl in mine:
            count = len(names[conv.conversation_id].get((tl.owner, tl.concept), {}))
            counts.append(count)
            flags.append(count == 1)
        per_pair += flags
        if flags:
            per_entity.append(all(flags))
    return {
        "one_name_per_concept": share(per_pair),
        "entities_one_name": share(per_entity),
        "names_per_concept_mean": round(sum(counts) / len(counts), 2) if counts else 0.0,
    }


def fact_figures(judgements: list[FactJudgement], found: list[bool]) -> dict[str, Any]:
    judged = [j for j in judgements if j.judged]
    return {
        "fact_precision": share([j.correct for j in judged]),
        "fact_recall": share(found),
        "facts_stored": len(judgements),
        "fact_errors": dict(Counter(j.reason for j in judged if not j.correct)),
    }


GOALS: dict[str, tuple[str, float]] = {
    "now": (">=", 0.95),
    "as_of": (">=", 0.95),
    "when": (">=", 0.90),
    "one_name_per_concept": (">=", 0.95),
    "entities_one_name": (">=", 0.95),
    "current": (">=", 0.95),
    "as_of_read": (">=", 0.95),
    "llm_calls_per_turn": ("<=", 1.3),
}
"""The issue's targets, checked on every run (``current``/``as_of_read``: canonical names)."""


def goals(figures: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for name, (sense, target) in GOALS.items():
        got = figures.get(name)
        rate = got["rate"] if isinstance(got, dict) else got
        if rate is None:
            continue
        met = rate >= target if sense == ">=" else rate <= target
        out[name] = {"target": f"{sense} {target}", "value": rate, "met": met}
    return out
