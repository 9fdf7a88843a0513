"""`apexmem index`, and the search index that `ask`, `demo` and `mcp` load for the Search tool.

SQLite store: an embedded index (BM25 + cosine in numpy) in a file beside the store
(``apexmem.sqlite`` -> ``apexmem.search.sqlite``). Neo4j store: the Neo4j-native vector and
full-text indexes, namespaced by ``--index-name``. Embeddings are cached under
APEXMEM_HOME/cache (or APEXMEM_EMBED_CACHE), so re-indexing costs lookups, not model calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from apexmem_neo.agent.memory_index import index_graph
from apexmem_neo.cli.common import DbOpt, StoreOpt, console, err_console, fail, load_settings
from apexmem_neo.cli.query import open_memory, sqlite_path
from apexmem_neo.search import HybridSearch
from apexmem_neo.search.embedder import CachedEmbedder, SentenceTransformerEmbedder
from apexmem_neo.settings import Settings

DEFAULT_NAMESPACE = "apexmem"
IndexNameOpt = Annotated[
    str,
    typer.Option(
        "--index-name", help="Neo4j search namespace (label SearchDoc_NAME); unused for sqlite."
    ),
]


def index_path(db: Path | None, settings: Settings) -> Path:
    """The embedded index file beside the SQLite store."""
    return sqlite_path(db, settings).with_suffix(".search.sqlite")


def where(store: str, db: Path | None, settings: Settings, namespace: str) -> str:
    if store == "sqlite":
        return str(index_path(db, settings))
    return f"Neo4j namespace {namespace!r} at {settings.neo4j_uri}"


def make_embedder(settings: Settings, model: str | None = None) -> CachedEmbedder:
    """The settings' model (or ``model``), unpacked under their models dir, behind their cache."""
    return CachedEmbedder(
        SentenceTransformerEmbedder(model or settings.embed_model, models_dir=settings.models_dir),
        settings.embed_cache,
    )


@contextmanager
def _index(store: str, db: Path | None, settings: Settings, namespace: str) -> Iterator[Any]:
    if store == "sqlite":
        from apexmem_neo.search.backends.embedded import EmbeddedIndex

        index: Any = EmbeddedIndex(index_path(db, settings))
        try:
            yield index
        finally:
            index.close()
        return
    from neo4j import GraphDatabase

    from apexmem_neo.search.backends.neo4j_native import Neo4jNativeIndex

    driver = GraphDatabase.driver(settings.neo4j_uri, auth=None)
    try:
        yield Neo4jNativeIndex(driver, namespace=namespace, url=settings.neo4j_uri)
    finally:
        driver.close()


@contextmanager
def open_search(
    store: str, db: Path | None, settings: Settings, namespace: str = DEFAULT_NAMESPACE
) -> Iterator[HybridSearch | None]:
    """The store's search (index opened, model loaded lazily), or None when never indexed."""
    embedder = make_embedder(settings)
    with _index(store, db, settings, namespace) as index:
        search = HybridSearch(index, embedder)
        if store == "sqlite" and index_path(db, settings).is_file():
            search.create()  # opens the file; checks the vector size against the model
        try:
            found = index.count() > 0
        except Exception:  # no tables / labels yet: nothing indexed
            found = False
        try:
            yield search if found else None
        finally:
            embedder.close()


def warn_missing(store: str, db: Path | None, settings: Settings, namespace: str) -> None:
    """Say loudly that Search is off, and how to turn it on."""
    store_args = "" if store == "sqlite" else f" --store neo4j --index-name {namespace}"
    db_arg = f" --db {db}" if db is not None and store == "sqlite" else ""
    err_console.print(
        f"[bold yellow]warning:[/] no search index for this store "
        f"({where(store, db, settings, namespace)}): the Search tool is off. "
        f"Build it with `apexmem index{store_args}{db_arg}`.",
        highlight=False,
        soft_wrap=True,
    )


def build_index(
    store: str,
    db: Path | None,
    settings: Settings,
    namespace: str = DEFAULT_NAMESPACE,
    rebuild: bool = False,
) -> int:
    """Index the whole graph of the store (idempotent); returns the number of documents.

    ``rebuild`` drops the index first: the index is derived from the graph, so nothing is
    lost, and an index written by an older version is replaced.
    """
    embedder = make_embedder(settings)
    with (
        open_memory(store, db, settings) as (_, backend),
        _index(store, db, settings, namespace) as index,
    ):
        try:
            if rebuild:
                index.drop()
            return index_graph(HybridSearch(index, embedder), backend)
        finally:
            embedder.close()


RebuildOpt = Annotated[
    bool,
    typer.Option(
        "--rebuild",
        help="Drop the search index and build it again from the graph (the graph is untouched).",
    ),
]


def index(
    store: StoreOpt = "sqlite",
    db: DbOpt = None,
    name: IndexNameOpt = DEFAULT_NAMESPACE,
    rebuild: RebuildOpt = False,
) -> None:
    """Build or refresh the search index of the memory (idempotent; `ingest` runs it too)."""
    if store not in ("sqlite", "neo4j"):
        fail(f"--store must be sqlite or neo4j, not {store!r}")
    settings = load_settings()
    count = build_index(store, db, settings, name, rebuild=rebuild)
    console.print(f"indexed {count} documents into {where(store, db, settings, name)}")
