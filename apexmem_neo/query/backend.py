"""What the read-only tools need from a storage backend: the ``QueryBackend`` protocol.

The tools (GraphQuery, SchemaViewer) are backend-neutral: they hand a query to
``QueryBackend.run`` and a ``SchemaInfo`` to the markdown renderer, and never ask which
backend they run on. Each backend enforces its own read-only guard (SQLite: a read-only
connection with an authorizer; Neo4j: EXPLAIN plan type "r" plus a READ transaction) and
reports refusals and failures as ``ToolError``, which the tools turn into markdown.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Final, Literal, Protocol, runtime_checkable

from pydantic import TypeAdapter

from apexmem_neo.errors import ToolError as ToolError

Language = Literal["cypher", "sql"]
LANGUAGES: tuple[Language, ...] = ("cypher", "sql")
Truncation = Literal["rows", "bytes"]
MIN_RESULT_BYTES: Final = 1024
"""The smallest byte cap QueryLimits accepts: room for a few rows of ids and dates."""


@dataclass(frozen=True)
class QueryLimits:
    """Bounds of one GraphQuery call: rows returned, seconds until the answer, characters per
    cell, characters of query text, and bytes of the rows returned (their size as JSON)."""

    max_rows: int = 200
    timeout_s: float = 10.0
    max_cell_chars: int = 200
    max_query_chars: int = 8000
    max_result_bytes: int = 1_000_000

    def __post_init__(self) -> None:
        if (
            self.max_rows < 1
            or self.timeout_s <= 0
            or self.max_cell_chars < 8
            or self.max_query_chars < 1
            or self.max_result_bytes < MIN_RESULT_BYTES
        ):
            raise ValueError(f"invalid query limits: {self}")


@dataclass(frozen=True)
class QueryResult:
    """At most ``max_rows`` rows of plain values; ``truncated`` says more rows existed, and
    ``truncated_by`` which limit stopped them ("rows", or "bytes" for ``max_result_bytes``)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    truncated: bool = False
    translated: str | None = None
    """The query that really ran, when it differs from the one given (SQL through the shim)."""
    translated_language: Language | None = None
    truncated_by: Truncation | None = None

    def model_dump(self, *, mode: Literal["python", "json"] = "python") -> dict[str, Any]:
        """The result as a dict, like a pydantic model's (``mode="json"``: JSON values only,
        so ``json.dumps(result.model_dump(mode="json"))`` works for every public result)."""
        dumped: dict[str, Any] = _RESULT_ADAPTER.dump_python(self, mode=mode)
        return dumped

    def model_dump_json(self) -> str:
        """The result as a JSON object."""
        return _RESULT_ADAPTER.dump_json(self).decode("utf-8")


_RESULT_ADAPTER: Final[TypeAdapter[QueryResult]] = TypeAdapter(QueryResult)


def check_query_size(query: str, limits: QueryLimits) -> None:
    """Refuse a query text longer than ``limits.max_query_chars`` before anything parses it
    (a parser's time and memory grow with the text)."""
    if len(query) > limits.max_query_chars:
        raise ToolError(
            "Query too long",
            f"the query has {len(query)} characters; the limit is {limits.max_query_chars}. "
            "Send a shorter query and pass values as params.",
        )


def collect_rows(
    records: Iterable[tuple[Any, ...]], limits: QueryLimits
) -> tuple[list[tuple[Any, ...]], Truncation | None]:
    """Rows from ``records`` until ``max_rows`` are kept or the next row would pass
    ``max_result_bytes``; the limit that stopped them (None if ``records`` ran out)."""
    rows: list[tuple[Any, ...]] = []
    size = 0
    for row in records:
        if len(rows) == limits.max_rows:
            return rows, "rows"
        size += value_size(row, limits.max_result_bytes - size)
        if size > limits.max_result_bytes:
            return rows, "bytes"
        rows.append(row)
    return rows, None


_END: Final = object()


def value_size(value: Any, budget: int) -> int:
    """About the length of ``value`` as JSON text, counted only until it passes ``budget``:
    a list of millions of numbers costs the walk of its first ``budget`` bytes, no more."""
    size = 0
    pending: list[Iterator[Any]] = [iter((value,))]
    while pending and size <= budget:
        item = next(pending[-1], _END)
        if item is _END:
            pending.pop()
        elif isinstance(item, Mapping):
            size += 2
            pending.append(chain.from_iterable(item.items()))
        elif isinstance(item, list | tuple | set | frozenset):
            size += 2
            pending.append(iter(item))
        else:
            size += _scalar_size(item) + 1
    return size


def _scalar_size(value: Any) -> int:
    if value is None or isinstance(value, bool):
        return 5
    if isinstance(value, str):
        return len(value) + 2
    if isinstance(value, bytes | bytearray | memoryview):
        return 2 * len(value) + 4
    if isinstance(value, int):  # str() of a huge int is slow, and refused past 4300 digits
        return value.bit_length() * 3 // 10 + 2
    return len(str(value))


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
    "MIN_RESULT_BYTES",
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
    "Truncation",
    "check_query_size",
    "collect_rows",
    "value_size",
]
