"""Plain text a model reads, made from the memory's results: what the framework adapters
(LangChain tools, the LlamaIndex memory block) show an agent."""

from __future__ import annotations

from typing import Final

from apexmem_neo.agent import AgentResult
from apexmem_neo.memory.results import EntityHistory
from apexmem_neo.search import SearchResults
from apexmem_neo.search.engine import SearchHit
from apexmem_neo.store.protocol import FactRecord

HIT_CHARS: Final = 300
"""The longest text of one search hit shown."""


def render_search(results: SearchResults) -> str:
    """The hits of each kind, best first, one line each; or why there are none."""
    groups = [
        ("Turns", results.turns),
        ("Entities", results.entities),
        ("Properties", results.properties),
        ("Events", results.events),
    ]
    lines = [f"Results for {results.query!r}:"]
    for title, hits in groups:
        if hits:
            lines += ["", f"{title}:", *(_hit_line(hit) for hit in hits)]
    if results.empty:
        lines.append(results.hint or "Nothing found.")
    return "\n".join(lines)


def _hit_line(hit: SearchHit) -> str:
    """``- (score) [time] who: text``; a turn's text already opens with its speaker."""
    who = f"{hit.speaker}: " if hit.speaker else (f"{hit.title}: " if hit.title else "")
    text = _cut(hit.text, HIT_CHARS)
    if who and text.startswith(who):
        who = ""
    when = f" [{hit.time}]" if hit.time else ""
    return f"- ({hit.score:.2f}){when} {who}{text}"


def render_answer(result: AgentResult) -> str:
    """The answer, then the turns it rests on, quoted."""
    lines = [result.answer or "(no answer)"]
    if result.error:
        lines.append(f"Note: {result.error}")
    quoted = [f'- "{_cut(e.text, HIT_CHARS)}"' for e in result.evidence if e.text]
    if quoted:
        lines += ["", "Evidence:", *quoted]
    return "\n".join(lines)


def render_history(found: EntityHistory) -> str:
    """Each value with the interval it held, oldest first, then the changes."""
    head = f"{found.entity.name} · {found.property}"
    if not found.facts:
        return f"{head}: no facts stored."
    lines = [f"{head}, oldest first:", *(f"- {_fact_line(f)}" for f in found.facts)]
    if found.changes:
        lines += ["", "Changes:"]
        lines += [f"- {c.changed_at}: {c.old_value!r} -> {c.new_value!r}" for c in found.changes]
    return "\n".join(lines)


def render_fact(head: str, fact: FactRecord | None) -> str:
    """``head: value (from .. to ..)``, or that no value is known."""
    if fact is None:
        return f"{head}: no value known."
    return f"{head}: {_fact_line(fact)}"


def _fact_line(fact: FactRecord) -> str:
    value = "no value (ended)" if fact.value is None else repr(fact.value)
    until = f" until {fact.t_to}" if fact.t_to else ""
    return f"{value} from {fact.t_from}{until}"


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
