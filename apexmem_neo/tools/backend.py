"""What the read-only tools need from a storage backend: the ``QueryBackend`` protocol.

The tools (GraphQuery, SchemaViewer) are backend-neutral: they hand a query to
``QueryBackend.run`` and a ``SchemaInfo`` to the markdown renderer, and never ask which
backend they run on. Each backend enforces its own read-only guard (SQLite: a read-only
connection with an authorizer; Neo4j: EXPLAIN plan type "r" plus a READ transaction) and
reports refusals and failures as ``ToolError``, which the tools turn into markdown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from apexmem_neo.errors import ApexMemError

Language = Literal["cypher", "sql"]
LANGUAGES: tuple[Language, ...] = ("cypher", "sql")


@dataclass(frozen=True)
class QueryLimits:
    """Bounds of one GraphQuery call: rows returned, seconds of execution, characters per cell."""

    max_rows: int = 200
    timeout_s: float = 10.0
    max_cell_chars: int = 200

    def __post_init__(self) -> None:
        if self.max_rows < 1 or self.timeout_s <= 0 or self.max_cell_chars < 8:
            raise ValueError(f"invalid query limits: {self}")


class ToolError(ApexMemError):
    """A refused or failed query, told to the agent as text it can act on.

    ``title`` names the problem (shown after "Error:"), ``detail`` explains it and
    ``suggestion`` (optional) shows the form to use instead, e.g. a Cypher query.
    """

    def __init__(self, title: str, detail: str, suggestion: str | None = None) -> None:
        self.title = title
        self.detail = detail
        self.suggestion = suggestion
        super().__init__(f"{title}: {detail}")


@dataclass(frozen=True)
class QueryResult:
    """At most ``max_rows`` rows of plain values; ``truncated`` says more rows existed."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    truncated: bool = False
    translated: str | None = None
    """The query that really ran, when it differs from the one given (SQL through the shim)."""
    translated_language: Language | None = None


@dataclass(frozen=True)
class ColumnInfo:
    name: str
    type: str
    nullable: bool


@dataclass(frozen=True)
class TableInfo:
    """A table (SQLite) or a label / relationship type (Neo4j) with its columns and row count."""

    name: str
    kind: Literal["table", "node label", "relationship"]
    sql_table: str
    columns: tuple[ColumnInfo, ...]
    primary_key: tuple[str, ...]
    count: int | None


@dataclass(frozen=True)
class RelationInfo:
    """A join (SQLite foreign key) or a relationship pattern (Neo4j) and what it means."""

    pattern: str
    meaning: str


@dataclass(frozen=True)
class IndexInfo:
    name: str
    target: str
    kind: str


@dataclass(frozen=True)
class Example:
    """A canonical query: what it answers, the text, and the parameters it takes."""

    title: str
    query: str
    params: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SchemaInfo:
    backend: str
    language: Language
    tables: tuple[TableInfo, ...]
    relations: tuple[RelationInfo, ...]
    indexes: tuple[IndexInfo, ...]
    notes: tuple[str, ...] = ()


@runtime_checkable
class QueryBackend(Protocol):
    """A read-only query endpoint over the memory graph (one per storage backend)."""

    @property
    def name(self) -> str:
        """Human-readable backend name, e.g. "SQLite" or "Neo4j"."""
        ...

    @property
    def native_language(self) -> Language:
        """The language the backend runs without translation."""
        ...

    def run(
        self,
        query: str,
        language: Language,
        params: Mapping[str, Any],
        limits: QueryLimits,
    ) -> QueryResult:
        """Run ``query`` read-only within ``limits``; raise ``ToolError`` if refused or failed."""
        ...

    def schema(self) -> SchemaInfo:
        """Tables / labels, relationships, columns with types, indexes and row counts."""
        ...

    def examples(self) -> Sequence[Example]:
        """The canonical temporal queries in ``native_language``."""
        ...


__all__ = [
    "LANGUAGES",
    "ColumnInfo",
    "Example",
    "IndexInfo",
    "Language",
    "QueryBackend",
    "QueryLimits",
    "QueryResult",
    "RelationInfo",
    "SchemaInfo",
    "TableInfo",
    "ToolError",
]
