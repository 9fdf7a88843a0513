"""Questions over a real memory's graph, asked only where the graph gives one defensible gold.

A graph that construction built from a conversation is messy: facts sit at turn times, one
turn may file several values of a property at the same time, values repeat, some are photo
markup or a bare "true", and a value of None is an end. So the questions are chosen, not
templated over everything. Each (entity, property) timeline is read in the store's fact
order; the facts sharing one ``t_from`` are a *step*, and a step is *clear* when all its facts
hold one value that *reads as a value*: a str or date, not an end, not markup (``[...``), not
a bare yes/no/true/false, not one short lowercase word ("new", "out": words of a turn), and
not the entity's own name (the question would answer itself). Then, per op:

* current: the last step is clear; since: also, the step before does not hold that value;
* as_of: the middle day of a gap of two days or more between fact days (no fact on it), when
  the last step on or before the gap's first day is clear;
* changed_to: a readable value whose every fact falls on one day, not the timeline's first;
  days_until_change: also, its facts are one step holding only it, and the next step starts
  on a later day (days are calendar days, whatever the turn times);
* count_distinct: at least two values, all readable, none equal to another but for case and
  spacing; count_changes: also, no two facts at one time and no value repeated next to itself
  (every fact after the first is a change);
* count_current: a property only people hold, each holder's last step clear and one fact;
* named_current (join): an as_of whose value is exactly the name of one other entity, then
  that entity's property whose current value is clear.

On these, the study's reference SQL and Cypher and the store's temporal rules all agree, and a
person reading the graph would give the same answer. The drafts are drawn per kind with a
seed by ``questions_from_drafts``, whose gold comes from ``answer_for``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import groupby, pairwise
from typing import Final

from apexmem_neo.ontology import DType, Entity, Fact, GraphBatch
from apexmem_neo.ontology.ids import canonical_json, normalize_text
from apexmem_neo.store.protocol import GraphStore
from benchmarks.query_languages.questions import (
    AnswerType,
    Draft,
    Kind,
    Question,
    Spec,
    questions_from_drafts,
)

TAG: Final = "rm_"
"""The qids' prefix: a real memory's results never mix with the generated set's."""
PER_KIND: Final = 15
MIN_GAP_DAYS: Final = 2
ANSWER_TYPES: Final[dict[DType, AnswerType]] = {DType.STR: "name", DType.DATE: "date"}
"""The dtypes asked about, and how their values are judged."""
NOT_VALUES: Final = frozenset({"", "true", "false", "yes", "no", "none", "null", "n/a"})
SHORT_WORD: Final = 3
PHRASES: Final = {"lives_in": "place of residence", "studies_at": "school"}


@dataclass(frozen=True)
class Step:
    """The facts of one timeline that share a ``t_from``."""

    t_from: str
    facts: tuple[Fact, ...]

    @property
    def day(self) -> str:
        return self.t_from[:10]

    @property
    def values(self) -> set[str]:
        return {f.value_json for f in self.facts}

    @property
    def value(self) -> str | None:
        """The step's one readable value (as text), or None when it is not clear."""
        if len(self.values) != 1 or not readable(self.facts[0]):
            return None
        return str(self.facts[0].value)


@dataclass(frozen=True)
class Timeline:
    """One (entity, property) of the graph, its steps in the store's fact order."""

    entity: Entity
    prop: str
    steps: tuple[Step, ...]

    @property
    def facts(self) -> list[Fact]:
        return [f for s in self.steps for f in s.facts]

    def answer_type(self, step: Step | None = None) -> AnswerType:
        """How a value of ``step`` (by default the last) is judged."""
        return ANSWER_TYPES.get((step or self.steps[-1]).facts[0].dtype, "name")

    def key(self) -> dict[str, str]:
        return {"entity_id": self.entity.entity_id, "property": self.prop}

    def answer(self, step: Step) -> str | None:
        """``step``'s clear value, unless it is the entity's own name (a question that
        answers itself)."""
        value = step.value
        own = value is not None and normalize_text(value) == self.entity.norm_name
        return None if own else value

    def days_of(self, value_json: str) -> set[str]:
        return {s.day for s in self.steps if value_json in s.values}


def readable(fact: Fact) -> bool:
    """A value a person would name: a str or date, not an end, markup, a bare yes/no or one
    short lowercase word ("new", "out": words of a turn, not values)."""
    if fact.value is None or fact.dtype not in ANSWER_TYPES:
        return False
    text = str(fact.value).strip()
    short_word = text.islower() and text.isalpha() and len(text) <= SHORT_WORD
    return not (text.startswith("[") or text.casefold() in NOT_VALUES or short_word)


def humanise(prop: str) -> str:
    """A property name as a person says it: ``favourite_restaurant`` -> favourite restaurant
    (the lexicon's verb phrases by a noun: ``lives_in`` -> place of residence)."""
    return PHRASES.get(prop) or " ".join(prop.split("_"))


def timelines(batch: GraphBatch) -> list[Timeline]:
    """Every (entity, property) of ``batch`` with its steps, facts in the store's order."""
    entities = {e.entity_id: e for e in batch.entities}
    order = sorted(batch.facts, key=lambda f: (f.entity_id, f.property, f.t_from,
                                                f.recorded_at or "", f.fact_id))  # fmt: skip
    out = []
    for (eid, prop), facts in groupby(order, key=lambda f: (f.entity_id, f.property)):
        steps = tuple(Step(t, tuple(g)) for t, g in groupby(facts, key=lambda f: f.t_from))
        out.append(Timeline(entities[eid], prop, steps))
    return out


# ---- drafts, one function per rule of the module docstring ----


def _draft(kind: Kind, atype: AnswerType, text: str, spec: Spec) -> Draft:
    return kind, atype, text, spec


def current_drafts(line: Timeline) -> Iterator[Draft]:
    who, what, last = line.entity.name, humanise(line.prop), line.steps[-1]
    if line.answer(last) is None:
        return
    yield _draft("entity_lookup", line.answer_type(), f"What is {who}'s {what} now?",
                 Spec(op="current", **line.key()))  # fmt: skip
    if len(line.steps) > 1 and not last.values & line.steps[-2].values:
        yield _draft("when_changed", "date", f"Since when has {who} had the current {what}?",
                     Spec(op="since", **line.key()))  # fmt: skip


def middle_days(line: Timeline) -> Iterator[tuple[str, Step]]:
    """(a day inside a gap between fact days, the last step before it)."""
    days = sorted({s.day for s in line.steps})
    for d1, d2 in pairwise(days):
        gap = (date.fromisoformat(d2) - date.fromisoformat(d1)).days
        if gap >= MIN_GAP_DAYS:
            held = [s for s in line.steps if s.day <= d1][-1]
            yield (date.fromisoformat(d1) + timedelta(days=gap // 2)).isoformat(), held


def as_of_drafts(line: Timeline) -> Iterator[Draft]:
    who, what = line.entity.name, humanise(line.prop)
    for at, held in middle_days(line):
        if line.answer(held) is not None:
            yield _draft("as_of", line.answer_type(held), f"What was {who}'s {what} on {at}?",
                         Spec(op="as_of", at=at, **line.key()))  # fmt: skip


def change_drafts(line: Timeline) -> Iterator[Draft]:
    who, what, first = line.entity.name, humanise(line.prop), line.steps[0].day
    own = canonical_json(line.entity.name)
    seen: set[str] = set()
    for i, step in enumerate(line.steps):
        for fact in step.facts:
            if fact.value_json in seen or not readable(fact) or fact.value_json == own:
                continue
            seen.add(fact.value_json)
            if step.day == first or line.days_of(fact.value_json) != {step.day}:
                continue
            value = str(fact.value)
            yield _draft("when_changed", "date", f"When did {who}'s {what} change to {value}?",
                         Spec(op="changed_to", value=value, **line.key()))  # fmt: skip
            if _held_one_step(line, i):
                text = f"For how many days was {who}'s {what} {value} before it changed?"
                yield _draft("temporal_arithmetic", "number", text,
                             Spec(op="days_until_change", value=value, **line.key()))  # fmt: skip


def _held_one_step(line: Timeline, i: int) -> bool:
    """Step ``i`` holds one value, no other step holds it, and the next step is a later day."""
    step = line.steps[i]
    later = line.steps[i + 1] if i + 1 < len(line.steps) else None
    alone = len(step.values) == 1 and sum(1 for s in line.steps if s.values & step.values) == 1
    return alone and later is not None and later.day > step.day


def count_drafts(line: Timeline) -> Iterator[Draft]:
    who, what, facts = line.entity.name, humanise(line.prop), line.facts
    values = {f.value_json for f in facts}
    spelled = {normalize_text(str(f.value)) for f in facts}
    if len(values) < 2 or len(spelled) != len(values) or not all(map(readable, facts)):
        return
    yield _draft("aggregate", "number", f"How many different values of {what} has {who} had?",
                 Spec(op="count_distinct", **line.key()))  # fmt: skip
    one_per_time = all(len(s.facts) == 1 for s in line.steps)
    if one_per_time and all(a.value_json != b.value_json for a, b in pairwise(facts)):
        yield _draft("aggregate", "number", f"How many times did {who}'s {what} change?",
                     Spec(op="count_changes", **line.key()))  # fmt: skip


def count_current_drafts(lines: Sequence[Timeline]) -> Iterator[Draft]:
    """How many people have V as their P now, over the properties only people hold."""
    for prop, group in groupby(sorted(lines, key=lambda t: t.prop), key=lambda t: t.prop):
        holders = list(group)
        now = [t.answer(t.steps[-1]) for t in holders]
        single = all(len(t.steps[-1].facts) == 1 for t in holders)
        people = all(t.entity.entity_type == "Person" for t in holders)
        if not single or not people or None in now:
            continue
        ids = [t.entity.entity_id for t in holders]
        for value in sorted({v for v in now if v is not None}):
            text = f"How many people have {value} as their {humanise(prop)} now?"
            yield _draft("aggregate", "number", text, Spec(op="count_current", property=prop,
                         value=value, entity_ids=ids))  # fmt: skip


def join_drafts(lines: Sequence[Timeline]) -> Iterator[Draft]:
    """An as_of value naming one other entity, then that entity's clear current values."""
    by_name: dict[str, list[Entity]] = {}
    for e in {t.entity.entity_id: t.entity for t in lines}.values():
        by_name.setdefault(normalize_text(e.name), []).append(e)
    for line in lines:
        for at, held in middle_days(line):
            named = by_name.get(normalize_text(held.value or ""), [])
            if len(named) != 1 or named[0].name != held.value or named[0] == line.entity:
                continue
            for then in lines:
                if then.entity != named[0] or then.answer(then.steps[-1]) is None:
                    continue
                text = (f"What is the current {humanise(then.prop)} of the one who was "
                        f"{line.entity.name}'s {humanise(line.prop)} on {at}?")  # fmt: skip
                spec = Spec(op="named_current", at=at, then_property=then.prop, **line.key())
                yield _draft("join", then.answer_type(), text, spec)


def real_drafts(batch: GraphBatch) -> Iterator[Draft]:
    """Every draft the rules admit over ``batch``."""
    lines = timelines(batch)
    for line in lines:
        yield from current_drafts(line)
        yield from as_of_drafts(line)
        yield from change_drafts(line)
        yield from count_drafts(line)
    yield from count_current_drafts(lines)
    yield from join_drafts(lines)


def real_questions(
    batch: GraphBatch, store: GraphStore, seed: int, per_kind: int = PER_KIND
) -> list[Question]:
    """Up to ``per_kind`` questions per kind over ``batch``, gold computed through ``store``."""
    return questions_from_drafts(real_drafts(batch), store, seed, per_kind, TAG)
