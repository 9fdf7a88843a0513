"""Settings read from the environment; only ``Memory.from_settings``, the CLI and the benchmarks
read them (DESIGN style 4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

LOCAL_LM = "openai/qwen2.5-coder-1.5b-instruct"
"""The default model: Qwen2.5-Coder-1.5B served by the local llama-server."""
LOCAL_LM_API_BASE = "http://127.0.0.1:8080/v1"
SMALL_LM = "openai/qwen2.5-coder-0.5b-instruct"
SMALL_LM_API_BASE = "http://127.0.0.1:8082/v1"
"""Qwen2.5-Coder-0.5B from `apexmem services up llm-small` (issue 53): to use it, set
APEXMEM_LM and APEXMEM_LM_API_BASE to these and APEXMEM_LM_API_KEY to any word (``local``).
Port 8081 is the Mem0 benchmark's server."""
DEFAULT_INDEX_NAME = "apexmem"
MAX_TURN_CHARS = 100_000
"""The longest turn text a memory stores by default (APEXMEM_MAX_TURN_CHARS)."""
MAX_TURN_CHARS_LIMIT = 250_000
"""The most the turn length limit may be: a turn that long is at most 1,000,000 bytes in
UTF-8, the largest value a query reads back (the SQLite query backend's value cap), so the
index rebuild, export and GraphQuery read every stored turn."""


def default_home() -> Path:
    return Path.home() / ".apexmem"


def default_models_dir() -> Path:
    """Unpacked embedding models: a machine-wide cache, apart from APEXMEM_HOME so every
    memory home (and every test's) shares one copy."""
    return Path.home() / ".cache" / "apexmem" / "models"


class Settings(BaseSettings):
    """Configuration at the edges: the store, service addresses and credentials, the LM, and
    where caches and state live."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore", populate_by_name=True)

    apexmem_home: Path = Field(default_factory=default_home, alias="APEXMEM_HOME")
    store: Literal["sqlite", "neo4j"] = Field(default="sqlite", alias="APEXMEM_STORE")
    db_path: Path | None = Field(default=None, alias="APEXMEM_DB")
    """The SQLite store file (default APEXMEM_HOME/data/apexmem.sqlite)."""
    neo4j_uri: str = Field(default="bolt://127.0.0.1:7687", alias="NEO4J_URI")
    neo4j_user: str | None = Field(default=None, alias="NEO4J_USER")
    neo4j_password: SecretStr | None = Field(default=None, alias="NEO4J_PASSWORD")
    neo4j_database: str | None = Field(default=None, alias="NEO4J_DATABASE")
    elasticsearch_url: str = Field(default="http://127.0.0.1:9200", alias="ELASTICSEARCH_URL")
    elasticsearch_api_key: SecretStr | None = Field(default=None, alias="ELASTICSEARCH_API_KEY")
    elasticsearch_user: str | None = Field(default=None, alias="ELASTICSEARCH_USER")
    elasticsearch_password: SecretStr | None = Field(default=None, alias="ELASTICSEARCH_PASSWORD")
    # Which search index `index`, `ask`, `mcp` use: auto = embedded beside a SQLite store,
    # Neo4j-native for a Neo4j store; elasticsearch = an index at ELASTICSEARCH_URL.
    search_backend: Literal["auto", "embedded", "neo4j", "elasticsearch"] = Field(
        default="auto", alias="APEXMEM_SEARCH"
    )
    index_name: str = Field(default=DEFAULT_INDEX_NAME, alias="APEXMEM_INDEX_NAME")
    lm: str = Field(default=LOCAL_LM, alias="APEXMEM_LM")
    lm_api_base: str = Field(default=LOCAL_LM_API_BASE, alias="APEXMEM_LM_API_BASE")
    """The local llama-server's address; used for another model only when set explicitly."""
    lm_api_key: SecretStr | None = Field(default=None, alias="APEXMEM_LM_API_KEY")
    # The search's default model (search.embedder.DEFAULT_MODEL; a test keeps the two equal).
    answer_program: Path | None = Field(default=None, alias="APEXMEM_ANSWER_PROGRAM")
    """A compiled answer program (``apexmem optimize``) for the agent's fast path."""
    embed_model: str = Field(default="all-mpnet-base-v2", alias="APEXMEM_EMBED_MODEL")
    embed_api_base: str | None = Field(default=None, alias="APEXMEM_EMBED_API_BASE")
    embed_runtime: Literal["auto", "onnx", "torch"] = Field(
        default="auto", alias="APEXMEM_EMBED_RUNTIME"
    )
    """How a local embedding model runs: ONNX Runtime or torch (auto: ONNX when it can)."""
    embed_cache_path: Path | None = Field(default=None, alias="APEXMEM_EMBED_CACHE")
    models_dir: Path = Field(default_factory=default_models_dir, alias="APEXMEM_MODELS_DIR")
    max_turn_chars: int = Field(
        default=MAX_TURN_CHARS, ge=1, le=MAX_TURN_CHARS_LIMIT, alias="APEXMEM_MAX_TURN_CHARS"
    )
    """The longest turn text stored; a longer turn is refused before anything is written."""

    @property
    def cache_dir(self) -> Path:
        return self.apexmem_home / "cache"

    @property
    def embed_cache(self) -> Path:
        """The embedding cache (SQLite): APEXMEM_EMBED_CACHE, else under APEXMEM_HOME/cache."""
        return self.embed_cache_path or self.cache_dir / "embeddings.db"

    @property
    def run_dir(self) -> Path:
        return self.apexmem_home / "run"

    @property
    def log_dir(self) -> Path:
        return self.apexmem_home / "logs"

    @property
    def data_dir(self) -> Path:
        return self.apexmem_home / "data"

    @property
    def sqlite_path(self) -> Path:
        return self.db_path or self.data_dir / "apexmem.sqlite"

    def lm_endpoint(self) -> tuple[str | None, str | None]:
        """(api_base, api_key) for ``lm``: the local server for the local default model;
        for any other model only what was set explicitly, so LiteLLM uses the provider's own
        address and key variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...)."""
        key = self.lm_api_key.get_secret_value() if self.lm_api_key else None
        if self.lm == LOCAL_LM:
            return self.lm_api_base, key or "local"
        explicit = "lm_api_base" in self.model_fields_set
        return (self.lm_api_base if explicit else None), key

    def neo4j_auth(self) -> tuple[str, str] | None:
        if self.neo4j_user is None:
            return None
        password = self.neo4j_password.get_secret_value() if self.neo4j_password else ""
        return (self.neo4j_user, password)

    def elasticsearch_options(self) -> dict[str, Any]:
        """Keyword arguments for the Elasticsearch client: an API key or basic auth."""
        if self.elasticsearch_api_key is not None:
            return {"api_key": self.elasticsearch_api_key.get_secret_value()}
        if self.elasticsearch_user is not None:
            password = self.elasticsearch_password
            secret = password.get_secret_value() if password else ""
            return {"basic_auth": (self.elasticsearch_user, secret)}
        return {}

    def effective(self) -> dict[str, Any]:
        """Every setting by its variable name, secrets masked, plus what the LM resolves to
        (`apexmem config --json`)."""
        out: dict[str, Any] = {}
        for name, field in type(self).model_fields.items():
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                value = "****"
            out[field.alias or name] = str(value) if isinstance(value, Path) else value
        api_base, api_key = self.lm_endpoint()
        out["lm_resolved"] = {"model": self.lm, "api_base": api_base,
                              "api_key": "****" if api_key else None}  # fmt: skip
        out["sqlite_path"] = str(self.sqlite_path)
        return out
