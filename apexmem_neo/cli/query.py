"""`apexmem query | schema | entity | history | stats`: read the memory without an LLM.

Each command opens the memory for reading (``create=False``): a SQLite file that does not
exist is an error, never a new empty memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Annotated, Literal

import typer
from pydantic import BaseModel
from rich.markup import escape
from rich.table import Table

from apexmem_neo.cli.common import (
    DEFAULT_SCOPE,
    JsonOpt,
    MemoryChoice,
    ScopeOpt,
    console,
    fail,
    print_json,
)
from apexmem_neo.memory import AmbiguousEntityError, EntityHistory, MemoryStats
from apexmem_neo.memory.views import scoped_backend
from apexmem_neo.query.backend import QueryLimits, QueryResult
from apexmem_neo.tools import markdown

CELL_CHARS = QueryLimits().max_cell_chars
LangOpt = Annotated[
    Literal["sql", "cypher"] | None,
    typer.Option("--lang", help="Query language (default: the store's own, sql or cypher)."),
]


def query_json(result: QueryResult) -> dict[str, object]:
    return {
        "columns": list(result.columns),
        "rows": [list(row) for row in result.rows],
        "truncated": result.truncated,
        "translated": result.translated,
    }


@MemoryChoice.options()
def query(
    text: Annotated[str, typer.Argument(help="One read-only query (SELECT or MATCH ... RETURN).")],
    lang: LangOpt = None,
    sql: Annotated[bool, typer.Option("--sql", help="Shorthand for --lang sql.")] = False,
    limit: Annotated[int, typer.Option("--limit", min=1, help="At most this many rows.")] = 200,
    scope: ScopeOpt = DEFAULT_SCOPE,
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    as_json: JsonOpt = False,
) -> None:
    """Run one read-only query (SQL on SQLite, Cypher on Neo4j, unless --lang says otherwise)."""
    if sql and lang == "cypher":
        fail("--sql and --lang cypher contradict each other")
    language: Literal["sql", "cypher"] | None = "sql" if sql else lang
    with choice.open(create=False, with_lm=False) as memory:
        result = memory.query(text, language, scope=scope, limit=limit)
    if as_json:
        print_json(query_json(result))
    else:
        typer.echo(markdown.result(result, CELL_CHARS, limit))


@MemoryChoice.options()
def schema(
    examples: Annotated[bool, typer.Option(help="Also show the temporal query examples.")] = False,
    guide: Annotated[bool, typer.Option(help="Also explain which tool to use when.")] = False,
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    as_json: JsonOpt = False,
    scope: ScopeOpt = DEFAULT_SCOPE,
) -> None:
    """Show the memory's schema (SchemaViewer): tables or labels, relationships, the scope's
    counts."""
    with choice.open(create=False, with_lm=False) as memory:
        if as_json:
            print_json(asdict(scoped_backend(memory.backend, scope).schema()))
            return
        text = memory.schema(examples, guide, scope=scope)
    typer.echo(text)


@MemoryChoice.options()
def entity(
    name: Annotated[str, typer.Argument(help="An entity name or id (or words naming it).")],
    k: Annotated[int, typer.Option(min=1, max=10, help="At most this many entities.")] = 3,
    scope: ScopeOpt = DEFAULT_SCOPE,
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    as_json: JsonOpt = False,
) -> None:
    """Show entities with their anchors and facts, each with the time it held (EntityLookup).

    NAME resolves as every read does (id, exact name, alias, case and punctuation, a first
    name, a close misspelling); a name that fits none is one error line listing the nearest
    known names. With --json, the entity itself (id, name, type, aliases); a name that fits
    several equally well is then an error listing them.
    """
    with choice.open(create=False, with_lm=False) as memory:
        try:
            found = memory.entity(name, scope=scope)  # none at all: one error line
        except AmbiguousEntityError:
            if as_json:
                raise
            found = None  # the lookup shows each of them
        if found is not None and as_json:
            print_json(found.model_dump(mode="json"))
            return
        text = memory.lookup(name, k, scope=scope)
    typer.echo(text)


@MemoryChoice.options()
def history(
    entity_name: Annotated[str, typer.Argument(metavar="ENTITY", help="Entity name or id.")],
    prop: Annotated[str, typer.Argument(metavar="PROPERTY", help="Property, e.g. city.")],
    scope: ScopeOpt = DEFAULT_SCOPE,
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    as_json: JsonOpt = False,
) -> None:
    """Show every fact of (ENTITY, PROPERTY) in time order, and when the value changed.

    ENTITY resolves as for `apexmem entity` (an unknown or ambiguous name is one error line);
    PROPERTY may be any spelling of one of its properties ("favorite restaurant",
    "works_at" for employer); the heading shows the stored name.
    """
    with choice.open(create=False, with_lm=False) as memory:
        found = memory.history(entity_name, prop, scope=scope)
    print_found(found, as_json, lambda: typer.echo(history_markdown(found)))


def print_found(found: BaseModel, as_json: bool, show: Callable[[], None]) -> None:
    """``found`` as one JSON document under --json, else as ``show()`` prints it."""
    if as_json:
        print_json(found.model_dump(mode="json"))
    else:
        show()


def history_markdown(found: EntityHistory) -> str:
    ent = found.entity
    lines = [f"# {ent.name} ({ent.entity_type.value}) `{ent.entity_id}`: {found.property}", ""]
    rows = [(f.value, f.t_from, f.t_to, f.recorded_at, f.fact_id) for f in found.facts]
    head = ("value", "t_from", "t_to", "recorded_at", "fact_id")
    lines.append(markdown.table(head, rows, 120) if rows else "_(no facts)_")
    lines += ["", "## Changes", ""]
    moves = [(c.changed_at, c.old_value, c.new_value) for c in found.changes]
    lines.append(markdown.table(("changed_at", "old", "new"), moves, 120) if moves else "_(none)_")
    return "\n".join(lines)


@MemoryChoice.options()
def stats(
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    as_json: JsonOpt = False,
) -> None:
    """Show what the memory holds and what it runs on (store, search index, embedder, LM)."""
    with choice.open(create=False) as memory:
        found = memory.stats()
    print_found(found, as_json, lambda: console.print(stats_table(found)))


def stats_table(found: MemoryStats) -> Table:
    documents = found.search_documents
    rows = [("store", f"{found.store} ({found.location})")]
    rows += [(f"  {name}", str(n)) for name, n in found.counts.model_dump().items()]
    rows += [
        ("search", found.search or "(none)"),
        ("  documents", "-" if documents is None else str(documents)),
        ("embedder", found.embedder or "(none)"),
        ("lm", found.lm or "(none)"),
    ]
    table = Table("", "", show_header=False, box=None)
    for name, value in rows:
        table.add_row(name, escape(value))
    return table
