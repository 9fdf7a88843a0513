"""The fast path's prefetch: the question's top entities with their timelines, and turns.

No LLM here: candidates come from search (when there is one) and name matching, exactly as
EntityLookup finds them; the text is compact so a small local model can read it quickly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from apexmem_neo.agent.models import AgentConfig, EvidenceItem
from apexmem_neo.agent.timewords import QuestionTime
from apexmem_neo.store.protocol import (
    GraphStore,
    compute_changes,
    fact_order_key,
    latest_holding,
)
from apexmem_neo.tools.backend import QueryBackend, QueryLimits
from apexmem_neo.tools.entity_lookup import EntityView, Searcher, top_entities

NOTHING = "(nothing found in memory for this question)"


def _value(value: Any) -> str:
    return str(value).replace("\n", " ")[:120]


_WORDS = re.compile(r"[a-z0-9]+")
BEFORE_WORDS = frozenset({"before", "prior", "previou", "earlier"})  # as _words spells them


def _words(text: str) -> set[str]:
    """Lower-case words with a plural or possessive s dropped, for overlap scoring."""
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in _WORDS.findall(text.lower())}


def rank_properties(view: EntityView, question: str) -> list[str]:
    """The entity's properties, those sharing words with the question (in the property's
    name or any of its values) first; ties keep name order."""
    return _by_score(_relevance(view, question))


def _by_score(scores: dict[str, int]) -> list[str]:
    return sorted(scores, key=lambda p: (-scores[p], p))


def property_timeline(
    view: EntityView, prop: str, times: Sequence[QuestionTime], max_facts: int
) -> list[str]:
    """One property's history with read-time intervals (a value holds until the next one),
    its changes counted, and the value at each time the question names."""
    history = sorted((f for f in view.facts if f.property == prop), key=fact_order_key)
    lines = [f"{prop}:"]
    for i, fact in enumerate(history[-max_facts:], start=max(0, len(history) - max_facts)):
        nxt = history[i + 1].t_from[:10] if i + 1 < len(history) else None
        until = fact.t_to[:10] if fact.t_to else (nxt or "now")
        turn = view.turn_of(fact) or "-"
        lines.append(f"  - {fact.t_from[:10]} to {until}: {_value(fact.value)} (turn {turn})")
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


def _relevance(view: EntityView, question: str) -> dict[str, int]:
    asked = _words(question)
    scores: dict[str, int] = {}
    for fact in view.facts:
        text = f"{fact.property.replace('_', ' ')} {fact.value}"
        scores[fact.property] = max(scores.get(fact.property, 0), len(asked & _words(text)))
    return scores


def computed_for_question(
    view: EntityView, question: str, times: Sequence[QuestionTime]
) -> list[str]:
    """What the temporal operators answer for the property most relevant to the question:
    its value at each time the question names, the value before any value the question
    mentions ("before Google"), when a value it mentions began ("when did ... move to
    Seattle"), how often it changed, and (with no time asked) its value now.
    Small models copy such lines far more reliably than they read a timeline."""
    scores = _relevance(view, question)
    if not scores or max(scores.values()) == 0:
        return []
    prop = _by_score(scores)[0]
    name = f"{view.entity.name}'s {prop}"
    history = sorted((f for f in view.facts if f.property == prop), key=fact_order_key)
    lines: list[str] = []
    for t in times:
        for day in dict.fromkeys((t.start, t.end)):
            held = latest_holding(history, f"{day}T23:59:59")
            lines.append(f"{name} on {day}: {_value(held.value) if held else 'nothing recorded'}")
    changes = compute_changes(history)
    asked = _words(question)
    if asked & BEFORE_WORDS:
        for change in changes:
            mentioned = _words(str(change.new_value))
            if mentioned and mentioned <= asked:
                lines.append(
                    f"{name} before {_value(change.new_value)}: {_value(change.old_value)} "
                    f"(until {change.changed_at[:10]})"
                )
    if "when" in asked:  # "when did X become Y": the date each mentioned value began
        previous = None
        for fact in history:
            mentioned = _words(str(fact.value))
            if fact.value_json != previous and mentioned and mentioned <= asked:
                lines.append(f"{name} became {_value(fact.value)} on {fact.t_from[:10]}")
            previous = fact.value_json
    if not lines and history and "when" not in asked:  # nothing asked about the past
        lines.append(f"{name} now: {_value(history[-1].value)} (since {history[-1].t_from[:10]})")
    said = "; ".join(
        f"on {c.changed_at[:10]} from {_value(c.old_value)} to {_value(c.new_value)}"
        for c in changes[-3:]
    )
    lines.append(f"{name} changed {len(changes)} time(s)" + (f": {said}" if said else ""))
    return lines


def compact_entity(
    view: EntityView, max_facts: int, question: str = "", times: Sequence[QuestionTime] = ()
) -> str:
    """Entity header, then per property (most relevant to the question first) its timeline,
    until ``max_facts`` facts are shown."""
    e = view.entity
    anchors = view.anchors()
    last = anchors[-1][:10] if anchors else "none"
    lines = [f"Entity {e.name} ({e.entity_type.value}), id {e.entity_id}, last_anchor {last}"]
    shown = 0
    for prop in rank_properties(view, question):
        if shown >= max_facts:
            break
        count = sum(1 for f in view.facts if f.property == prop)
        lines += property_timeline(view, prop, times, max_facts - shown)
        shown += count
    return "\n".join(lines)


def _turns(searcher: Searcher, question: str, k: int) -> str:
    try:
        hits = searcher.search(question, k=k).turns
    except Exception:  # a failing index must not stop the agent; the loop can still query
        return ""
    # In time order, like the timelines above them: ranked order put a later turn first, and
    # the small model then read it as the answer to as-of and before-X questions.
    hits = sorted(hits, key=lambda h: (h.time or "", h.graph_id))
    lines = [f"- {h.graph_id} ({(h.time or '')[:10]}) {_value(h.text)}" for h in hits]
    return "Turns:\n" + "\n".join(lines) if lines else ""


def prefetch(
    store: GraphStore,
    question: str,
    searcher: Searcher | None,
    config: AgentConfig,
    times: Sequence[QuestionTime] = (),
) -> str:
    """The fast path's context, at most ``config.max_context_chars`` characters."""
    parts: list[str] = []
    if config.prefetch_entities:
        try:
            views = top_entities(store, question, config.prefetch_entities, searcher)
        except Exception:  # the store failing is reported by the tools, not here
            views = []
        computed = [line for v in views for line in computed_for_question(v, question, times)]
        if computed:
            parts.append("Computed for this question:\n" + "\n".join(f"- {c}" for c in computed))
        parts += [compact_entity(v, config.max_facts, question, times) for v in views]
    if searcher is not None and config.prefetch_turns:
        parts.append(_turns(searcher, question, config.prefetch_turns))
    text = "\n\n".join(p for p in parts if p) or NOTHING
    return text[: config.max_context_chars]


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
