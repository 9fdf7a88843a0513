"""`apexmem export | import`: one scope of a memory as a JSON Lines file of graph batches, and
back (see ``apexmem_neo.memory.transfer``). A file exported from SQLite imports into Neo4j
and the other way round; it imports only into the scope it was exported from."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from apexmem_neo.cli.common import (
    DEFAULT_SCOPE,
    JsonOpt,
    MemoryChoice,
    ScopeOpt,
    fail,
    print_json,
    print_plain,
    warn,
)


@MemoryChoice.options()
def export(
    out: Annotated[Path, typer.Argument(help="The JSON Lines file to write (replaced whole).")],
    scope: ScopeOpt = DEFAULT_SCOPE,
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    as_json: JsonOpt = False,
) -> None:
    """Export one scope (every session, turn, entity, fact...) as JSON Lines."""
    if not out.parent.is_dir():
        fail(f"{out.parent}: no such directory")
    with choice.open(create=False, with_lm=False) as memory:
        result = memory.export(out, scope=scope)
    if as_json:
        print_json(result.model_dump())
        return
    rows = sum(result.rows.values())
    if not rows:
        warn(f"scope {scope!r} holds nothing: the file has only its header")
    print_plain(f"exported {rows} rows of scope {scope!r} in {result.batches} batches to {out}")


@MemoryChoice.options()
def import_(
    source: Annotated[Path, typer.Argument(help="A file written by `apexmem export`.")],
    scope: Annotated[
        str | None,
        typer.Option("--scope", help="The scope to import into: the file's own (the default)."),
    ] = None,
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    search_index: Annotated[
        bool,
        typer.Option(
            "--index/--no-index",
            help="Index the scope for search (without: run `apexmem index` afterwards).",
        ),
    ] = True,
    as_json: JsonOpt = False,
) -> None:
    """Import an exported scope (idempotent: rows already in memory are kept as they are)."""
    if not source.is_file():
        fail(f"{source}: no such file")
    with choice.open(create=True, with_lm=False) as memory:
        result = memory.import_file(source, scope=scope, index=search_index)
        where = memory.search_location or "(no search index)"
    if as_json:
        print_json(result.model_dump())
        return
    print_plain(
        f"imported {sum(result.rows.values())} rows of scope {result.scope!r} in "
        f"{result.batches} batches: {sum(result.added.values())} new"
    )
    if search_index:
        print_plain(f"search index: {result.indexed} documents written to {where}")
