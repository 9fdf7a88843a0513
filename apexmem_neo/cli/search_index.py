"""`apexmem index`, and the search index that `ask`, `demo` and `mcp` load for the Search tool.

SQLite store: an embedded index (BM25 + cosine in numpy) in a file beside the store
(``apexmem.sqlite`` -> ``apexmem.search.sqlite``). Neo4j store: the Neo4j-native vector and
full-text indexes, namespaced by ``--index-name``. ``APEXMEM_SEARCH=elasticsearch`` puts
either store's index on Elasticsearch (ELASTICSEARCH_URL) instead. Embeddings are cached
under APEXMEM_HOME/cache (or APEXMEM_EMBED_CACHE), so re-indexing costs lookups, not model
calls.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from apexmem_neo.agent.memory_index import index_graph
from apexmem_neo.cli.common import DbOpt, StoreOpt, console, err_console, fail, load_settings
from apexmem_neo.cli.query import open_memory, sqlite_path
from apexmem_neo.errors import ApexMemError
from apexmem_neo.search import HybridSearch
from apexmem_neo.search.embedder import CachedEmbedder, SentenceTransformerEmbedder
from apexmem_neo.search.protocol import SearchError
from apexmem_neo.settings import Settings

DEFAULT_NAMESPACE = "apexmem"
ES_REQUEST_TIMEOUT_S = 120
IndexNameOpt = Annotated[
    str,
    typer.Option(
        "--index-name", help="Neo4j search namespace (label SearchDoc_NAME); unused for sqlite."
    ),
]


def index_path(db: Path | None, settings: Settings) -> Path:
    """The embedded index file beside the SQLite store."""
    return sqlite_path(db, settings).with_suffix(".search.sqlite")


def search_backend(store: str, settings: Settings) -> str:
    """The search backend for ``store``: APEXMEM_SEARCH, where ``auto`` means embedded for a
    SQLite store and Neo4j-native for a Neo4j store."""
    chosen = settings.search_backend
    if chosen == "auto":
        return "embedded" if store == "sqlite" else "neo4j"
    if chosen == "embedded" and store != "sqlite":
        raise ApexMemError(
            "APEXMEM_SEARCH=embedded needs --store sqlite (its file sits beside the store)"
        )
    return chosen


def es_index_name(store: str, db: Path | None, settings: Settings, namespace: str) -> str:
    """The Elasticsearch index of a memory: the namespace, and for a SQLite store a hash of
    its path, so two store files never share an index."""
    if store != "sqlite":
        return f"{namespace.lower()}-neo4j"
    path = str(sqlite_path(db, settings).resolve())
    return f"{namespace.lower()}-{hashlib.sha256(path.encode()).hexdigest()[:12]}"


def where(store: str, db: Path | None, settings: Settings, namespace: str) -> str:
    backend = search_backend(store, settings)
    if backend == "elasticsearch":
        name = es_index_name(store, db, settings, namespace)
        return f"Elasticsearch index {name!r} at {settings.elasticsearch_url}"
    if backend == "embedded":
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
    backend = search_backend(store, settings)
    if backend == "embedded":
        from apexmem_neo.search.backends.embedded import EmbeddedIndex

        index: Any = EmbeddedIndex(index_path(db, settings))
        try:
            yield index
        finally:
            index.close()
        return
    if backend == "elasticsearch":
        try:  # the [es] extra; a one-line error names it when absent
            from elasticsearch import Elasticsearch

            from apexmem_neo.search.backends.elasticsearch import ElasticsearchIndex
        except ImportError as exc:
            raise ApexMemError(
                "the Elasticsearch backend needs the [es] extra: pip install 'apexmem-neo[es]'"
            ) from exc

        url = settings.elasticsearch_url
        client = Elasticsearch(url, request_timeout=ES_REQUEST_TIMEOUT_S)
        try:
            yield ElasticsearchIndex(client, es_index_name(store, db, settings, namespace), url)
        finally:
            client.close()
        return
    from neo4j import GraphDatabase

    from apexmem_neo.search.backends.neo4j_native import Neo4jNativeIndex

    driver = GraphDatabase.driver(settings.neo4j_uri, auth=None)
    try:
        yield Neo4jNativeIndex(driver, namespace=namespace, url=settings.neo4j_uri)
    finally:
        driver.close()


def _open_embedded_file(
    search: HybridSearch, store: str, db: Path | None, settings: Settings
) -> None:
    """An embedded index file that exists has its vector size checked against the model
    before anything asks it for its documents (the file would open by itself on first use,
    but only ``create()`` compares its dimensions with the embedder's); servers need no
    opening."""
    if search_backend(store, settings) == "embedded" and index_path(db, settings).is_file():
        search.create()


def holds_documents(index: Any) -> bool:
    """Whether ``index`` exists and holds documents. Only an embedded index that was never
    opened (no file) reads as empty by error; anything else, such as a search server that is
    down (ServiceUnavailableError), propagates: it never reads as "no index"."""
    try:
        return int(index.count()) > 0
    except SearchError:  # EmbeddedIndex without a file: create() was never called
        return False


@contextmanager
def open_search(
    store: str, db: Path | None, settings: Settings, namespace: str = DEFAULT_NAMESPACE
) -> Iterator[HybridSearch | None]:
    """The store's search (index opened, model loaded lazily), or None when never indexed."""
    embedder = make_embedder(settings)
    with _index(store, db, settings, namespace) as index:
        search = HybridSearch(index, embedder)
        _open_embedded_file(search, store, db, settings)
        found = holds_documents(index)
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
    optimize: bool = True,
) -> int:
    """Index the whole graph of the store (idempotent); returns the number of documents.

    ``rebuild`` drops the index first: the index is derived from the graph, so nothing is
    lost, and an index written by an older version is replaced. When the build filled an
    empty index (a bulk load), the index is optimised for reading before this returns (on
    Elasticsearch a force-merge: minutes per 100k documents; at 100k, p50 31 ms instead of 74,
    benchmarks/search/speed.py --optimize). ``optimize`` False skips it.
    """
    embedder = make_embedder(settings)
    with (
        open_memory(store, db, settings) as (_, backend),
        _index(store, db, settings, namespace) as index,
    ):
        try:
            if rebuild:
                index.drop()
            search = HybridSearch(index, embedder)
            _open_embedded_file(search, store, db, settings)
            bulk_load = not holds_documents(index)  # also: a dead server fails here, early
            count = index_graph(search, backend)
            if optimize and bulk_load and count:
                index.optimize()
            return count
        finally:
            embedder.close()


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


def index(
    store: StoreOpt = "sqlite",
    db: DbOpt = None,
    name: IndexNameOpt = DEFAULT_NAMESPACE,
    rebuild: RebuildOpt = False,
    optimize: OptimizeOpt = True,
) -> None:
    """Build or refresh the search index of the memory (idempotent; `ingest` runs it too)."""
    if store not in ("sqlite", "neo4j"):
        fail(f"--store must be sqlite or neo4j, not {store!r}")
    settings = load_settings()
    try:
        count = build_index(store, db, settings, name, rebuild=rebuild, optimize=optimize)
    except ApexMemError as exc:
        fail(str(exc))
    console.print(f"indexed {count} documents into {where(store, db, settings, name)}")
