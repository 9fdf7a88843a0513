"""The study's questions: templates over the gold graph, gold answers computed by code.

Each question carries a ``Spec`` (an operation over the GraphStore temporal queries) and its
gold answer is ``answer_for(store, spec)``: the generator runs it on the plain-Python
reference store, and the tests run it again on SQLite and Neo4j, which must agree. Nothing
of the gold is typed by hand.

Kinds: entity_lookup (current value), join (a value naming another entity, then that
entity's fact), aggregate (counts), temporal_arithmetic (days between changes, salary
differences), as_of (value at a date), when_changed (date of a change). Other question sets
(``real_questions``) bring their own drafts and reuse the ops and ``questions_from_drafts``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from datetime import date, timedelta
from itertools import pairwise
from typing import Any, Final, Literal

from pydantic import BaseModel

from apexmem_neo.ontology import GraphBatch
from apexmem_neo.store.protocol import FactRecord, GraphStore
from benchmarks.query_languages.gold import COMPANIES, PROPERTY_VALUES

Kind = Literal["entity_lookup", "join", "aggregate", "temporal_arithmetic", "as_of", "when_changed"]
KINDS: Final[tuple[Kind, ...]] = (
    "entity_lookup", "join", "aggregate", "temporal_arithmetic", "as_of", "when_changed",
)  # fmt: skip
AnswerType = Literal["name", "number", "date"]
QUESTION_DATE: Final = "2025-01-01"
PER_KIND: Final = 20


class Spec(BaseModel):
    """One operation over the store's temporal queries; ``answer_for`` evaluates it."""

    op: str
    entity_id: str = ""
    property: str = ""
    at: str | None = None
    at2: str | None = None
    value: str | None = None
    entity_ids: list[str] = []
    then_property: str = ""
    """A join's second hop: the property read on the entity that the first value names."""


class Question(BaseModel):
    qid: str
    kind: Kind
    text: str
    question_date: str = QUESTION_DATE
    answer_type: AnswerType
    spec: Spec
    gold: str


def dated_text(question: Question) -> str:
    """The question as the one-shot arms receive it: its text and the day it is asked."""
    return f"{question.text} (Today is {question.question_date}.)"


class GoldError(ValueError):
    """A spec whose answer does not exist in the store (a generator bug)."""


def _need(fact: FactRecord | None, spec: Spec) -> FactRecord:
    if fact is None:
        raise GoldError(f"no fact for {spec}")
    return fact


def _days(a: str, b: str) -> int:
    return (date.fromisoformat(b[:10]) - date.fromisoformat(a[:10])).days


def _changed_to(store: GraphStore, s: Spec) -> str:
    hits = [c for c in store.changes(s.entity_id, s.property) if str(c.new_value) == s.value]
    if not hits:
        raise GoldError(f"no change to {s.value!r} in {s}")
    return hits[0].changed_at[:10]


def _duration(store: GraphStore, s: Spec) -> str:
    """Days from the change to ``value`` until the next change."""
    changes = store.changes(s.entity_id, s.property)
    start = _changed_to(store, s)
    later = [c.changed_at for c in changes if c.changed_at[:10] > start]
    if not later:
        raise GoldError(f"{s.value!r} never changed again in {s}")
    return str(_days(start, later[0]))


def _salary_diff(store: GraphStore, s: Spec) -> str:
    first = _need(store.as_of(s.entity_id, s.property, s.at or ""), s)
    second = _need(store.as_of(s.entity_id, s.property, s.at2 or ""), s)
    return str(int(second.value) - int(first.value))


def _named_fact(store: GraphStore, s: Spec, prop: str, then_property: str) -> str:
    """The current ``then_property`` of the one entity that ``prop``'s value at ``s.at`` names."""
    named = _need(store.as_of(s.entity_id, prop, s.at or ""), s)
    found = store.find_entities(str(named.value))
    if len(found) != 1:
        raise GoldError(f"{prop} {named.value!r} names {len(found)} entities")
    return str(_need(store.current(found[0].entity_id, then_property, QUESTION_DATE), s).value)


def _employer_city(store: GraphStore, s: Spec) -> str:
    return _named_fact(store, s, "employer", "headquarters_city")


def _count_current(store: GraphStore, s: Spec) -> str:
    now = [store.current(e, s.property, QUESTION_DATE) for e in s.entity_ids]
    return str(sum(1 for f in now if f is not None and str(f.value) == s.value))


def _now(store: GraphStore, s: Spec) -> FactRecord:
    return _need(store.current(s.entity_id, s.property, QUESTION_DATE), s)


def _count_distinct(store: GraphStore, s: Spec) -> str:
    return str(len({f.value_json for f in store.history(s.entity_id, s.property)}))


OPS: Final[dict[str, Callable[[GraphStore, Spec], str]]] = {
    "current": lambda st, s: str(_now(st, s).value),
    "as_of": lambda st, s: str(_need(st.as_of(s.entity_id, s.property, s.at or ""), s).value),
    "since": lambda st, s: _now(st, s).t_from[:10],
    "changed_to": _changed_to,
    "duration_days": _duration,
    "salary_diff": _salary_diff,
    "count_distinct": _count_distinct,
    "count_changes": lambda st, s: str(len(st.changes(s.entity_id, s.property))),
    "employer_city": _employer_city,
    "count_current": _count_current,
    "days_until_change": _duration,
    "named_current": lambda st, s: _named_fact(st, s, s.property, s.then_property),
}  # fmt: skip
"""Op -> its gold. ``days_until_change`` is ``duration_days`` for facts at any time of day
(its reference queries count calendar days); ``named_current`` is the general join."""


def answer_for(store: GraphStore, spec: Spec) -> str:
    """The gold answer of ``spec`` computed through ``store``'s temporal queries."""
    return OPS[spec.op](store, spec)


# ---- templates ----

Draft = tuple[Kind, AnswerType, str, Spec]


def _words(prop: str) -> str:
    return prop.replace("_", " ")


def _timelines(batch: GraphBatch) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(entity_id, property) -> [(t_from date, value)] in time order."""
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for f in sorted(batch.facts, key=lambda f: f.t_from):
        out.setdefault((f.entity_id, f.property), []).append((f.t_from[:10], str(f.value)))
    return out


def _mid(a: str, b: str) -> str:
    return (date.fromisoformat(a) + timedelta(days=_days(a, b) // 2)).isoformat()


def _draft(kind: Kind, atype: AnswerType, text: str, **spec: Any) -> Draft:
    return kind, atype, text, Spec(**spec)


def _timeline_drafts(who: str, eid: str, prop: str, line: list[tuple[str, str]]) -> list[Draft]:
    """The questions about one (entity, property) timeline."""
    what = _words(prop)
    vtype: AnswerType = "number" if prop == "salary" else "name"
    key = {"entity_id": eid, "property": prop}
    out = [_draft("entity_lookup", vtype, f"What is {who}'s {what} now?", op="current", **key)]
    for (d1, _), (d2, v2) in pairwise(line):
        at = _mid(d1, d2)
        out.append(_draft("as_of", vtype, f"What was {who}'s {what} on {at}?", op="as_of",
                          at=at, **key))  # fmt: skip
        out.append(_draft("when_changed", "date", f"When did {who}'s {what} change to {v2}?",
                          op="changed_to", value=v2, **key))  # fmt: skip
        if prop == "employer":
            text = f"In which city is the headquarters of the company {who} worked for on {at}?"
            out.append(_draft("join", "name", text, op="employer_city", at=at, **key))
    if len(line) >= 2:
        out += [
            _draft("when_changed", "date", f"Since when has {who} had the current {what}?",
                   op="since", **key),
            _draft("aggregate", "number", f"How many different values of {what} has {who} had?",
                   op="count_distinct", **key),
            _draft("aggregate", "number", f"How many times did {who}'s {what} change?",
                   op="count_changes", **key),
        ]  # fmt: skip
    for _, v2 in line[1:-1]:
        text = f"For how many days was {who}'s {what} {v2} before it changed?"
        out.append(_draft("temporal_arithmetic", "number", text, op="duration_days", value=v2,
                          **key))  # fmt: skip
    if prop == "salary" and len(line) >= 2:
        a, b = line[0][0], line[-1][0]
        text = f"By how much did {who}'s salary change from {a} to {b}?"
        out.append(_draft("temporal_arithmetic", "number", text, op="salary_diff", at=a, at2=b,
                          **key))  # fmt: skip
    return out


def _drafts(batch: GraphBatch) -> Iterator[Draft]:
    names = {e.entity_id: e.name for e in batch.entities}
    for (eid, prop), line in _timelines(batch).items():
        yield from _timeline_drafts(names[eid], eid, prop, line)
    people = [e.entity_id for e in batch.entities if e.entity_type == "Person"]
    for city in PROPERTY_VALUES["city"]:
        text = f"How many people live in {city} now?"
        yield _draft("aggregate", "number", text, op="count_current", property="city",
                     value=city, entity_ids=people)  # fmt: skip
    for company in COMPANIES:
        yield _draft("aggregate", "number", f"How many people work for {company} now?",
                     op="count_current", property="employer", value=company,
                     entity_ids=people)  # fmt: skip


def build_questions(
    batch: GraphBatch, store: GraphStore, seed: int = 7, per_kind: int = PER_KIND
) -> list[Question]:
    """Up to ``per_kind`` questions of each kind, interleaved by kind (so any prefix mixes
    kinds), gold answers computed through ``store`` (which must hold ``batch``)."""
    return questions_from_drafts(_drafts(batch), store, seed, per_kind)


def questions_from_drafts(
    drafts: Iterable[Draft], store: GraphStore, seed: int, per_kind: int, tag: str = ""
) -> list[Question]:
    """Up to ``per_kind`` of ``drafts`` of each kind, drawn with ``seed`` and interleaved by
    kind, gold answers computed through ``store``; qids start with ``tag``."""
    rng = random.Random(seed)
    by_kind: dict[Kind, list[Draft]] = {k: [] for k in KINDS}
    for draft in drafts:
        by_kind[draft[0]].append(draft)
    chosen = {k: _pick(rng, drafts, per_kind) for k, drafts in by_kind.items()}
    out: list[Question] = []
    for i in range(per_kind):
        for kind in KINDS:
            if i < len(chosen[kind]):
                _, atype, text, spec = chosen[kind][i]
                qid = f"{tag}q{len(out):03d}_{kind}"
                gold = answer_for(store, spec)
                out.append(Question(qid=qid, kind=kind, text=text, answer_type=atype,
                                    spec=spec, gold=gold))  # fmt: skip
    return out


def _pick(rng: random.Random, drafts: list[Draft], n: int) -> list[Draft]:
    """n drafts drawn at random."""
    shuffled = list(drafts)
    rng.shuffle(shuffled)
    return shuffled[:n]


def as_record(q: Question) -> dict[str, Any]:
    return q.model_dump(mode="json")
