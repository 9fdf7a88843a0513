"""`apexmem index`: build or refresh the search index that `search`, `ask`, `demo` and `mcp`
use (APEXMEM_SEARCH picks the backend: embedded beside a SQLite store, Neo4j-native for a
Neo4j store, or Elasticsearch). Embeddings are cached under APEXMEM_HOME, so re-indexing
costs lookups, not model calls."""

from __future__ import annotations

from typing import Annotated

import typer

from apexmem_neo.cli.common import (
    MemoryChoice,
    console,
)
from apexmem_neo.cli.progress import index_feed, progress_bar

RebuildOpt = Annotated[
    bool,
    typer.Option(
        "--rebuild",
        help="Drop the search index and build it again from the graph (the graph is untouched).",
    ),
]
OptimizeOpt = Annotated[
    bool,
    typer.Option(
        "--optimize/--no-optimize",
        help="After filling an empty index, optimise it for reading (Elasticsearch: force-merge).",
    ),
]


@MemoryChoice.options()
def index(
    choice: MemoryChoice = MemoryChoice.SETTINGS,
    rebuild: RebuildOpt = False,
    optimize: OptimizeOpt = True,
) -> None:
    """Build or refresh the search index of the memory (idempotent; writes keep it current)."""
    with choice.open(create=False, with_lm=False) as memory:
        with progress_bar() as bar:
            count = memory.index(rebuild=rebuild, optimize=optimize, progress=index_feed(bar))
        where = memory.search_location
    console.print(f"indexed {count} documents into {where}", markup=False, soft_wrap=True)
