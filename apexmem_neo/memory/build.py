"""The factories behind ``Memory.sqlite``, ``Memory.neo4j`` and ``Memory.from_settings``.

They are the only code that wires a store, its query backend, the checkpoint, a search index,
an embedder and an LM together, from the store's address and one ``MemoryConfig``
(``open_from_settings`` builds that config from the settings). Opening does the I/O a memory
needs to be usable (schema, checkpoint); models load lazily, on first use.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apexmem_neo.agent.models import AgentConfig, max_iters_for
from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.errors import ApexMemError, ServiceUnavailableError
from apexmem_neo.errors import StoreNotFoundError as StoreNotFoundError
from apexmem_neo.llm import make_lm, quiet_litellm
from apexmem_neo.llm.failures import is_local_address, unreachable
from apexmem_neo.memory.config import MemoryConfig, SearchBackend
from apexmem_neo.search import HybridSearch
from apexmem_neo.search.protocol import Embedder, SearchIndex
from apexmem_neo.settings import (
    LOCAL_LM,
    LOCAL_LM_API_BASE,
    Settings,
    default_home,
    default_models_dir,
)

if TYPE_CHECKING:
    from apexmem_neo.memory.core import Memory

DEFAULT_ES_URL = "http://127.0.0.1:9200"
ES_REQUEST_TIMEOUT_S = 120


def open_sqlite(
    cls: type[Memory],
    path: str | Path | None = None,
    config: MemoryConfig | None = None,
    *,
    create: bool = True,
) -> Memory:
    """A memory in the SQLite file ``path`` (default ``HOME/data/apexmem.sqlite``, HOME being
    ``config.home`` or ``~/.apexmem``), opened as ``config`` says. ``create`` False makes a
    missing file an error instead of a new memory. Search "auto" is the embedded index in a
    file beside the store."""
    from apexmem_neo.store.sqlite import SQLiteGraphStore
    from apexmem_neo.tools import SQLiteQueryBackend

    config = config or MemoryConfig()
    base = config.home if config.home is not None else default_home()
    file = Path(path) if path is not None else base / "data" / "apexmem.sqlite"
    if not create and not file.is_file():
        raise StoreNotFoundError(
            f"no memory at {file}: add or ingest something first, or check the path (--db)"
        )
    search = "embedded" if config.search == "auto" else config.search
    if search == "neo4j":
        raise ApexMemError("search='neo4j' needs a Neo4j store; use 'embedded' or 'elasticsearch'")
    file.parent.mkdir(parents=True, exist_ok=True)
    store = SQLiteGraphStore(file)
    store.init_schema()
    checkpoint = Checkpoint(file)
    checkpoint.open()
    parts = _Parts(base, config)
    es_index = _es_name(config.index_name, str(file.resolve()))
    index, where, closers = _search_index(
        search, parts, file.with_suffix(".search.sqlite"), es_index
    )
    return parts.memory(
        cls, store, SQLiteQueryBackend(file), checkpoint, index, str(file), where, closers
    )


def open_neo4j(
    cls: type[Memory],
    uri_or_driver: Any = "bolt://127.0.0.1:7687",
    config: MemoryConfig | None = None,
    *,
    auth: Any = None,
    database: str | None = None,
    checkpoint: str | Path | None = None,
) -> Memory:
    """A memory in Neo4j: a URI (``bolt://``, ``neo4j://``, ``neo4j+s://``...) with ``auth``
    (user, password), or a ``neo4j.Driver`` (left open on close: the caller owns it), opened
    as ``config`` says. The construction checkpoint lives in a SQLite file (default under
    HOME/checkpoints). Search "auto" is Neo4j's native indexes."""
    from apexmem_neo.store.neo4j import Neo4jGraphStore
    from apexmem_neo.store.neo4j.server_settings import warn_about_settings
    from apexmem_neo.tools import Neo4jQueryBackend

    config = config or MemoryConfig()
    search = "neo4j" if config.search == "auto" else config.search
    if search == "embedded":
        raise ApexMemError("search='embedded' needs a SQLite store; use 'neo4j' or 'elasticsearch'")
    driver, uri, owned = _driver(uri_or_driver, auth)
    closers: list[Callable[[], None]] = [driver.close] if owned else []
    store = Neo4jGraphStore(driver, database, uri=uri)
    _neo4j_call(driver.verify_connectivity, uri, closers)  # one round trip, no retries
    _neo4j_call(store.init_schema, uri, closers)
    warn_about_settings(driver, database)
    base = config.home if config.home is not None else default_home()
    digest = hashlib.sha256(f"{uri}|{database or ''}".encode()).hexdigest()[:12]
    file = Path(checkpoint) if checkpoint else base / "checkpoints" / f"neo4j-{digest}.db"
    file.parent.mkdir(parents=True, exist_ok=True)
    marks = Checkpoint(file)
    marks.open()
    parts = _Parts(base, config)
    location = uri + (f" (database {database})" if database else "")
    index: HybridSearch | None
    where: str | None
    if search == "neo4j":
        index, where = _neo4j_index(parts, driver, database, uri)
    else:
        es_index = f"{config.index_name.lower()}-neo4j"
        index, where, more = _search_index(search, parts, file, es_index)
        closers += more
    return parts.memory(
        cls, store, Neo4jQueryBackend(driver, database), marks, index, location, where, closers
    )


def _neo4j_index(
    parts: _Parts, driver: Any, database: str | None, uri: str
) -> tuple[HybridSearch, str]:
    """Neo4j's native vector and full-text indexes under the config's namespace."""
    from apexmem_neo.search.backends.neo4j_native import Neo4jNativeIndex

    name = parts.config.index_name
    native = Neo4jNativeIndex(driver, namespace=name, database=database, url=uri)
    return parts.hybrid(native), f"Neo4j namespace {name!r} at {uri}"


def open_from_settings(
    cls: type[Memory],
    settings: Settings | None = None,
    *,
    store: str | None = None,
    db: str | Path | None = None,
    index_name: str | None = None,
    create: bool = True,
    agent_config: AgentConfig | None = None,
    with_lm: bool = True,
) -> Memory:
    """The memory the settings (the environment by default) describe; keyword arguments
    override the store, its file, the search namespace and whether a missing file is made.
    ``with_lm`` False opens it without a language model (nor LiteLLM's import), for reads
    that never ask one."""
    s = settings or Settings()
    chosen = store or s.store
    if chosen not in ("sqlite", "neo4j"):
        raise ApexMemError(f"store must be sqlite or neo4j, not {chosen!r}")
    overrides: dict[str, Any] = {"search": _search_choice(s, chosen)}
    if index_name:
        overrides["index_name"] = index_name
    if agent_config is not None:
        overrides["agent_config"] = agent_config
    if not with_lm:
        overrides["lm"] = None
    config = MemoryConfig.from_settings(s).with_options(overrides)
    if chosen == "sqlite":
        path = Path(db) if db is not None else s.sqlite_path
        return open_sqlite(cls, path, config, create=create)
    return open_neo4j(
        cls, s.neo4j_uri, config, auth=s.neo4j_auth(), database=s.neo4j_database, checkpoint=db
    )


def _search_choice(s: Settings, store: str) -> SearchBackend:
    chosen = s.search_backend
    if chosen == "embedded" and store != "sqlite":
        raise ApexMemError(
            "APEXMEM_SEARCH=embedded needs the SQLite store (its file sits beside it)"
        )
    if chosen == "neo4j" and store != "neo4j":
        raise ApexMemError("APEXMEM_SEARCH=neo4j needs APEXMEM_STORE=neo4j")
    return chosen


class _Parts:
    """The LM and embedder of a memory being opened, from its config."""

    def __init__(self, home: Path, config: MemoryConfig) -> None:
        self.config = config
        self.models_dir = config.models_dir or default_models_dir()
        self.lm, self.lm_check = resolve_lm(config.lm, config.lm_api_base, config.api_key())
        self.embed_cache = config.embed_cache or home / "cache" / "embeddings.db"
        self._embedder: Embedder | None = None
        self.closers: list[Callable[[], None]] = []

    def embedder(self) -> Embedder:
        if self._embedder is None:
            from apexmem_neo.search.embedder import DEFAULT_MODEL, make_embedder

            embedder = make_embedder(
                self.config.embedder or DEFAULT_MODEL,
                models_dir=self.models_dir,
                cache_path=self.embed_cache,
                api_base=self.config.embed_api_base,
                runtime=self.config.embed_runtime,
            )
            close = getattr(embedder, "close", None)
            if callable(close):
                self.closers.append(close)
            self._embedder = embedder
        return self._embedder

    def hybrid(self, index: SearchIndex) -> HybridSearch:
        return HybridSearch(index, self.embedder())

    def memory(
        self,
        cls: type[Memory],
        store: Any,
        backend: Any,
        checkpoint: Checkpoint,
        search: HybridSearch | None,
        location: str,
        where: str | None,
        closers: list[Callable[[], None]],
    ) -> Memory:
        config = self.config
        agent = config.agent_config or default_agent_config(self.lm, config.answer_program)
        return cls(
            store, backend, checkpoint, search=search, lm=self.lm, agent_config=agent,
            location=location, search_location=where, lm_check=self.lm_check,
            on_close=[*self.closers, *closers], max_turn_chars=config.max_turn_chars,
        )  # fmt: skip


def default_agent_config(lm: Any, answer_program: str | Path | None = None) -> AgentConfig:
    """The agent's defaults for ``lm``: a short loop for a model served on this machine, and
    the compiled answer program ``answer_program`` names (APEXMEM_ANSWER_PROGRAM)."""
    api_base = getattr(lm, "kwargs", {}).get("api_base")
    program = str(answer_program) if answer_program is not None else None
    return AgentConfig(max_iters=max_iters_for(api_base), answer_program=program)


def resolve_lm(
    lm: Any, api_base: str | None = None, api_key: str | None = None
) -> tuple[Any, Callable[[], None] | None]:
    """A ``dspy.LM`` (or None) from a LiteLLM model string or an LM, and a check that a
    local server answers. The local api_base applies only to the local default model; any
    other model goes to its provider with the provider's own key variable."""
    if lm is None:
        return None, None
    if not isinstance(lm, str):
        quiet_litellm()
        base = getattr(lm, "kwargs", {}).get("api_base")
        return lm, local_lm_check(base, str(getattr(lm, "model", "") or "the given LM"))
    if lm == LOCAL_LM and api_base is None:
        api_base, api_key = LOCAL_LM_API_BASE, api_key or "local"
    model = make_lm(lm, api_base, api_key)
    return model, local_lm_check(api_base, lm)


def local_lm_check(api_base: str | None, model: str = LOCAL_LM) -> Callable[[], None] | None:
    """A once-only check that an LM server on this machine answers (a hosted one is not
    probed: its errors come back from the provider); ``LanguageModelUnreachableError``
    naming ``model`` when it does not."""
    if not api_base or not is_local_address(api_base):
        return None
    answered: list[bool] = []

    def check() -> None:
        if answered:
            return
        import httpx

        try:
            httpx.get(f"{api_base.rstrip('/')}/models", timeout=5.0).raise_for_status()
        except httpx.HTTPError as exc:
            cause = f"nothing answers at {api_base} ({type(exc).__name__})"
            raise unreachable(model, api_base, cause) from None
        answered.append(True)

    return check


def _driver(uri_or_driver: Any, auth: Any) -> tuple[Any, str, bool]:
    """(driver, uri, whether this memory owns the driver); a driver opened here fails fast
    and keeps unknown-name notifications off (``store.neo4j.connect``)."""
    if not isinstance(uri_or_driver, str):
        return uri_or_driver, _driver_uri(uri_or_driver), False
    from apexmem_neo.store.neo4j.connect import open_driver

    return open_driver(uri_or_driver, auth), uri_or_driver, True


def _driver_uri(driver: Any) -> str:
    address = getattr(driver, "initial_addresses", None) or []
    return f"bolt://{address[0]}" if address else "neo4j"


def _neo4j_call(call: Callable[[], None], uri: str, closers: list[Callable[[], None]]) -> None:
    """``call`` with the driver's connection and auth failures as one-line errors (closing
    what ``closers`` close first)."""
    from neo4j.exceptions import AuthError, ServiceUnavailable

    from apexmem_neo.store.neo4j.connect import unreachable_reason

    try:
        call()
    except ApexMemError:
        _close_all(closers)
        raise
    except AuthError:
        _close_all(closers)
        raise ApexMemError(
            f"Neo4j at {uri} refused the credentials: set NEO4J_USER and NEO4J_PASSWORD "
            "(or pass auth=(user, password))"
        ) from None
    except ServiceUnavailable as exc:
        _close_all(closers)
        raise ServiceUnavailableError("neo4j", uri, unreachable_reason(exc)) from None


def _close_all(closers: list[Callable[[], None]]) -> None:
    for close in closers:
        close()


def _es_name(namespace: str, key: str) -> str:
    """An Elasticsearch index per store: the namespace and a hash of the store's path."""
    return f"{namespace.lower()}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def _search_index(
    search: SearchBackend | None, parts: _Parts, embedded_file: Path, es_index: str
) -> tuple[HybridSearch | None, str | None, list[Callable[[], None]]]:
    """(search, where it is, what to close) for the embedded or Elasticsearch choice."""
    if search is None:
        return None, None, []
    if search == "embedded":
        from apexmem_neo.search.backends.embedded import EmbeddedIndex

        index = EmbeddedIndex(embedded_file)
        return parts.hybrid(index), str(embedded_file), [index.close]
    if search != "elasticsearch":
        raise ApexMemError(f"search must be embedded, neo4j, elasticsearch or None, not {search!r}")
    from apexmem_neo.search.backends.elasticsearch import ElasticsearchIndex

    config = parts.config
    client, url, owned = _es_client(config.elasticsearch, config.elasticsearch_options or {})
    closers = [client.close] if owned else []
    where = f"Elasticsearch index {es_index!r} at {url}"
    return parts.hybrid(ElasticsearchIndex(client, es_index, url)), where, closers


def _es_client(given: Any, options: dict[str, Any]) -> tuple[Any, str, bool]:
    if given is not None and not isinstance(given, str):
        return given, "Elasticsearch", False
    from elasticsearch import Elasticsearch

    url = given or DEFAULT_ES_URL
    client = Elasticsearch(url, request_timeout=ES_REQUEST_TIMEOUT_S, **options)
    return client, url, True
