"""How the agent reads a question: what it asks about and which property it is about.

General rules, no LLM: whether a question asks about a state over time, before something,
or when something happened; which words and stemmed terms it holds; which of an entity's
properties it is about; and its words without the names of the persons it names. The
question's time words are read by ``apexmem_neo.agent.timewords``. ``agent/context.py``
builds the fast path's context from these rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from apexmem_neo.agent.timewords import QuestionTime
from apexmem_neo.ontology.lexicon import common_property
from apexmem_neo.search.text import analyze
from apexmem_neo.tools.entity_lookup import EntityView

_WORDS: Final = re.compile(r"[a-z0-9]+")

BEFORE_WORDS: Final = frozenset({"before", "prior", "previou", "earlier"})  # as words() spells them
"""Words of a question that asks what held before a value it names."""

STATE_TIME_WORDS: Final = frozenset(
    "before after since until now currently current still often times previous "
    "previously change changed changes became become".split()
)
"""Words of a question that asks about a state over time (before, since, now, how often,
what changed). "During" is not one: "what did she meet during training" asks about an
event."""

ASKS_WHEN: Final = re.compile(
    r"^\W*when\b|\b(what|which) (date|day|month|year)\b|\bon what (date|day)\b", re.IGNORECASE
)
"""A question that wants a date as its answer: "When ...", "which year", "on what day"."""


def words(text: str) -> set[str]:
    """Lower-case words with a plural or possessive s dropped, for overlap scoring."""
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in _WORDS.findall(text.lower())}


def terms(text: str) -> set[str]:
    """Content words, stemmed, for relevance: "what did she research" -> {"research"}, which
    matches "Researching adoption agencies" and not every value holding "what"."""
    return set(analyze(text.replace("_", " ")))


def shared_terms(asked: set[str], text: str) -> int:
    """How many of the question's ``asked`` terms ``text`` holds."""
    return len(asked & terms(text))


PRESENT_TIME: Final = re.compile(
    r"\b(nowadays|presently|lately|these days|at (the )?(moment|present|minute)|"
    r"at this (point|stage|time)|as (things|it) stands?|right now|as we speak|"
    r"(any|no) (more|longer)|anymore)\b",
    re.IGNORECASE,
)
"""Phrases beyond ``STATE_TIME_WORDS`` that ask about the present state, as people say it:
"where does she work these days", "what does he drive at the moment", "who does she work for
at this point", "as things stand", "not there anymore"."""
UNTIL_A_CHANGE: Final = re.compile(r"\buntil\b(?!\s+when\b)", re.IGNORECASE)
""""Until" before the change that ended a value ("where did she live until the move to
Aberdeen"), not "until when", which asks for an end date."""


def asks_about_states(question: str, times: Sequence[QuestionTime]) -> bool:
    """Whether the question asks about a state over time: it names a time (``times``),
    holds one of ``STATE_TIME_WORDS`` or a ``PRESENT_TIME`` phrase. Other questions, a plain
    "when did ..." among them, are answered from the turns: the small model copied a computed
    state as the answer to a question about something else, and states extracted from events
    misled it on the date of an event."""
    if times or PRESENT_TIME.search(question):
        return True
    return not STATE_TIME_WORDS.isdisjoint(_WORDS.findall(question.lower()))


CHANGE_WORDS: Final = frozenset(
    {"change", "changed", "often", "time", "many"}
)  # as words() spells them
"""Words of a question that asks how a state changed ("how many times did she move")."""


def asks_about_changes(question: str) -> bool:
    """Whether the question asks how often or how a state changed; other questions get no
    "changed N times" line, which made the small model answer the latest value to as-of
    and now questions."""
    return bool(words(question) & CHANGE_WORDS)


def asks_before(question: str) -> bool:
    """Whether the question asks what held before something ("before", "prior", "until Y
    came along", ...)."""
    return bool(words(question) & BEFORE_WORDS) or UNTIL_A_CHANGE.search(question) is not None


def mentions_when(question: str) -> bool:
    """Whether "when" is one of the question's words, anywhere in it."""
    return "when" in words(question)


def asks_when(question: str) -> bool:
    """Whether the question wants a date as its answer (``ASKS_WHEN``)."""
    return ASKS_WHEN.search(question) is not None


def names_value(question: str, value: Any) -> bool:
    """Whether the question names ``value``: every word of the value is one of its words."""
    named = words(str(value))
    return bool(named) and named <= words(question)


def name_match(asked: set[str], prop: str) -> int:
    """How many of the ``asked`` terms a property's name holds, or, for a common property,
    one of its synonyms holds whole ("employer" is also "works at": "where does she work"
    finds it). A synonym counts only whole, so "go to restaurant" does not make every
    question with "go" about restaurants."""
    own = len(asked & terms(prop))
    common = common_property(prop)
    synonyms = () if common is None else common.names
    whole = (len(t) for t in map(terms, synonyms) if t and t <= asked)
    return max([own, *whole])


NAME_WEIGHT: Final = 10
"""A question term in a property's name counts more than any number of terms in its values:
"what was her hobby in August" is about ``hobby``, not the ``car`` whose value is a date."""


def property_relevance(view: EntityView, question: str) -> dict[str, int]:
    """Per property of the entity, how much the question is about it: the question terms
    its name stands for (``name_match``), weighted by ``NAME_WEIGHT``, plus the most
    question terms one of its values holds. Numbers are left out: a year in the question
    names a time, not a property."""
    asked = {t for t in terms(question) if not t.isdigit()}
    in_values: dict[str, int] = {}
    for fact in view.facts:
        in_value = shared_terms(asked, str(fact.value))
        in_values[fact.property] = max(in_values.get(fact.property, 0), in_value)
    return {
        prop: NAME_WEIGHT * name_match(asked, prop) + in_value
        for prop, in_value in in_values.items()
    }


def by_score(scores: dict[str, int]) -> list[str]:
    """The properties, best score first; ties keep name order."""
    return sorted(scores, key=lambda p: (-scores[p], p))


def rank_properties(view: EntityView, question: str) -> list[str]:
    """The entity's properties, those sharing words with the question (in the property's
    name or any of its values) first; ties keep name order."""
    return by_score(property_relevance(view, question))


def most_relevant(view: EntityView, question: str, among: set[str]) -> str | None:
    """The property of ``among`` the question is most about, or None when it shares no term
    with any of them."""
    relevance = property_relevance(view, question).items()
    scores = {prop: score for prop, score in relevance if prop in among}
    if not scores or max(scores.values()) == 0:
        return None
    return by_score(scores)[0]


def without_person_names(question: str, views: Sequence[EntityView]) -> str:
    """The question without the names of the persons it found: a value that merely names one
    ("Alice's painting") is not relevant to every question about her."""
    persons = [v.entity.name for v in views if v.entity.entity_type.value == "Person"]
    names = {w for name in persons for w in words(name)}
    return " ".join(w for w in _WORDS.findall(question.lower()) if words(w).isdisjoint(names))


def named_views(question: str, views: Sequence[EntityView]) -> list[EntityView]:
    """The views of the entities the question names (their first name, or every word of an
    alias), or all of them when it names none: a question about Olga is not answered with
    the timeline of the speaker who mentioned her."""
    asked = words(question)
    named = [v for v in views if any(_names(asked, n) for n in (v.entity.name, *v.entity.aliases))]
    return named or list(views)


def _names(asked: set[str], name: str) -> bool:
    first = name.split()[:1]
    return bool(first) and (words(first[0]) <= asked or words(name) <= asked)
