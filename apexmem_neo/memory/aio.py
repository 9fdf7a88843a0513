"""``AsyncMemory``: the ``Memory`` API for asyncio applications.

Each method runs the synchronous ``Memory`` method in a worker thread
(``asyncio.to_thread``), so the event loop never blocks on the store, the search index or an
LLM call. Reads may run concurrently; writes take the memory's one write lock.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from apexmem_neo.agent import AgentResult, Mode
from apexmem_neo.memory.core import Memory
from apexmem_neo.memory.forget import ForgetResult
from apexmem_neo.memory.messages import Message
from apexmem_neo.memory.results import AddResult, EntityHistory, MemoryStats
from apexmem_neo.ontology import Entity
from apexmem_neo.ontology.types import TimeLike
from apexmem_neo.query.backend import Language, QueryResult
from apexmem_neo.search import DocKind, SearchResults
from apexmem_neo.store.protocol import ChangeRecord, FactRecord

T = TypeVar("T")


async def _run(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    return await asyncio.to_thread(functools.partial(call, *args, **kwargs))


class AsyncMemory:
    """An asyncio facade over one ``Memory`` (``AsyncMemory(memory)`` or a factory)."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    @classmethod
    async def sqlite(cls, path: str | Path | None = None, **options: Any) -> Self:
        return cls(await _run(Memory.sqlite, path, **options))

    @classmethod
    async def neo4j(cls, uri_or_driver: Any = "bolt://127.0.0.1:7687", **options: Any) -> Self:
        return cls(await _run(Memory.neo4j, uri_or_driver, **options))

    @classmethod
    async def from_settings(cls, settings: Any = None, **overrides: Any) -> Self:
        return cls(await _run(Memory.from_settings, settings, **overrides))

    async def add(
        self,
        messages: Sequence[Message] | Message,
        *,
        scope: str,
        session: str | None = None,
        at: TimeLike | None = None,
        extract: bool = True,
    ) -> AddResult:
        return await _run(
            self.memory.add, messages, scope=scope, session=session, at=at, extract=extract
        )

    async def ingest_file(self, path: str | Path, **options: Any) -> AddResult:
        return await _run(self.memory.ingest_file, path, **options)

    async def index(self, **options: Any) -> int:
        return await _run(self.memory.index, **options)

    async def search(
        self,
        query: str,
        *,
        scope: str,
        k: int = 10,
        kinds: Iterable[DocKind | str] | None = None,
    ) -> SearchResults:
        return await _run(self.memory.search, query, scope=scope, k=k, kinds=kinds)

    async def ask(
        self,
        question: str,
        *,
        scope: str,
        at: TimeLike | None = None,
        mode: Mode | None = None,
    ) -> AgentResult:
        return await _run(self.memory.ask, question, scope=scope, at=at, mode=mode)

    async def entity(self, name: str, *, scope: str) -> Entity:
        return await _run(self.memory.entity, name, scope=scope)

    async def history(self, entity: str, property: str, *, scope: str) -> EntityHistory:
        return await _run(self.memory.history, entity, property, scope=scope)

    async def as_of(
        self, entity: str, property: str, at: TimeLike, *, scope: str
    ) -> FactRecord | None:
        return await _run(self.memory.as_of, entity, property, at, scope=scope)

    async def current(self, entity: str, property: str, *, scope: str) -> FactRecord | None:
        return await _run(self.memory.current, entity, property, scope=scope)

    async def changes(self, entity: str, property: str, *, scope: str) -> list[ChangeRecord]:
        return await _run(self.memory.changes, entity, property, scope=scope)

    async def before(
        self, entity: str, property: str, reference: TimeLike, *, scope: str
    ) -> FactRecord | None:
        return await _run(self.memory.before, entity, property, reference, scope=scope)

    async def query(
        self, text: str, language: Language | None = None, *, scope: str, **options: Any
    ) -> QueryResult:
        return await _run(self.memory.query, text, language, scope=scope, **options)

    async def forget(
        self, *, scope: str, session: str | None = None, entity: str | None = None
    ) -> ForgetResult:
        return await _run(self.memory.forget, scope=scope, session=session, entity=entity)

    async def stats(self) -> MemoryStats:
        return await _run(self.memory.stats)

    async def close(self) -> None:
        await _run(self.memory.close)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
