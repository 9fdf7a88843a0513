"""``AsyncMemory``: the ``Memory`` API for asyncio applications.

Each method runs the synchronous ``Memory`` method in a worker thread
(``asyncio.to_thread``), so the event loop never blocks on the store, the search index or an
LLM call. Reads may run concurrently; writes take the memory's one write lock.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from apexmem_neo.agent import AgentConfig, AgentResult, MemoryAgent, Mode
from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.memory.core import Memory
from apexmem_neo.memory.forget import ForgetResult
from apexmem_neo.memory.listing import LIST_LIMIT, Listing
from apexmem_neo.memory.messages import Message
from apexmem_neo.memory.results import AddResult, EntityHistory, MemoryStats
from apexmem_neo.memory.transfer import ExportResult, ImportResult, Target
from apexmem_neo.ontology import Entity, Session, Turn
from apexmem_neo.ontology.metadata import MetadataValue
from apexmem_neo.ontology.types import TimeLike
from apexmem_neo.query.backend import Language, QueryResult
from apexmem_neo.search import DocKind, SearchResults
from apexmem_neo.store.protocol import ChangeRecord, FactRecord
from apexmem_neo.tools.result import Tool

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

    async def ingest_turns(self, turns: Sequence[TurnInput], **options: Any) -> AddResult:
        return await _run(self.memory.ingest_turns, turns, **options)

    async def index(self, **options: Any) -> int:
        return await _run(self.memory.index, **options)

    async def search(
        self,
        query: str,
        *,
        scope: str,
        k: int = 10,
        kinds: Iterable[DocKind | str] | None = None,
        metadata: Mapping[str, MetadataValue] | None = None,
    ) -> SearchResults:
        return await _run(
            self.memory.search, query, scope=scope, k=k, kinds=kinds, metadata=metadata
        )

    async def ask(
        self,
        question: str,
        *,
        scope: str,
        at: TimeLike | None = None,
        mode: Mode | None = None,
        config: AgentConfig | None = None,
        language: Language | None = None,
    ) -> AgentResult:
        return await _run(
            self.memory.ask,
            question,
            scope=scope,
            at=at,
            mode=mode,
            config=config,
            language=language,
        )

    async def agent(self, *, scope: str, **options: Any) -> MemoryAgent:
        """The answering agent over ``scope``; its ``ask`` is synchronous (run it in a
        thread, or use ``AsyncMemory.ask``)."""
        return await _run(self.memory.agent, scope=scope, **options)

    async def optimize(self, questions: Iterable[Any], *, scope: str, **options: Any) -> Path:
        return await _run(self.memory.optimize, questions, scope=scope, **options)

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

    @property
    def language(self) -> Language:
        """The store's own query language."""
        return self.memory.language

    async def schema(self, examples: bool = False, guide: bool = False, *, scope: str) -> str:
        return await _run(self.memory.schema, examples, guide, scope=scope)

    async def lookup(self, name: str, k: int = 3, *, scope: str) -> str:
        return await _run(self.memory.lookup, name, k, scope=scope)

    async def tools(self, *, scope: str, names: Iterable[str] | None = None) -> dict[str, Tool]:
        """The agent's tools over ``scope`` (synchronous callables)."""
        return await _run(self.memory.tools, scope=scope, names=names)

    async def scopes(self) -> list[str]:
        return await _run(self.memory.scopes)

    async def sessions(
        self, scope: str, *, after: str | None = None, limit: int = LIST_LIMIT
    ) -> Listing[Session]:
        return await _run(self.memory.sessions, scope, after=after, limit=limit)

    async def turns(
        self,
        scope: str,
        *,
        session: str | None = None,
        metadata: Mapping[str, MetadataValue] | None = None,
        after: str | None = None,
        limit: int = LIST_LIMIT,
    ) -> Listing[Turn]:
        return await _run(
            self.memory.turns, scope, session=session, metadata=metadata, after=after, limit=limit
        )

    async def entities(
        self, scope: str, *, after: str | None = None, limit: int = LIST_LIMIT
    ) -> Listing[Entity]:
        return await _run(self.memory.entities, scope, after=after, limit=limit)

    async def facts(
        self,
        scope: str,
        *,
        entity: str | None = None,
        property: str | None = None,
        after: str | None = None,
        limit: int = LIST_LIMIT,
    ) -> Listing[FactRecord]:
        return await _run(
            self.memory.facts, scope, entity=entity, property=property, after=after, limit=limit
        )

    async def export(self, out: Target, *, scope: str) -> ExportResult:
        return await _run(self.memory.export, out, scope=scope)

    async def import_file(
        self, source: Target, *, scope: str | None = None, index: bool = True
    ) -> ImportResult:
        return await _run(self.memory.import_file, source, scope=scope, index=index)

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
