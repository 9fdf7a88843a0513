"""Seeded, deterministic conversations with their truth, written as the JSONL turn files
``Memory.ingest_file`` and ``apexmem ingest`` read.

A conversation (layout ``full``, 14 turns over three dated sessions) has a subject, another
speaker (and, every other conversation, a third speaker with small talk) and a third party
the subject mentions. The subject states three concepts in session 1; in session 2 mentions
the third party ("My sister Maya just moved to Boise"), denies one value with a relative date
("I don't live in Boston anymore; I handed back the keys last month") and changes another in
other words with a relative date ("Last month I moved to Denver"); in session 3 gives the
denied concept its new value and changes the third concept to a value taken back two turns
later ("Actually it's Y, not X"). The other speaker states a stable value of one of the same
concepts, so facts can land on the wrong person. Layout ``tiny`` (4 turns: a statement, the
other speaker's value, a dated change and the third party) is the integration test's.

A change said without time words is dated by its turn; "last month" means that calendar
month; "yesterday", "N days ago" that day.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Literal

from dateutil.relativedelta import relativedelta

from benchmarks.construction_quality.questions import add_questions
from benchmarks.construction_quality.templates import FAMILIES as FAMILIES_AB
from benchmarks.construction_quality.templates import PROPERTIES, Family, RelativeTime
from benchmarks.construction_quality.templates_c import FAMILY_C
from benchmarks.construction_quality.templates_d import FAMILY_D
from benchmarks.construction_quality.templates_e import FAMILY_E
from benchmarks.construction_quality.templates_f import FAMILY_F
from benchmarks.construction_quality.templates_g import FAMILY_G
from benchmarks.construction_quality.templates_h import FAMILY_H
from benchmarks.construction_quality.truth import (
    ConceptTruth,
    Conversation,
    DataSet,
    DateWindow,
    GenTurn,
    Interval,
    Person,
    ValueRef,
)

Layout = Literal["full", "tiny"]

FAMILIES: dict[str, Family] = {
    **FAMILIES_AB,
    FAMILY_C.name: FAMILY_C,
    FAMILY_D.name: FAMILY_D,
    FAMILY_E.name: FAMILY_E,
    FAMILY_F.name: FAMILY_F,
    FAMILY_G.name: FAMILY_G,
    FAMILY_H.name: FAMILY_H,
}
"""Every template family by name: A and B (``templates``), C (``templates_c``, apart so it
could be written without reading B), D (``templates_d``, written without reading B or C), E
(``templates_e``, written without reading C), F (``templates_f``, written blind, without
reading the library's rules), G (``templates_g``, written blind the same way, after F) and H
(``templates_h``, written blind the same way, after G, in a texting register), registered here
so no template module imports another's families."""


@dataclass(frozen=True)
class SetSpec:
    """A named set: template family, seed, conversations and layout."""

    family: str
    seed: int
    conversations: int
    layout: Layout = "full"


SETS: dict[str, SetSpec] = {
    "tuning": SetSpec("A", 1, 4),
    "test": SetSpec("B", 2, 4),
    "tiny": SetSpec("A", 3, 1, "tiny"),
    "holdout": SetSpec("C", 3, 4),
    "holdout2": SetSpec("D", 5, 4),
    "holdout3": SetSpec("E", 7, 4),
    "holdout4": SetSpec("F", 9, 4),
    "holdout5": SetSpec("G", 10, 4),
    "holdout6": SetSpec("H", 11, 4),
}
"""``tuning`` (templates A, seed 1) is what the construction may be tuned on; ``test``
(templates B, seed 2) is read only for the final evaluation; ``holdout`` (templates C, seed 3,
the same shape) is read only for the final evaluation of issue 48 and nobody tunes on it (C
was written after B had been evaluated, without reading B); ``holdout2`` (templates D, seed 5,
the same shape) was written after C had been evaluated, without reading B or C, and is read
only for the final evaluation; ``holdout3`` (templates E, seed 7, the same shape) was written
blind to the engineers' tuning and is evaluated once; ``holdout4`` (templates F, seed 9, the
same shape) was written blind, without reading the library's rules, after A, C, D and E had
become tuning data, and is evaluated once; ``holdout5`` (templates G, seed 10, the same
shape) was written blind, without reading the library's rules, after A to F had become tuning
data, and is evaluated once; ``holdout6`` (templates H, seed 11, the same shape) was written
blind, without reading the library's rules, after A to G had become tuning data, and is
evaluated once; ``tiny`` is a smoke set."""


def relative_window(rel: RelativeTime, said: date) -> tuple[str, DateWindow]:
    """The words of ``rel`` as said on ``said`` and the days they mean."""
    if rel.unit == "days":
        return rel.words, DateWindow.day(said - timedelta(days=rel.amount))
    month = said - relativedelta(months=rel.amount)
    return rel.words.format(month=f"{month:%B}"), DateWindow.month(month.year, month.month)


@dataclass
class _Builder:
    """Collects a conversation's turns and timelines while the layout is played."""

    family: Family
    rng: random.Random
    conv_id: str
    people: list[Person]
    subject: str
    other: str
    third_speaker: str | None
    turns: list[GenTurn] = field(default_factory=list)
    truth: dict[tuple[str, str], ConceptTruth] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    session: int = 0
    day: date = date(2024, 1, 1)
    clock: datetime = datetime(2024, 1, 1)

    def start_session(self, day: date) -> None:
        self.session += 1
        self.day = day
        self.clock = datetime(day.year, day.month, day.day, 9 + 2 * self.session, 0)

    def value(self, concept: str) -> str:
        choice = self.rng.choice([v for v in self.family.values[concept] if v not in self.used])
        self.used.add(choice)
        return choice

    def say(
        self,
        speaker: str,
        text: str,
        asserts: tuple[ValueRef, ...] = (),
        denies: tuple[ValueRef, ...] = (),
    ) -> str:
        """Add a turn (listener: the subject, or the other speaker when the subject talks)."""
        turn_id = f"t{len(self.turns) + 1:02d}"
        listener = self.other if speaker == self.subject else self.subject
        self.turns.append(
            GenTurn(
                id=turn_id, session=f"s{self.session}", speaker=speaker, listener=listener,
                text=text, timestamp=self.clock.isoformat(), asserts=list(asserts),
                denies=list(denies),
            )
        )  # fmt: skip
        self.clock += timedelta(minutes=2)
        return turn_id

    def timeline(self, owner: str, concept: str) -> ConceptTruth:
        key = (owner, concept)
        if key not in self.truth:
            self.truth[key] = ConceptTruth(
                owner=owner, concept=concept, property=PROPERTIES[concept], intervals=[]
            )
        return self.truth[key]

    def begin(self, owner: str, concept: str, value: str, start: DateWindow | None) -> None:
        """A new value of ``owner``'s ``concept``, stated by the turn just said."""
        interval = Interval(
            value=value, start=start, end=None, stated_on=self.day.isoformat(),
            turn=self.turns[-1].id,
        )  # fmt: skip
        self.timeline(owner, concept).intervals.append(interval)

    def pick(self, options: tuple[str, ...]) -> str:
        return self.rng.choice(options)

    def relative(self) -> RelativeTime:
        return self.rng.choice(self.family.relative)

    def small_talk(self, speaker: str) -> None:
        self.say(speaker, self.pick(self.family.fillers))


def _ref(owner: str, concept: str, value: str) -> ValueRef:
    return ValueRef(owner=owner, concept=concept, value=value)


def state(b: _Builder, owner: str, concept: str, template: str) -> None:
    """``owner`` states a value that held before anything was said."""
    value = b.value(concept)
    b.say(owner, template.format(value=value), (_ref(owner, concept, value),))
    b.begin(owner, concept, value, None)


def change(b: _Builder, concept: str, rel: RelativeTime | None) -> str:
    """The subject changes ``concept`` in other words, dated by ``rel`` or by the turn."""
    wording, s = b.family.wordings[concept], b.subject
    old, value = b.timeline(s, concept).values()[-1], b.value(concept)
    if rel is None:
        text, start = b.pick(wording.change).format(old=old, value=value), DateWindow.day(b.day)
    else:
        words, start = relative_window(rel, b.day)
        template = b.pick(wording.change_dated)
        text = template.format(old=old, value=value, when=words, When=_cap(words))
    b.say(s, text, (_ref(s, concept, value),), (_ref(s, concept, old),))
    b.begin(s, concept, value, start)
    return value


def negate(b: _Builder, concept: str, rel: RelativeTime) -> None:
    """The subject says the current value no longer holds, since a relative time."""
    wording, s = b.family.wordings[concept], b.subject
    current = b.timeline(s, concept).intervals[-1]
    words, end = relative_window(rel, b.day)
    text = b.pick(wording.negate_dated).format(old=current.value, when=words, When=_cap(words))
    b.say(s, text, denies=(_ref(s, concept, current.value),))
    current.end = end


def after_negation(b: _Builder, concept: str) -> None:
    s, value = b.subject, b.value(concept)
    text = b.pick(b.family.wordings[concept].after_negation).format(value=value)
    b.say(s, text, (_ref(s, concept, value),))
    b.begin(s, concept, value, DateWindow.day(b.day))


def corrected_change(b: _Builder, concept: str, reactor: str) -> None:
    """A change to a value the subject takes back two turns later ("it's Y, not X")."""
    s = b.subject
    wrong = change(b, concept, None)
    timeline = b.timeline(s, concept)
    timeline.intervals.pop()
    timeline.retracted.append(wrong)
    b.say(reactor, b.pick(b.family.reactions))
    value = b.value(concept)
    text = b.pick(b.family.corrections).format(value=value, old=wrong)
    b.say(s, text, (_ref(s, concept, value),), (_ref(s, concept, wrong),))
    b.begin(s, concept, value, DateWindow.day(b.day))


def third_party(b: _Builder, concept: str) -> None:
    """The subject mentions a third party's new value (the third party's, not theirs)."""
    person = next(p for p in b.people if p.role == "third_party")
    value = b.value(concept)
    template = b.pick(b.family.wordings[concept].third_party)
    text = template.format(value=value, name=person.name, rel=person.relation)
    b.say(b.subject, text, (_ref(person.name, concept, value),))
    b.begin(person.name, concept, value, DateWindow.day(b.day))


def _cap(words: str) -> str:
    return words[:1].upper() + words[1:]


def _people(family: Family, rng: random.Random, index: int) -> tuple[list[Person], str | None]:
    subject = family.subjects[index % len(family.subjects)]
    others = rng.sample(family.others, 2)
    name, relation = family.third_parties[index % len(family.third_parties)]
    third = Person(name=name, role="third_party", relation=relation)
    people = [Person(name=subject, role="subject"), Person(name=others[0], role="other"), third]
    third_speaker = others[1] if index % 2 == 1 else None
    if third_speaker is not None:
        people.append(Person(name=third_speaker, role="other"))
    return people, third_speaker


def _full(b: _Builder, days: list[date]) -> None:
    """The 14-turn layout of the module docstring."""
    f, s, o = b.family, b.subject, b.other
    concepts = b.rng.sample(sorted(f.wordings), 3)
    plan = ["negation", "correction", "dated"]
    b.rng.shuffle(plan)
    treat = dict(zip(plan, concepts, strict=True))
    chatty = b.third_speaker or o
    b.start_session(days[0])
    b.say(o, b.pick(f.greetings).format(name=s))
    state(b, s, concepts[0], b.pick(f.wordings[concepts[0]].state))
    other_concept = b.rng.choice(concepts)
    state(b, o, other_concept, b.pick(f.wordings[other_concept].stable_other))
    state(b, s, concepts[1], b.pick(f.wordings[concepts[1]].state))
    b.small_talk(chatty)
    state(b, s, concepts[2], b.pick(f.wordings[concepts[2]].state))
    b.start_session(days[1])
    b.say(o, b.pick(f.openers).format(name=s))
    third_party(b, b.rng.choice(concepts))
    denial = b.relative()
    if b.rng.random() < 0.5:
        negate(b, treat["negation"], denial)
        change(b, treat["dated"], b.relative())
    else:
        change(b, treat["dated"], b.relative())
        negate(b, treat["negation"], denial)
    b.start_session(days[2])
    after_negation(b, treat["negation"])
    corrected_change(b, treat["correction"], chatty)


def _tiny(b: _Builder, days: list[date]) -> None:
    """Four turns: a statement, the other speaker's value, a dated change, a third party."""
    f, s, o = b.family, b.subject, b.other
    concept = b.rng.choice(sorted(f.wordings))
    b.start_session(days[0])
    state(b, s, concept, b.pick(f.wordings[concept].state))
    state(b, o, concept, b.pick(f.wordings[concept].stable_other))
    b.start_session(days[1])
    change(b, concept, b.relative())
    third_party(b, concept)


def conversation(set_name: str, spec: SetSpec, rng: random.Random, index: int) -> Conversation:
    family = FAMILIES[spec.family]
    people, third_speaker = _people(family, rng, index)
    first = date(2024, 1, 8) + timedelta(days=rng.randint(0, 300))
    second = first + timedelta(days=rng.randint(70, 100))
    days = [first, second, second + timedelta(days=rng.randint(30, 60))]
    b = _Builder(
        family, rng, f"cq-{set_name}-{index}", people, people[0].name, people[1].name,
        third_speaker,
    )  # fmt: skip
    (_full if spec.layout == "full" else _tiny)(b, days)
    conv = Conversation(
        conversation_id=b.conv_id, family=family.name, people=people, turns=b.turns,
        truth=list(b.truth.values()),
        question_date=(b.day + timedelta(days=rng.randint(3, 20))).isoformat(),
    )  # fmt: skip
    return add_questions(conv, family)


def generate(set_name: str, conversations: int | None = None) -> DataSet:
    """The named set (``SETS``), optionally with another number of conversations."""
    spec = SETS[set_name]
    rng = random.Random(spec.seed)
    count = conversations if conversations is not None else spec.conversations
    convs = [conversation(set_name, spec, rng, i) for i in range(count)]
    return DataSet(name=set_name, family=spec.family, seed=spec.seed, conversations=convs)


def jsonl_lines(data: DataSet) -> list[str]:
    """One JSON object per turn, in the loader's JSONL format."""
    return [
        json.dumps({
            "conversation": conv.conversation_id, "session": t.session, "id": t.id,
            "speaker": t.speaker, "listener": t.listener, "text": t.text,
            "timestamp": t.timestamp,
        })
        for conv in data.conversations
        for t in conv.turns
    ]  # fmt: skip


def write_set(data: DataSet, directory: Path) -> tuple[Path, Path]:
    """Write the turns (``<name>.jsonl``) and the truth with questions (``<name>.truth.json``)."""
    directory.mkdir(parents=True, exist_ok=True)
    turns = directory / f"construction_quality_{data.name}.jsonl"
    truth = directory / f"construction_quality_{data.name}.truth.json"
    turns.write_text("\n".join(jsonl_lines(data)) + "\n", encoding="utf-8")
    truth.write_text(data.model_dump_json(indent=1), encoding="utf-8")
    return turns, truth
