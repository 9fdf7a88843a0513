"""``memory_tools``: LangChain tools over one scope of a ``Memory``, for any tool-calling agent
(LangGraph's prebuilt ReAct agent, a LangChain agent, a model's ``bind_tools``).

Five ``StructuredTool``s with typed arguments, each a thin call of one ``Memory`` method whose
result is rendered as short plain text a model reads:

- ``memory_search`` (``Memory.search``): the turns, entities, properties and events that best
  match a query;
- ``memory_ask`` (``Memory.ask``): a question answered by the memory's own agent, with the
  turns it rests on;
- ``memory_history`` (``Memory.history``): every value an entity's property held, oldest first;
- ``memory_current`` (``Memory.current``): its latest value;
- ``memory_as_of`` (``Memory.as_of``): the value it held on a date.

Search is left out on a memory without a search index and ask on one without a language
model, so an agent is never handed a tool that cannot work. A failure the caller can act on
(an unknown entity, a bad date) comes back as the tool's text, not an exception, so the agent
reads it and tries again. Each tool also runs from ``ainvoke`` in a worker thread.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterable
from typing import Any, Final

from langchain_core.tools import StructuredTool, ToolException
from pydantic import BaseModel, Field

from apexmem_neo.agent import AgentResult
from apexmem_neo.errors import ApexMemError
from apexmem_neo.memory.core import Memory
from apexmem_neo.memory.messages import check_scope
from apexmem_neo.memory.results import EntityHistory
from apexmem_neo.search import SearchResults
from apexmem_neo.search.engine import SearchHit
from apexmem_neo.store.protocol import FactRecord

TOOL_NAMES: Final = (
    "memory_search",
    "memory_ask",
    "memory_history",
    "memory_current",
    "memory_as_of",
)
HIT_CHARS: Final = 300
"""The longest text of one search hit a tool shows."""


class SearchArgs(BaseModel):
    query: str = Field(description="What to look for, in words (a name, a topic, a question).")
    k: int = Field(default=5, ge=1, le=50, description="How many results of each kind.")


class AskArgs(BaseModel):
    question: str = Field(description='The question, e.g. "Where does Alice live now?".')
    date: str | None = Field(
        default=None,
        description="The question's own date (ISO, e.g. 2024-07-01) that 'now' and 'last "
        "week' refer to; default today.",
    )


class FactArgs(BaseModel):
    entity: str = Field(description="Who or what: a name as said in conversation, e.g. Alice.")
    property: str = Field(
        description="Which property, in words or snake_case, e.g. 'city' or 'favorite food'."
    )


class AsOfArgs(FactArgs):
    date: str = Field(description="The date asked about (ISO, e.g. 2023-06-01).")


def memory_tools(
    memory: Memory, scope: str, *, names: Iterable[str] | None = None
) -> list[StructuredTool]:
    """LangChain tools reading ``scope`` of ``memory`` (all of ``TOOL_NAMES`` the memory can
    serve, or only ``names``); see the module docstring."""
    check_scope(scope)
    wanted = set(TOOL_NAMES if names is None else names)
    unknown = wanted - set(TOOL_NAMES)
    if unknown:
        raise ValueError(f"unknown memory tools {sorted(unknown)}: choose from {TOOL_NAMES}")
    if memory.search_index is None:
        wanted.discard("memory_search")
    if memory.lm is None:
        wanted.discard("memory_ask")
    built = _builders(memory, scope)
    return [built[name]() for name in TOOL_NAMES if name in wanted]


def _builders(memory: Memory, scope: str) -> dict[str, Callable[[], StructuredTool]]:
    """One tool builder per name, each closing over ``memory`` and ``scope``."""

    def search(query: str, k: int = 5) -> str:
        """Search the memory for turns, entities, properties and events matching a query,
        best first. Use it to find what was said about a topic or a name."""
        return render_search(memory.search(query, scope=scope, k=k))

    def ask(question: str, date: str | None = None) -> str:
        """Answer a question from the memory with its own agent, which searches and queries
        the stored facts over time; returns the answer and the turns it rests on."""
        return render_answer(memory.ask(question, scope=scope, at=date))

    def history(entity: str, property: str) -> str:
        """Every value an entity's property held, oldest first, with when each held and
        when it changed. Use it for 'when did X change?' and 'what was Y before?'."""
        return render_history(memory.history(entity, property, scope=scope))

    def current(entity: str, property: str) -> str:
        """The latest known value of an entity's property and since when it holds."""
        fact = memory.current(entity, property, scope=scope)
        return render_fact(f"{entity} · {property} now", fact)

    def as_of(entity: str, property: str, date: str) -> str:
        """The value an entity's property held on a date (ISO, e.g. 2023-06-01)."""
        fact = memory.as_of(entity, property, date, scope=scope)
        return render_fact(f"{entity} · {property} on {date}", fact)

    table: list[tuple[str, Callable[..., str], type[BaseModel]]] = [
        ("memory_search", search, SearchArgs),
        ("memory_ask", ask, AskArgs),
        ("memory_history", history, FactArgs),
        ("memory_current", current, FactArgs),
        ("memory_as_of", as_of, AsOfArgs),
    ]
    return {name: functools.partial(_tool, name, fn, schema) for name, fn, schema in table}


def _tool(name: str, fn: Callable[..., str], schema: type[BaseModel]) -> StructuredTool:
    """``fn`` as a StructuredTool whose caller errors come back as its text."""
    call = _reported(fn)

    async def in_thread(**kwargs: Any) -> str:
        return await asyncio.to_thread(call, **kwargs)

    return StructuredTool.from_function(
        func=call,
        coroutine=in_thread,
        name=name,
        description=" ".join((fn.__doc__ or name).split()),
        args_schema=schema,
        handle_tool_error=True,
    )


def _reported(fn: Callable[..., str]) -> Callable[..., str]:
    """``fn`` raising ``ToolException`` for a failure the agent can act on (its message)."""

    @functools.wraps(fn)
    def call(**kwargs: Any) -> str:
        try:
            return fn(**kwargs)
        except (ApexMemError, ValueError, LookupError) as exc:
            raise ToolException(str(exc)) from exc

    return call


# ---- rendering ----


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
    who = f"{hit.speaker}: " if hit.speaker else (f"{hit.title}: " if hit.title else "")
    when = f" [{hit.time}]" if hit.time else ""
    return f"- ({hit.score:.2f}){when} {who}{_cut(hit.text, HIT_CHARS)}"


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
