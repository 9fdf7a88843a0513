"""Generated conversations in which a person's attributes change over time, with gold answers.

Each conversation has one person telling a friend, one session at a time, about changes to
two attributes drawn from ``ATTRIBUTES`` (favourite restaurant, employer, city, partner,
car), each taking ``values_per_attribute`` distinct values; statements alternate between the
attributes, one per session, sessions 20-40 days apart. Questions, one of each kind per
conversation, with gold answers computed from the generated timeline (never from memory):

* current: the value now (the last one);
* as_of: the value on a date between two statements (the earlier value);
* when_changed: when the attribute became a given later value (that statement's date);
* before: the value just before a given later value;
* count_changes: how many times it changed (values - 1).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from pydantic import BaseModel

from apexmem_neo.construction.loaders import TurnInput

QUESTION_KINDS = ("current", "as_of", "when_changed", "before", "count_changes")
PEOPLE = ("Alice", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Grace", "Hiro")
FRIENDS = ("Sam", "Lee", "Kim", "Pat")
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six")


class Attribute(BaseModel):
    """How people state an attribute, and how questions ask about it ({p} = the person)."""

    name: str
    values: tuple[str, ...]
    first: str  # first statement
    change: str  # later statements
    current: str
    as_of: str  # {date}
    when: str  # {value}
    before: str  # {value}
    count: str


ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute(
        name="favourite_restaurant",
        values=("Italian Garden", "Sakura Sushi", "Blue Lotus", "Taco Haven", "Le Petit Bistro"),
        first="My favourite restaurant is {value}, I go there every week.",
        change="I have a new favourite restaurant: {value}. I love it!",
        current="What is {p}'s favourite restaurant now?",
        as_of="What was {p}'s favourite restaurant on {date}?",
        when="When did {value} become {p}'s favourite restaurant?",
        before="What was {p}'s favourite restaurant before {value}?",
        count="How many times has {p}'s favourite restaurant changed?",
    ),
    Attribute(
        name="employer",
        values=("Acme Corp", "Globex", "Initech", "Umbrella Labs", "Stark Industries"),
        first="I work at {value} as an engineer.",
        change="Big news: I left my job and started working at {value} this week.",
        current="Where does {p} work now?",
        as_of="Where did {p} work on {date}?",
        when="When did {p} start working at {value}?",
        before="Where did {p} work before {value}?",
        count="How many times has {p} changed jobs?",
    ),
    Attribute(
        name="city",
        values=("Boston", "Denver", "Seattle", "Austin", "Chicago"),
        first="I live in {value}, in a small flat downtown.",
        change="I just moved to {value}! The boxes are still everywhere.",
        current="Which city does {p} live in now?",
        as_of="Which city did {p} live in on {date}?",
        when="When did {p} move to {value}?",
        before="Which city did {p} live in before moving to {value}?",
        count="How many times has {p} moved to another city?",
    ),
    Attribute(
        name="partner",
        values=("Jordan", "Taylor", "Morgan", "Casey", "Riley"),
        first="I'm dating {value}, we met at a concert.",
        change="I broke up with my ex and now I'm dating {value}.",
        current="Who is {p} dating now?",
        as_of="Who was {p} dating on {date}?",
        when="When did {p} start dating {value}?",
        before="Who was {p} dating before {value}?",
        count="How many times has {p} changed partners?",
    ),
    Attribute(
        name="car",
        values=("Toyota Corolla", "Honda Civic", "Ford Mustang", "Tesla Model 3", "Subaru Outback"),
        first="I drive a {value}, it still runs fine.",
        change="I sold my old car and bought a {value} today.",
        current="What car does {p} drive now?",
        as_of="What car did {p} drive on {date}?",
        when="When did {p} buy the {value}?",
        before="What car did {p} drive before the {value}?",
        count="How many times has {p} changed cars?",
    ),
)


class Statement(BaseModel):
    attribute: str
    value: str
    date: str  # ISO datetime of the session
    text: str


class TemporalQuestion(BaseModel):
    qid: str
    kind: str
    attribute: str
    question: str
    gold: str
    gold_forms: list[str]  # surface forms accepted by the exact check


class Conversation(BaseModel):
    conversation_id: str
    person: str
    friend: str
    statements: list[Statement]
    question_date: str
    questions: list[TemporalQuestion]

    def turns(self) -> list[TurnInput]:
        """One turn per session: the person's statement, anchored at the session date."""
        return [
            TurnInput(
                source_key=f"{self.conversation_id}:D{i + 1}:1",
                conversation_id=self.conversation_id,
                session_seq=i + 1,
                session_started=s.date,
                seq=0,
                speaker=self.person,
                listener=self.friend,
                text=s.text,
                anchor=s.date,
            )
            for i, s in enumerate(self.statements)
        ]


def date_forms(iso: str) -> list[str]:
    """ISO day plus the written forms a model may use ("15 March 2024", "March 15, 2024")."""
    day = datetime.fromisoformat(iso)
    return [day.date().isoformat(), f"{day.day} {day:%B %Y}", f"{day:%B} {day.day}, {day.year}"]


def _statements(rng: random.Random, attrs: list[Attribute], per: int) -> list[Statement]:
    chosen = {a.name: rng.sample(a.values, per) for a in attrs}
    when = datetime(2024, 1, 8, 10, 0) + timedelta(days=rng.randint(0, 60))
    out: list[Statement] = []
    for step in range(per):
        for a in attrs:
            value = chosen[a.name][step]
            template = a.first if step == 0 else a.change
            out.append(
                Statement(
                    attribute=a.name,
                    value=value,
                    date=when.isoformat(),
                    text=template.format(value=value),
                )
            )
            when += timedelta(days=rng.randint(20, 40))
    return out


def questions(
    conv_id: str, person: str, statements: list[Statement], rng: random.Random
) -> list[TemporalQuestion]:
    """One question of each kind, each on a randomly chosen attribute."""
    by_attr: dict[str, list[Statement]] = {}
    for s in statements:
        by_attr.setdefault(s.attribute, []).append(s)
    spec = {a.name: a for a in ATTRIBUTES}
    out: list[TemporalQuestion] = []
    for kind in QUESTION_KINDS:
        name = rng.choice(sorted(by_attr))
        timeline, attr = by_attr[name], spec[name]
        k = rng.randrange(1, len(timeline))  # a later value (index >= 1)
        earlier, later = timeline[k - 1], timeline[k]
        if kind == "current":
            text, gold = attr.current.format(p=person), timeline[-1].value
        elif kind == "as_of":
            mid = (
                datetime.fromisoformat(earlier.date)
                + (datetime.fromisoformat(later.date) - datetime.fromisoformat(earlier.date)) / 2
            )
            text = attr.as_of.format(p=person, date=f"{mid.day} {mid:%B %Y}")
            gold = earlier.value
        elif kind == "when_changed":
            text, gold = attr.when.format(p=person, value=later.value), later.date[:10]
        elif kind == "before":
            text, gold = attr.before.format(p=person, value=later.value), earlier.value
        else:
            text, gold = attr.count.format(p=person), str(len(timeline) - 1)
        forms = date_forms(gold) if kind == "when_changed" else [gold]
        if kind == "count_changes":
            forms.append(NUMBER_WORDS[int(gold)])
        out.append(
            TemporalQuestion(
                qid=f"{conv_id}:{kind}",
                kind=kind,
                attribute=name,
                question=text,
                gold=gold,
                gold_forms=forms,
            )
        )
    return out


def generate(
    n: int, seed: int = 7, attributes_per_conversation: int = 2, values_per_attribute: int = 3
) -> list[Conversation]:
    """``n`` conversations, deterministic for a seed."""
    rng = random.Random(seed)
    out: list[Conversation] = []
    for i in range(n):
        person, friend = PEOPLE[i % len(PEOPLE)], FRIENDS[i % len(FRIENDS)]
        attrs = rng.sample(list(ATTRIBUTES), attributes_per_conversation)
        statements = _statements(rng, attrs, values_per_attribute)
        conv_id = f"temporal-{seed}-{i}"
        last = datetime.fromisoformat(statements[-1].date)
        out.append(
            Conversation(
                conversation_id=conv_id,
                person=person,
                friend=friend,
                statements=statements,
                question_date=(last + timedelta(days=1)).isoformat(),
                questions=questions(conv_id, person, statements, rng),
            )
        )
    return out
