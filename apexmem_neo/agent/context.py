"""The fast path's prefetch: the question's top entities with their timelines, and turns.

No LLM here: candidates come from search (when there is one) and name matching, exactly as
EntityLookup finds them; the text is compact so a small local model can read it quickly.

Long free-text values (a property holding many quotes) could fill the whole budget and cut
off the turns that hold the answer, so the turns have their own share of the budget,
free-text properties show only the facts that share words with the question, and turns are
cited by short labels (T1, T2) instead of their long ids, which cost a small model many
prompt tokens each. How the question is read (what it asks, which property it is about) is
``apexmem_neo.agent.question``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from apexmem_neo.agent.dated_answers import TurnDates
from apexmem_neo.agent.models import AgentConfig, EvidenceItem
from apexmem_neo.agent.question import (
    asks_about_changes,
    asks_about_states,
    asks_before,
    asks_when,
    mentions_when,
    most_relevant,
    named_views,
    names_value,
    rank_properties,
    shared_terms,
    terms,
    without_person_names,
)
from apexmem_neo.agent.timewords import (
    QuestionTime,
    question_times,
    said_times,
    spoken_date,
    with_said_dates,
)
from apexmem_neo.ontology import value_text
from apexmem_neo.query.backend import QueryBackend, QueryLimits
from apexmem_neo.search.protocol import SearchError
from apexmem_neo.store.protocol import (
    GraphStore,
    compute_changes,
    fact_order_key,
    held_until,
    latest_holding,
)
from apexmem_neo.tools.compact_schema import SchemaLink
from apexmem_neo.tools.entity_lookup import EntityView, Searcher, top_entities

log = logging.getLogger(__name__)

NOTHING = "(nothing found in memory for this question)"


STATE_VALUE_CHARS = 60
"""A property whose values are all at most this long is a state (city, job, favourite
restaurant): shown as a timeline with changes. Longer values are free-text notes."""
NOTES_PER_PROPERTY = 3
TURN_CHARS = 300
TURNS_SHARE = 0.6
"""Share of ``max_context_chars`` kept for the prefetched turns."""


def _value(value: Any, limit: int = 120) -> str:
    return value_text(value).replace("\n", " ")[:limit]


@dataclass
class TurnLabels:
    """Short labels (T1, T2, ...) for the turn ids a context cites, in order of first use."""

    by_label: dict[str, str] = field(default_factory=dict)
    _by_turn: dict[str, str] = field(default_factory=dict)

    def label(self, turn_id: str | None) -> str:
        if not turn_id:
            return "-"
        if turn_id not in self._by_turn:
            self._by_turn[turn_id] = f"T{len(self._by_turn) + 1}"
            self.by_label[self._by_turn[turn_id]] = turn_id
        return self._by_turn[turn_id]

    def resolve(self, cited: Sequence[str]) -> list[str]:
        """Turn ids for what a model cited: labels are mapped back, real ids kept."""
        return [self.by_label.get(c.strip().upper(), c.strip()) for c in cited]


@dataclass
class Prefetched:
    """The fast path's context text, the turn labels it uses, and the days and time words of
    the turns it shows (by turn id)."""

    text: str
    labels: TurnLabels
    dates: dict[str, TurnDates] = field(default_factory=dict)


def _history(view: EntityView, prop: str) -> list[Any]:
    """The property's facts in time order, without those taken back: a value that a later
    statement replaced from the very instant it began (a correction) never held."""
    facts = sorted((f for f in view.facts if f.property == prop), key=fact_order_key)
    return [f for i, f in enumerate(facts) if not _taken_back(f, facts[i + 1 :])]


def _taken_back(fact: Any, later: Sequence[Any]) -> bool:
    return any(
        g.t_from == fact.t_from and g.recorded_at > fact.recorded_at and g.value != fact.value
        for g in later
    )


def is_state(history: Sequence[Any]) -> bool:
    """True when every value is short enough to be a state rather than a free-text note."""
    return all(len(str(f.value)) <= STATE_VALUE_CHARS for f in history)


def state_properties(view: EntityView) -> set[str]:
    """The view's properties that are states, in one pass over its facts."""
    notes = {f.property for f in view.facts if len(str(f.value)) > STATE_VALUE_CHARS}
    return {f.property for f in view.facts} - notes


def property_timeline(
    view: EntityView,
    prop: str,
    times: Sequence[QuestionTime],
    max_facts: int,
    labels: TurnLabels | None = None,
) -> list[str]:
    """One property's history with read-time intervals (a value holds until the next one),
    its changes counted, and the value at each time the question names."""
    labels = labels or TurnLabels()
    history = _history(view, prop)
    lines = [f"{prop}:"]
    for fact, until in list(zip(history, held_until(history), strict=True))[-max_facts:]:
        turn = labels.label(view.turn_of(fact))
        lines.append(f"  - {fact.t_from[:10]} to {until[:10]}: {_value(fact.value)} (turn {turn})")
    changes = compute_changes(history)
    said = "; ".join(
        f"on {c.changed_at[:10]} from {_value(c.old_value)} to {_value(c.new_value)}"
        for c in changes[-max_facts:]
    )
    lines.append(f"  changed {len(changes)} time(s)" + (f": {said}" if said else ""))
    for t in times:
        for day in dict.fromkeys((t.start, t.end)):
            held = latest_holding(history, f"{day}T23:59:59")  # what held by the day's end
            value = _value(held.value) if held else "nothing recorded yet"
            label = "" if t.expression == day else f" ({t.expression})"
            lines.append(f"  value on {day}{label}: {value}")
    return lines


def property_notes(
    view: EntityView, prop: str, question: str, limit: int, labels: TurnLabels
) -> list[str]:
    """A free-text property: only its facts sharing words with the question (at most
    ``limit``, best first, shown in time order), each with the date it was said of."""
    asked = terms(question)
    scored = [(shared_terms(asked, str(f.value)), f) for f in _history(view, prop)]
    best = sorted((x for x in scored if x[0] > 0), key=lambda x: -x[0])[:limit]
    shown = sorted((f for _, f in best), key=fact_order_key)
    lines = [f"{prop} (notes):"] if shown else []
    for fact in shown:
        turn = labels.label(view.turn_of(fact))
        lines.append(f"  - {fact.t_from[:10]}: {_value(fact.value, 200)} (turn {turn})")
    return lines


def computed_for_question(
    view: EntityView, question: str, times: Sequence[QuestionTime]
) -> list[str]:
    """What the temporal operators answer for the state property most relevant to the
    question: its value at each time the question names, the value before any value the
    question mentions ("before Google"), when a value it mentions began ("when did ... move
    to Seattle"), how often it changed, and (with no time asked) its value now.
    Small models copy such lines far more reliably than they read a timeline. Free-text
    properties get no such lines: "changed 30 times" between quotes is noise."""
    prop = most_relevant(view, question, state_properties(view))
    if prop is None:
        return []
    name = f"{view.entity.name}'s {prop}"
    history = _history(view, prop)
    lines = [line for t in times for line in held_lines(name, history, t)]
    changes = compute_changes(history)
    when = mentions_when(question)
    if asks_before(question):
        for change in changes:
            if names_value(question, change.new_value):
                old, until = value_before(history, change.changed_at)
                lines.append(
                    f"{name} before {_value(change.new_value)}: {_value(old)} (until {until[:10]})"
                )
    if when:  # "when did X become Y": the date each mentioned value began
        lines += became_lines(name, history, question)
    if not lines and history and not when:  # nothing asked about the past
        lines.append(f"{name} now: {_value(history[-1].value)} (since {history[-1].t_from[:10]})")
    if asks_about_changes(question) or not lines:
        said = "; ".join(
            f"on {c.changed_at[:10]} from {_value(c.old_value)} to {_value(c.new_value)}"
            for c in changes[-3:]
        )
        lines.append(f"{name} changed {len(changes)} time(s)" + (f": {said}" if said else ""))
    return lines


def value_before(history: Sequence[Any], moment: str) -> tuple[Any, str]:
    """The last value ``history`` held before ``moment``, with when it stopped: the value a
    change replaced, or, where an end came between ("I no longer rate X" and later "it's Y
    now"), the value before that end, since "what was it before Y" asks for X."""
    earlier = [f for f in history if f.t_from < moment]
    for i in range(len(earlier) - 1, -1, -1):
        if earlier[i].value is not None:
            return earlier[i].value, earlier[i + 1].t_from if i + 1 < len(earlier) else moment
    return None, moment


def held_lines(name: str, history: Sequence[Any], time: QuestionTime) -> list[str]:
    """What held at the time the question names: one line when the same value held from its
    first day to its last ("Bruno's car in November 2024 (2024-11-01 to 2024-11-30): Honda
    Civic"), else the value on each of the two days."""
    held = {
        day: latest_holding(history, f"{day}T23:59:59")
        for day in dict.fromkeys((time.start, time.end))
    }
    values = {_value(f.value) if f else "nothing recorded" for f in held.values()}
    if len(values) == 1:
        span = time.start if time.start == time.end else f"{time.start} to {time.end}"
        said = f"on {span}" if time.expression == span else f"{time.expression} ({span})"
        return [f"{name} {said}: {values.pop()}"]
    return [
        f"{name} on {day}: {_value(f.value) if f else 'nothing recorded'}"
        for day, f in held.items()
    ]


def became_lines(name: str, history: Sequence[Any], question: str) -> list[str]:
    """The day each value of ``history`` that the question names began ("Alice's lives_in
    became Tucson on 2024-05-30"): the answer to "when did she move to Tucson"."""
    lines, previous = [], None
    for fact in history:
        if fact.value_json != previous and names_value(question, fact.value):
            lines.append(f"{name} became {_value(fact.value)} on {fact.t_from[:10]}")
        previous = fact.value_json
    return lines


BECAME_LINE: Final = re.compile(
    r"^- .+?'s \w+ became (?P<value>.+) on (?P<day>\d{4}-\d{2}-\d{2})$", re.M
)
"""A ``became_lines`` line as the context shows it."""


def became_date(question: str, answer: str, context: str) -> str | None:
    """The day a when-question's answer means when the model answered with the value the
    question names instead of a date ("Tucson" to "when did she move to Tucson"): the day
    the context's computed line says that value began. None when the answer holds a date or
    names no such value."""
    if not asks_when(question) or question_times(answer, None):
        return None
    for line in BECAME_LINE.finditer(context):
        if names_value(answer, line["value"]):
            return spoken_date(line["day"])
    return None


def named_value_lines(view: EntityView, question: str) -> list[str]:
    """For a when-question that asks about no state over time: the ``became_lines`` of the
    state properties whose values it names, and nothing else (a "changed" line beside them
    made the small model answer a value)."""
    lines: list[str] = []
    for prop in sorted(state_properties(view)):
        name = f"{view.entity.name}'s {prop}"
        lines += became_lines(name, _history(view, prop), question)
    return lines


def dated_matches(
    views: Sequence[EntityView], question: str, labels: TurnLabels, limit: int = 2
) -> list[str]:
    """For a when-question: the free-text facts that share the most content words with it,
    each with the date it holds from (grounded at ingest: "last Saturday" is the Saturday
    before the day it was said). Without this line the small model answered with the
    question's date. States get their "became" and "changed" lines instead: both at once
    made it answer a value."""
    if not mentions_when(question):
        return []
    asked = terms(question)
    notes = []
    for view in views:
        states = state_properties(view)
        notes += [(view, f) for f in view.facts if f.property not in states]
    scored = [(shared_terms(asked, f"{f.property} {f.value}"), v, f) for v, f in notes]
    best = max((score for score, _, _ in scored), default=0)
    if best == 0:
        return []
    top = sorted((x for x in scored if x[0] == best), key=lambda x: x[2].t_from)
    lines: list[str] = []
    for _, view, fact in top:
        line = (
            f'{view.entity.name}\'s {fact.property} "{_value(fact.value, 100)}" '
            f"is dated {fact.t_from[:10]} (turn {labels.label(view.turn_of(fact))})"
        )
        if line not in lines:
            lines.append(line)
    return lines[:limit]


def compact_entity(
    view: EntityView,
    max_facts: int,
    question: str = "",
    times: Sequence[QuestionTime] = (),
    labels: TurnLabels | None = None,
) -> str:
    """Entity header, then per property (most relevant to the question first) its timeline
    (states) or its matching notes (free text), until ``max_facts`` facts are shown."""
    labels = labels or TurnLabels()
    e = view.entity
    anchors = view.anchors()
    last = anchors[-1][:10] if anchors else "none"
    lines = [f"Entity {e.name} ({e.entity_type.value}), id {e.entity_id}, last_anchor {last}"]
    shown = 0
    for prop in rank_properties(view, question):
        if shown >= max_facts:
            break
        history = _history(view, prop)
        if is_state(history):
            lines += property_timeline(view, prop, times, max_facts - shown, labels)
            shown += len(history)
        else:
            notes = property_notes(view, prop, question, NOTES_PER_PROPERTY, labels)
            lines += notes
            shown += max(0, len(notes) - 1)
    return "\n".join(lines)


def _turns(searcher: Searcher, question: str, k: int, labels: TurnLabels) -> str:
    try:
        hits = searcher.search(question, k=k).turns
    except SearchError as exc:  # e.g. a question of stop words only: no turns to show
        # logged, because an index that cannot be read also lands here, and silence would
        # hide every turn from the agent
        log.warning("prefetch shows no turns: search failed: %s", exc)
        return ""
    # ServiceUnavailableError propagates: a search server that is down is named, not hidden.
    # In time order, like the timelines above them: ranked order put a later turn first, and
    # the small model then read it as the answer to as-of and before-X questions.
    hits = sorted(hits, key=lambda h: (h.time or "", h.graph_id))
    lines = [
        f"- {labels.label(h.graph_id)} ({(h.time or '')[:10]}) {_value(h.text, TURN_CHARS)}"
        for h in hits
    ]
    return "Turns:\n" + "\n".join(lines) if lines else ""


TRANSCRIPT_TURN_CHARS = 600


def transcript_turns(
    searcher: Searcher,
    question: str,
    k: int,
    labels: TurnLabels,
    dates: dict[str, TurnDates] | None = None,
) -> str:
    """The top-k turns as transcript lines ("[T1] 15 January 2024 Alice: ..."), oldest first,
    each with its time words resolved against the day it was said: the lines plain RAG shows,
    plus the dates the small model gets wrong when it resolves them itself. The facts
    extracted from a turn are not shown under it: the model copied them as answers in place
    of the turn's own words, and their dates are the time words' own."""
    try:
        hits = searcher.search(question, k=k).turns
    except SearchError as exc:
        log.warning("prefetch shows no turns: search failed: %s", exc)
        return ""
    lines: list[str] = []
    for hit in sorted(hits, key=lambda h: (h.time or "", h.graph_id)):
        said_on = (hit.time or "")[:10]
        times = said_times(hit.text, said_on) if said_on else []
        if dates is not None and said_on:
            dates[hit.graph_id] = TurnDates(said_on, times)
        # "Speaker: words", as indexed, with the dates of its time words beside them
        text = _value(with_said_dates(hit.text, times), TRANSCRIPT_TURN_CHARS)
        spoken = spoken_date(said_on) if said_on else "undated"
        lines.append(f"[{labels.label(hit.graph_id)}] {spoken} {text}")
    return "Turns, oldest first:\n" + "\n".join(lines) if lines else ""


def computed_lines(
    store: GraphStore,
    question: str,
    searcher: Searcher | None,
    config: AgentConfig,
    times: Sequence[QuestionTime],
    labels: TurnLabels,
) -> tuple[list[str], list[EntityView]]:
    """What the temporal operators compute for the question over its top entities (see
    ``computed_for_question`` and ``dated_matches``), and those entities' views."""
    try:
        views = list(top_entities(store, question, config.prefetch_entities, searcher))
    except Exception as exc:  # the store failing is reported by the tools, not here
        log.warning("prefetch shows no entities: %s: %s", type(exc).__name__, exc)
        return [], []
    topic = without_person_names(question, views)
    asked = named_views(question, views)
    if not asks_about_states(question, times):
        return [line for v in asked for line in named_value_lines(v, topic)], views
    computed = [line for v in asked for line in computed_for_question(v, topic, times)]
    return computed + dated_matches(views, topic, labels), views


LINK_CANDIDATES = 3
"""Entities searched for the question's schema link when the prefetch shows none."""


def schema_link(
    store: GraphStore,
    question: str,
    searcher: Searcher | None,
    config: AgentConfig,
    times: Sequence[QuestionTime] = (),
) -> SchemaLink | None:
    """The first of the question's top entities that has a property the question is about,
    with that property and the last day of the first time the question names: the query
    mode writes its worked example for them."""
    try:
        views = top_entities(store, question, config.prefetch_entities or LINK_CANDIDATES, searcher)
    except Exception as exc:  # the store failing is reported by the tools, not here
        log.warning("no schema link: %s: %s", type(exc).__name__, exc)
        return None
    topic = without_person_names(question, views)
    for view in views:
        prop = most_relevant(view, topic, {f.property for f in view.facts})
        if prop is not None:
            return SchemaLink(view.entity.name, prop, times[0].end if times else None)
    return None


def prefetch(
    store: GraphStore,
    question: str,
    searcher: Searcher | None,
    config: AgentConfig,
    times: Sequence[QuestionTime] = (),
) -> Prefetched:
    """The fast path's context, at most ``config.max_context_chars`` characters, in
    ``config.context_style``: ``transcript`` (computed lines, then the top turns with their
    time words dated) or ``entities`` (entity timelines and turns, in
    ``config.context_order``)."""
    if config.context_style == "transcript":
        return transcript_context(store, question, searcher, config, times)
    return entities_context(store, question, searcher, config, times)


def transcript_context(
    store: GraphStore,
    question: str,
    searcher: Searcher | None,
    config: AgentConfig,
    times: Sequence[QuestionTime],
) -> Prefetched:
    """Computed lines for a question about states over time (``asks_about_states``), then
    the same top-k turns plain RAG reads, each with its time words dated."""
    labels = TurnLabels()
    dates: dict[str, TurnDates] = {}
    parts: list[str] = []
    if config.prefetch_entities and (asks_about_states(question, times) or mentions_when(question)):
        computed, _ = computed_lines(store, question, searcher, config, times, labels)
        if computed:
            parts.append("Computed for this question:\n" + "\n".join(f"- {c}" for c in computed))
    if searcher is not None and config.prefetch_turns:
        k = config.prefetch_turns
        parts.append(transcript_turns(searcher, question, k, labels, dates))
    text = "\n\n".join(p for p in parts if p)[: config.max_context_chars]
    return Prefetched(text or NOTHING, labels, dates)


def entities_context(
    store: GraphStore,
    question: str,
    searcher: Searcher | None,
    config: AgentConfig,
    times: Sequence[QuestionTime] = (),
) -> Prefetched:
    """The entities' part and the turns, which keep their share of the budget, in
    ``config.context_order``."""
    labels = TurnLabels()
    turns = ""
    if searcher is not None and config.prefetch_turns:
        turns = _turns(searcher, question, config.prefetch_turns, labels)
        turns = turns[: int(config.max_context_chars * TURNS_SHARE)]
    parts: list[str] = []
    if config.prefetch_entities:
        computed, views = computed_lines(store, question, searcher, config, times, labels)
        topic = without_person_names(question, views)
        if computed:
            parts.append("Computed for this question:\n" + "\n".join(f"- {c}" for c in computed))
        parts += [compact_entity(v, config.max_facts, topic, times, labels) for v in views]
    budget = config.max_context_chars - len(turns) - 2
    entities = "\n\n".join(p for p in parts if p)[: max(0, budget)]
    ordered = (turns, entities) if config.context_order == "turns" else (entities, turns)
    text = "\n\n".join(p for p in ordered if p) or NOTHING
    return Prefetched(text, labels)


TURN_TEXT = "SELECT turn_id, speaker, text FROM turns WHERE turn_id = :turn_id"


def quote_turns(
    backend: QueryBackend | None, turn_ids: list[str], known: Mapping[str, str] | None = None
) -> list[EvidenceItem]:
    """Evidence items for ``turn_ids`` (deduplicated, at most 10) with the turns' words.

    With a backend, ids that name no turn are dropped (small models invent ids); without
    one, the ids are kept with whatever text ``known`` gives.
    """
    out: list[EvidenceItem] = []
    for turn_id in list(dict.fromkeys(t.strip() for t in turn_ids if t and t.strip()))[:10]:
        if backend is None:
            out.append(EvidenceItem(turn_id=turn_id, text=(known or {}).get(turn_id, "")))
            continue
        try:
            res = backend.run(TURN_TEXT, "sql", {"turn_id": turn_id}, QueryLimits(max_rows=1))
        except Exception:
            continue
        if res.rows:
            speaker, text = res.rows[0][1], res.rows[0][2]
            out.append(EvidenceItem(turn_id=turn_id, text=f"{speaker}: {text}"))
    return out
