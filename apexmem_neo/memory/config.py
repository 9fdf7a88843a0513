"""``MemoryConfig``: everything a memory is opened with, apart from where its store lives.

``Memory.sqlite(path, config=...)`` and ``Memory.neo4j(uri, config=...)`` take one; the CLI,
the MCP server and the REST server build theirs with ``MemoryConfig.from_settings``, the one
place the environment's settings become a config (DESIGN style 4: settings are read at the
edges). The store's own arguments (the SQLite file, the Neo4j URI, credentials and database)
stay arguments of the factories, so one config serves either store.

The factories also take each field as a keyword option (``Memory.sqlite(path, lm=None)``);
``MemoryOptions`` types them and ``with_options`` lays them over a config, refusing a name that
is not a field.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from apexmem_neo.errors import InvalidInputError
from apexmem_neo.search.protocol import EmbedRuntime
from apexmem_neo.settings import DEFAULT_INDEX_NAME, LOCAL_LM, MAX_TURN_CHARS, Settings

if TYPE_CHECKING:
    import dspy
    from elasticsearch import Elasticsearch

    from apexmem_neo.agent.models import AgentConfig
    from apexmem_neo.search.protocol import Embedder

SearchBackend = Literal["auto", "embedded", "neo4j", "elasticsearch"]
"""Where a memory's search index lives; "auto" is the store's own (the embedded index beside
a SQLite file, Neo4j's native indexes in Neo4j)."""


class MemoryConfig(BaseModel):
    """How a memory is opened: its LM, its search index and embedder, where its state lives,
    and the limits of what it stores. Frozen: change one with ``with_options`` or
    ``model_copy``. Secrets (the LM key, Elasticsearch credentials) never show in ``repr``."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    # ---- the language model and the agent ----
    lm: Any = LOCAL_LM
    """A LiteLLM model id, a ``dspy.LM``, or None for a memory that asks no model."""
    lm_api_base: str | None = None
    """The model's server; the local llama-server by default for the local model only."""
    lm_api_key: SecretStr | None = None
    """The model's key; other models fall back to their provider's own key variable."""
    agent_config: Any = None
    """An ``AgentConfig``; None for the defaults that suit ``lm``."""
    answer_program: Path | None = None
    """A compiled answer program (``apexmem optimize``) for the agent's fast path."""

    # ---- search ----
    search: SearchBackend | None = "auto"
    """Which search index: "auto", "embedded", "neo4j", "elasticsearch", or None for none."""
    index_name: str = DEFAULT_INDEX_NAME
    """The index's namespace (a Neo4j index prefix, an Elasticsearch index name)."""
    elasticsearch: Any = None
    """An Elasticsearch URL or client (the client is left open on close: the caller owns it)."""
    elasticsearch_options: dict[str, Any] | None = Field(default=None, repr=False)
    """Keyword arguments for the Elasticsearch client made from a URL (an API key, basic
    auth); kept out of ``repr`` since they carry credentials."""

    # ---- embeddings ----
    embedder: Any = None
    """A model name (sentence-transformers, or a LiteLLM embedding id) or an ``Embedder``;
    None for the default model."""
    embed_api_base: str | None = None
    """The server of a hosted embedding model."""
    embed_runtime: EmbedRuntime = "auto"
    """How a local model runs: "onnx" (ONNX Runtime, no torch at run time), "torch", or
    "auto" (ONNX for a model it can run, which the packaged ones are)."""
    models_dir: Path | None = None
    """Where packaged embedding models are unpacked (a machine-wide cache by default)."""
    embed_cache: Path | None = None
    """The embedding cache file (default HOME/cache/embeddings.db)."""

    # ---- state and limits ----
    home: Path | None = None
    """Where a memory keeps its files by default (``~/.apexmem``)."""
    max_turn_chars: int = MAX_TURN_CHARS
    """The longest turn text stored; a longer turn is refused before anything is written."""

    @field_validator("max_turn_chars", mode="before")
    @classmethod
    def _usable_limit(cls, value: Any) -> int:
        from apexmem_neo.memory.messages import check_max_turn_chars

        return check_max_turn_chars(value)

    @classmethod
    def from_settings(cls, settings: Settings) -> MemoryConfig:
        """The config the settings (APEXMEM_LM, APEXMEM_SEARCH, APEXMEM_HOME...) describe;
        the store they name is opened by ``Memory.from_settings``."""
        api_base, api_key = settings.lm_endpoint()
        return cls(
            lm=settings.lm,
            lm_api_base=api_base,
            lm_api_key=SecretStr(api_key) if api_key is not None else None,
            answer_program=settings.answer_program,
            search=settings.search_backend,
            index_name=settings.index_name,
            elasticsearch=settings.elasticsearch_url,
            elasticsearch_options=settings.elasticsearch_options(),
            embedder=settings.embed_model,
            embed_api_base=settings.embed_api_base,
            embed_runtime=settings.embed_runtime,
            models_dir=settings.models_dir,
            embed_cache=settings.embed_cache,
            home=settings.apexmem_home,
            max_turn_chars=settings.max_turn_chars,
        )

    def api_key(self) -> str | None:
        """The LM key in clear, for the one call that hands it to the model client."""
        return self.lm_api_key.get_secret_value() if self.lm_api_key else None

    def with_options(self, options: Mapping[str, Any]) -> MemoryConfig:
        """This config with ``options`` (field name to value) laid over it, validated.

        An unknown name or a bad value is an ``InvalidInputError`` naming it."""
        fields = type(self).model_fields
        unknown = sorted(set(options) - set(fields))
        if unknown:
            raise InvalidInputError(
                f"unknown memory option {', '.join(map(repr, unknown))}; "
                f"the options are: {', '.join(fields)}"
            )
        if not options:
            return self
        given = {name: getattr(self, name) for name in self.model_fields_set}
        try:
            return type(self).model_validate({**given, **options})
        except ValidationError as exc:
            raise InvalidInputError(_one_line(exc)) from None


def _one_line(error: ValidationError) -> str:
    """A pydantic validation error as one line: each bad field and why."""
    problems = [
        f"{'.'.join(map(str, item['loc']))}: {item['msg'].removeprefix('Value error, ')}"
        for item in error.errors()
    ]
    return "invalid memory option " + "; ".join(problems)


class MemoryOptions(TypedDict, total=False):
    """``MemoryConfig``'s fields as keyword options of ``Memory.sqlite`` and ``Memory.neo4j``,
    with the types a caller may pass (a test keeps the two lists equal)."""

    lm: str | dspy.LM | None
    lm_api_base: str | None
    lm_api_key: str | SecretStr | None
    agent_config: AgentConfig | None
    answer_program: str | Path | None
    search: SearchBackend | None
    index_name: str
    elasticsearch: str | Elasticsearch | None
    elasticsearch_options: dict[str, Any] | None
    embedder: str | Embedder | None
    embed_api_base: str | None
    embed_runtime: EmbedRuntime
    models_dir: str | Path | None
    embed_cache: str | Path | None
    home: str | Path | None
    max_turn_chars: int


class SettingsChoices(TypedDict, total=False):
    """The keywords of ``Memory.from_settings`` over what the settings say: the store, its
    file, the search namespace, whether a missing file is made, the agent's config, and
    whether to load the LM (``open_from_settings`` takes them and their defaults)."""

    store: str | None
    db: str | Path | None
    index_name: str | None
    create: bool
    agent_config: AgentConfig | None
    with_lm: bool


def memory_config(config: MemoryConfig | None, options: Mapping[str, Any]) -> MemoryConfig:
    """``config`` (the defaults if None) with the keyword ``options`` of a factory over it."""
    return (config or MemoryConfig()).with_options(options)
