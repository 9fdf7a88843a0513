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

from apexmem_neo.errors import ApexMemError
from apexmem_neo.integrations.render import (
    render_answer,
    render_fact,
    render_history,
    render_search,
)
from apexmem_neo.memory.core import Memory
from apexmem_neo.memory.messages import check_scope

TOOL_NAMES: Final = (
    "memory_search",
    "memory_ask",
    "memory_history",
    "memory_current",
    "memory_as_of",
)


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
