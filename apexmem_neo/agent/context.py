"""The fast path's prefetch: the question's top entities with their timelines, and turns.

No LLM here: candidates come from search (when there is one) and name matching, exactly as
EntityLookup finds them; the text is compact so a small local model can read it quickly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apexmem_neo.agent.models import AgentConfig, EvidenceItem
from apexmem_neo.store.protocol import GraphStore, compute_changes
from apexmem_neo.tools.backend import QueryBackend, QueryLimits
from apexmem_neo.tools.entity_lookup import EntityView, Searcher, top_entities

NOTHING = "(nothing found in memory for this question)"


def _value(value: Any) -> str:
    return str(value).replace("\n", " ")[:120]


def compact_entity(view: EntityView, max_facts: int) -> str:
    """Entity header, facts with intervals and turn ids (newest last), changes, latest values."""
    e = view.entity
    anchors = view.anchors()
    last = anchors[-1][:10] if anchors else "none"
    lines = [f"Entity {e.name} ({e.entity_type.value}), id {e.entity_id}, last_anchor {last}"]
    facts = view.facts[-max_facts:]
    if facts:
        lines.append("facts (property = value [t_from .. t_to] turn):")
    for f in facts:
        until = f.t_to[:10] if f.t_to else "open"
        turn = view.turn_of(f) or "-"
        lines.append(f"- {f.property} = {_value(f.value)} [{f.t_from[:10]} .. {until}] {turn}")
    changes = [
        f"{c.property}: {_value(c.old_value)} -> {_value(c.new_value)} on {c.changed_at[:10]}"
        for prop in sorted({f.property for f in view.facts})
        for c in compute_changes([f for f in view.facts if f.property == prop])
    ]
    if changes:
        lines.append("changes: " + "; ".join(changes[-max_facts:]))
    latest = [f"{f.property} = {_value(f.value)} (since {f.t_from[:10]})" for f in view.latest()]
    if latest:
        lines.append("latest: " + "; ".join(latest))
    return "\n".join(lines)


def _turns(searcher: Searcher, question: str, k: int) -> str:
    try:
        hits = searcher.search(question, k=k).turns
    except Exception:  # a failing index must not stop the agent; the loop can still query
        return ""
    lines = [f"- {h.graph_id} ({(h.time or '')[:10]}) {_value(h.text)}" for h in hits]
    return "Turns:\n" + "\n".join(lines) if lines else ""


def prefetch(
    store: GraphStore, question: str, searcher: Searcher | None, config: AgentConfig
) -> str:
    """The fast path's context, at most ``config.max_context_chars`` characters."""
    parts: list[str] = []
    if config.prefetch_entities:
        try:
            views = top_entities(store, question, config.prefetch_entities, searcher)
        except Exception:  # the store failing is reported by the tools, not here
            views = []
        parts += [compact_entity(v, config.max_facts) for v in views]
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
