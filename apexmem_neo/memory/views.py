"""One scope's view of the search layer and of the query backend, for the agent's tools.

Memory hands tools and the agent only these views (and a ``ScopedStore``), never the shared
objects, so every read they make carries the scope.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from apexmem_neo.query.backend import (
    Example,
    Language,
    QueryBackend,
    QueryLimits,
    QueryResult,
    SchemaInfo,
)
from apexmem_neo.search.engine import HybridSearch, SearchResults
from apexmem_neo.search.protocol import SearchFilters


class ScopedSearcher:
    """``HybridSearch`` confined to ``scope``: the scope is added to every search's filters.
    ``prepare`` runs before each search (Memory creates its index, and so loads the embedder,
    only when something searches)."""

    def __init__(
        self, search: HybridSearch, scope: str, prepare: Callable[[], None] | None = None
    ) -> None:
        self.engine = search
        self.scope = scope
        self.prepare = prepare

    def search(
        self, query: str, k: int = 10, filters: SearchFilters | None = None
    ) -> SearchResults:
        if self.prepare is not None:
            self.prepare()
        scoped = (filters or SearchFilters()).model_copy(update={"scope": self.scope})
        return self.engine.search(query, k, scoped)


class ScopedQueryBackend:
    """A ``QueryBackend`` whose every query, and whose schema counts, see ``scope`` only."""

    def __init__(self, backend: Any, scope: str) -> None:
        self.backend = backend
        self.scope = scope

    @property
    def name(self) -> str:
        return str(self.backend.name)

    @property
    def native_language(self) -> Language:
        language: Language = self.backend.native_language
        return language

    def run(
        self, query: str, language: Language, params: Mapping[str, Any], limits: QueryLimits
    ) -> QueryResult:
        result: QueryResult = self.backend.run(query, language, params, limits, scope=self.scope)
        return result

    def schema(self) -> SchemaInfo:
        info: SchemaInfo = self.backend.schema(scope=self.scope)
        return info

    def examples(self) -> Sequence[Example]:
        examples: Sequence[Example] = self.backend.examples()
        return examples


def scoped_backend(backend: QueryBackend, scope: str) -> QueryBackend:
    """``backend`` seen from ``scope`` (typed as the protocol it implements)."""
    view: QueryBackend = ScopedQueryBackend(backend, scope)
    return view
