"""Hybrid search (dense + BM25) over entities, properties, events/evidence and turns.

``HybridSearch`` runs any ``SearchIndex`` (embedded SQLite, Elasticsearch, Neo4j) with any
``Embedder`` under one ``SearchConfig``; see ``apexmem_neo.search.config`` for the presets.
"""

from apexmem_neo.search.config import PRESETS, SearchConfig, preset
from apexmem_neo.search.documents import DocKind, SearchDocument, documents_from_batch
from apexmem_neo.search.engine import HybridSearch, QueryTruncatedWarning, SearchHit, SearchResults
from apexmem_neo.search.protocol import (
    Embedder,
    EmbedderMismatchError,
    EmptyQueryError,
    MissingScopeError,
    SearchError,
    SearchFilters,
    SearchIndex,
    UnscopedIndexError,
)

__all__ = [
    "PRESETS",
    "DocKind",
    "Embedder",
    "EmbedderMismatchError",
    "EmptyQueryError",
    "HybridSearch",
    "MissingScopeError",
    "QueryTruncatedWarning",
    "SearchConfig",
    "SearchDocument",
    "SearchError",
    "SearchFilters",
    "SearchHit",
    "SearchIndex",
    "SearchResults",
    "UnscopedIndexError",
    "documents_from_batch",
    "preset",
]
