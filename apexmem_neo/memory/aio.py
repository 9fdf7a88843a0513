"""``AsyncMemory``: the ``Memory`` API for asyncio applications.

Each method runs the synchronous ``Memory`` method in a worker thread
(``asyncio.to_thread``), so the event loop never blocks on the store, the search index or an
LLM call; it takes that method's parameters and carries its docstring. Reads may run
concurrently; writes take the memory's one write lock.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine, Iterable
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, Self, TypeVar

from apexmem_neo.agent import MemoryAgent
from apexmem_neo.memory.core import Memory
from apexmem_neo.query.backend import Language
from apexmem_neo.tools.result import Tool

P = ParamSpec("P")
T = TypeVar("T")


async def _run(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    return await asyncio.to_thread(functools.partial(call, *args, **kwargs))


def _in_thread(
    method: Callable[Concatenate[Memory, P], T],
) -> Callable[Concatenate[AsyncMemory, P], Coroutine[Any, Any, T]]:
    """``Memory.method`` as a coroutine method of ``AsyncMemory``, run in a worker thread:
    the same parameters, types and docstring, so the two APIs cannot drift apart."""

    @functools.wraps(method)
    async def in_thread(self: AsyncMemory, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await asyncio.to_thread(method, self.memory, *args, **kwargs)

    return in_thread


def _opened_in_thread(
    factory: Callable[P, Memory],
) -> classmethod[AsyncMemory, P, Coroutine[Any, Any, AsyncMemory]]:
    """The ``Memory`` factory ``factory`` (a bound classmethod) as a classmethod of
    ``AsyncMemory`` that opens the memory in a worker thread and wraps it: the same
    parameters, types and docstring, as ``_in_thread`` gives the methods."""

    async def opened(cls: type[AsyncMemory], /, *args: P.args, **kwargs: P.kwargs) -> AsyncMemory:
        return cls(await asyncio.to_thread(factory, *args, **kwargs))

    # wrap the function under the classmethod, so that binding drops its ``cls`` alone
    functools.update_wrapper(opened, getattr(factory, "__func__", factory))
    return classmethod(opened)


class AsyncMemory:
    """An asyncio facade over one ``Memory`` (``AsyncMemory(memory)`` or a factory)."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    sqlite = _opened_in_thread(Memory.sqlite)
    neo4j = _opened_in_thread(Memory.neo4j)
    from_settings = _opened_in_thread(Memory.from_settings)

    add = _in_thread(Memory.add)
    reserve_turns = _in_thread(Memory.reserve_turns)
    ingest_file = _in_thread(Memory.ingest_file)
    ingest_turns = _in_thread(Memory.ingest_turns)
    index = _in_thread(Memory.index)
    search = _in_thread(Memory.search)
    ask = _in_thread(Memory.ask)

    async def agent(self, *, scope: str, **options: Any) -> MemoryAgent:
        """The answering agent over ``scope``; its ``ask`` is synchronous (run it in a
        thread, or use ``AsyncMemory.ask``)."""
        return await _run(self.memory.agent, scope=scope, **options)

    optimize = _in_thread(Memory.optimize)
    entity = _in_thread(Memory.entity)
    history = _in_thread(Memory.history)
    as_of = _in_thread(Memory.as_of)
    current = _in_thread(Memory.current)
    changes = _in_thread(Memory.changes)
    before = _in_thread(Memory.before)
    query = _in_thread(Memory.query)

    @property
    def language(self) -> Language:
        """The store's own query language."""
        return self.memory.language

    schema = _in_thread(Memory.schema)
    lookup = _in_thread(Memory.lookup)

    async def tools(self, *, scope: str, names: Iterable[str] | None = None) -> dict[str, Tool]:
        """The agent's tools over ``scope`` (synchronous callables)."""
        return await _run(self.memory.tools, scope=scope, names=names)

    scopes = _in_thread(Memory.scopes)
    sessions = _in_thread(Memory.sessions)
    turns = _in_thread(Memory.turns)
    entities = _in_thread(Memory.entities)
    facts = _in_thread(Memory.facts)
    export = _in_thread(Memory.export)
    import_file = _in_thread(Memory.import_file)
    forget = _in_thread(Memory.forget)
    stats = _in_thread(Memory.stats)
    close = _in_thread(Memory.close)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
