"""Export one scope of a memory as JSON Lines of ``GraphBatch``es, and import it back.

The first line is a header naming the format, its version and the scope; every further line
is one ``GraphBatch`` (``model_dump_json``, empty tables left out) holding up to ``CHUNK``
rows of one table, the tables in write order (sessions, turns, entities, properties, evidence,
events, participants, facts), so a batch points only at rows of the lines before it. A facts
batch also carries the properties its facts name (again): without them the batch would derive
bare ones from the facts. Every column is kept, ``recorded_at`` included, and ids are content
hashes, so importing a file into an empty memory gives an equal graph and importing it again
adds nothing.

Rows are read with the store's typed pages (``GraphStore.page``, keyset-paged in each
kind's key order), a page a line, so this module never asks which backend it runs on and
needs no query language. A row added during an export may land in a later line or in none,
but no other row is skipped; only an erase in the scope meanwhile could drop one.

An entity's and a property's id hash the scope, so a file imports only into the scope it
was exported from. Import reads the whole file before it writes anything: a malformed line
is reported with its number and nothing is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from apexmem_neo.errors import TransferError as TransferError
from apexmem_neo.memory.messages import InvalidInputError, check_length, check_scope, check_text
from apexmem_neo.ontology import GraphBatch, Property
from apexmem_neo.search.indexer import index_in_chunks, read_all, scope_documents
from apexmem_neo.store.columns import fact_model
from apexmem_neo.store.pages import FACTS, KINDS, PROPERTIES, Kind
from apexmem_neo.store.protocol import TABLES, FactRecord, GraphStore, StoreError

if TYPE_CHECKING:
    from apexmem_neo.memory.core import Memory

FORMAT: Final = "apexmem-scope"
VERSION: Final = 1
CHUNK: Final = 1000
"""Rows per batch line (a page read)."""
BATCH_FIELDS: Final[dict[str, str]] = {
    "sessions": "sessions",
    "turns": "turns",
    "entities": "entities",
    "properties": "properties",
    "evidence": "evidence",
    "events": "events",
    "event_participants": "participants",
    "facts": "facts",
}
"""The ``GraphBatch`` field that holds each table's rows."""

Target = str | Path | TextIO


class Header(BaseModel):
    """The first line of an export."""

    model_config = ConfigDict(extra="forbid")

    format: str = FORMAT
    version: int = VERSION
    scope: str

    @field_validator("scope")
    @classmethod
    def _scope(cls, scope: str) -> str:
        return check_scope(scope)


def _zeros() -> dict[str, int]:
    return dict.fromkeys(TABLES, 0)


class ExportResult(BaseModel):
    """What ``export_scope`` wrote: batch lines and rows per table."""

    scope: str
    path: str | None = None
    batches: int = 0
    rows: dict[str, int] = Field(default_factory=_zeros)


class ImportResult(BaseModel):
    """What ``import_scope`` read (``rows`` per table), what of it was new to the memory
    (``added``: 0 everywhere on a second import) and the search documents it wrote."""

    scope: str
    batches: int = 0
    rows: dict[str, int] = Field(default_factory=_zeros)
    added: dict[str, int] = Field(default_factory=_zeros)
    indexed: int = 0


# ---- export ----


def export_scope(memory: Memory, out: Target, scope: str) -> ExportResult:
    """Write every row of ``scope`` to ``out`` (a path or an open text file) as JSON Lines.

    A path is written beside itself first and renamed when complete, so a failed export
    never leaves a truncated file under the name asked for.
    """
    check_scope(scope)
    if not isinstance(out, str | Path):
        return _write_export(memory, out, scope)
    path = Path(out)
    part = path.with_name(path.name + ".part")
    try:
        with part.open("w", encoding="utf-8") as file:
            result = _write_export(memory, file, scope)
        part.replace(path)
    finally:
        part.unlink(missing_ok=True)
    result.path = str(path)
    return result


def _write_export(memory: Memory, out: TextIO, scope: str) -> ExportResult:
    store = memory.store
    out.write(Header(scope=scope).model_dump_json() + "\n")
    result = ExportResult(scope=scope)
    properties = {p.name: p for p in read_all(store, PROPERTIES, scope)}
    seen: set[str] = set()
    for kind in KINDS:
        for items in _pages(store, kind, scope):
            batch = _batch(kind, items, scope, properties)
            empty = {field for field in BATCH_FIELDS.values() if not getattr(batch, field)}
            out.write(batch.model_dump_json(exclude=empty | {"recorded_at"}) + "\n")
            _tally(result, batch, seen)
    return result


def _tally(result: ExportResult | ImportResult, batch: GraphBatch, seen: set[str]) -> None:
    """Count ``batch`` in ``result``: a property once however many facts batches carry it."""
    result.batches += 1
    for table, field in BATCH_FIELDS.items():
        if table != "properties":
            result.rows[table] += len(getattr(batch, field))
    new = {p.property_id for p in batch.properties} - seen
    seen |= new
    result.rows["properties"] += len(new)


def _pages(store: GraphStore, kind: Kind[Any], scope: str) -> Iterator[list[Any]]:
    """The items of ``kind`` in ``scope``, a page of ``CHUNK`` at a time (none if empty)."""
    after: str | None = None
    while True:
        page = store.page(kind, scope=scope, after=after, limit=CHUNK)
        if page.items:
            yield page.items
        if page.next is None:
            return
        after = page.next


def _batch(
    kind: Kind[Any], items: list[Any], scope: str, properties: Mapping[str, Property]
) -> GraphBatch:
    """One line's batch: ``items`` of one kind; facts with the properties they name."""
    if kind is not FACTS:
        return GraphBatch(scope=scope, **{BATCH_FIELDS[kind.table]: items})
    facts: list[FactRecord] = items
    named = sorted({fact.property for fact in facts})
    return GraphBatch(
        scope=scope,
        facts=[fact_model(fact) for fact in facts],
        properties=[properties[name] for name in named if name in properties],
    )


# ---- import ----


def import_scope(
    memory: Memory, source: Target, scope: str | None = None, *, index: bool = True
) -> ImportResult:
    """Write an export back into its scope (``scope``, when given, must be that scope) and,
    with ``index`` and a search index, index the scope for search.

    Every line is validated before the first write; a line the store refuses (it points at
    rows that are neither in the file nor in the memory) stops the import there, with the
    lines before it stored. Rows already in memory are left as they are.
    """
    if scope is not None:
        check_scope(scope)
    name, lines = _line_source(source)
    header, batches = _read_export(lines(), name, memory.max_turn_chars)
    _check_target(header, scope, name)
    sum(1 for _ in batches)  # validates every line before anything is written
    before = scope_counts(memory.store, header.scope)
    result, seen = ImportResult(scope=header.scope), set[str]()
    for number, batch in _read_export(lines(), name, memory.max_turn_chars)[1]:
        _write(memory, batch, number, name)
        _tally(result, batch, seen)
    after = scope_counts(memory.store, header.scope)
    result.added = {table: after[table] - before[table] for table in TABLES}
    if index and memory.search_index is not None and any(after.values()):
        memory.search_index.create()
        docs = scope_documents(memory.store, header.scope)
        result.indexed = index_in_chunks(memory.search_index, docs)
    return result


def scope_counts(store: GraphStore, scope: str) -> dict[str, int]:
    """Rows per table in ``scope``."""
    counts = store.counts(scope=scope)
    return {table: getattr(counts, table) for table in TABLES}


def _line_source(source: Target) -> tuple[str, Callable[[], Iterator[str]]]:
    """A name for messages and a way to read the lines again (an open file is read once)."""
    if isinstance(source, str | Path):
        path = Path(source)

        def reopen() -> Iterator[str]:
            with path.open(encoding="utf-8") as file:
                yield from file

        return str(path), reopen
    lines = source.readlines()
    return str(getattr(source, "name", "input")), lambda: iter(lines)


def _read_export(
    lines: Iterable[str], name: str, max_chars: int
) -> tuple[Header, Iterator[tuple[int, GraphBatch]]]:
    """The header, then the batches with their line numbers, each checked as it is read
    (turns of at most ``max_chars`` characters, as every entry that stores turns checks)."""
    numbered = ((n, line) for n, line in enumerate(lines, 1) if line.strip())
    first = next(numbered, None)
    if first is None:
        raise TransferError(f"{name}: empty; expected an apexmem export ({FORMAT!r} header)")
    header = _header(first[1], f"{name}: line {first[0]}")
    batches = (
        (n, _batch_line(line, f"{name}: line {n}", header.scope, max_chars)) for n, line in numbered
    )
    return header, batches


def _header(line: str, where: str) -> Header:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise TransferError(f"{where}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TransferError(
            f'{where}: not an apexmem export: the first line must be its header {{"format": '
            f'"{FORMAT}", "version": {VERSION}, "scope": ...}}'
        )
    if data.get("version") != VERSION:
        raise TransferError(
            f"{where}: export format version {data.get('version')!r}; this apexmem reads "
            f"version {VERSION}"
        )
    try:
        return Header.model_validate(data)
    except ValidationError as exc:
        raise TransferError(f"{where}: bad header: {_first_problem(exc)}") from None


def _batch_line(line: str, where: str, scope: str, max_chars: int) -> GraphBatch:
    try:
        batch = GraphBatch.model_validate_json(line)
    except ValidationError as exc:
        problem = _first_problem(exc)
        if exc.errors()[0]["type"] == "json_invalid":
            raise TransferError(f"{where}: not JSON ({problem})") from None
        raise TransferError(f"{where}: not a valid graph batch: {problem}") from None
    if batch.scope != scope:
        raise TransferError(
            f"{where}: a batch of scope {batch.scope!r} in an export of scope {scope!r}"
        )
    for turn in batch.turns:
        try:
            check_text(turn.speaker, f"turn {turn.turn_id}: speaker")
            check_text(turn.text, f"turn {turn.turn_id}: text")
            check_length(turn.text, max_chars, f"turn {turn.turn_id}: text")
        except InvalidInputError as exc:
            raise TransferError(f"{where}: {exc}") from None
    return batch


def _first_problem(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where + ': ' if where else ''}{first['msg']}{more}"


def _check_target(header: Header, scope: str | None, name: str) -> None:
    if scope is not None and check_scope(scope) != header.scope:
        raise TransferError(
            f"{name} holds scope {header.scope!r} and imports only into it, not into "
            f"{scope!r} (entity and property ids hash the scope)"
        )


def _write(memory: Memory, batch: GraphBatch, number: int, name: str) -> None:
    try:
        memory.store.write(batch)
    except StoreError as exc:
        raise TransferError(
            f"{name}: line {number}: {exc}; the lines before it are stored (importing again "
            "adds only what is missing)"
        ) from exc
