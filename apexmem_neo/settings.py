"""Settings read from the environment; only the CLI and benchmarks read them (DESIGN style 4)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_home() -> Path:
    return Path.home() / ".apexmem"


def default_models_dir() -> Path:
    """Unpacked embedding models: a machine-wide cache, apart from APEXMEM_HOME so every
    memory home (and every test's) shares one copy."""
    return Path.home() / ".cache" / "apexmem" / "models"


class Settings(BaseSettings):
    """Configuration at the edges: service addresses, the LM, and where caches and state live."""

    model_config = SettingsConfigDict(env_prefix="", extra="ignore", populate_by_name=True)

    apexmem_home: Path = Field(default_factory=default_home, alias="APEXMEM_HOME")
    neo4j_uri: str = Field(default="bolt://127.0.0.1:7687", alias="NEO4J_URI")
    elasticsearch_url: str = Field(default="http://127.0.0.1:9200", alias="ELASTICSEARCH_URL")
    # Which search index `index`, `ask`, `mcp` use: auto = embedded beside a SQLite store,
    # Neo4j-native for a Neo4j store; elasticsearch = an index at ELASTICSEARCH_URL.
    search_backend: Literal["auto", "embedded", "neo4j", "elasticsearch"] = Field(
        default="auto", alias="APEXMEM_SEARCH"
    )
    lm: str = Field(default="openai/qwen2.5-coder-1.5b-instruct", alias="APEXMEM_LM")
    lm_api_base: str = Field(default="http://127.0.0.1:8080/v1", alias="APEXMEM_LM_API_BASE")
    lm_api_key: str = Field(default="local", alias="APEXMEM_LM_API_KEY")
    # The search's default model (search.embedder.DEFAULT_MODEL; a test keeps the two equal).
    embed_model: str = Field(default="all-mpnet-base-v2", alias="APEXMEM_EMBED_MODEL")
    embed_cache_path: Path | None = Field(default=None, alias="APEXMEM_EMBED_CACHE")
    models_dir: Path = Field(default_factory=default_models_dir, alias="APEXMEM_MODELS_DIR")

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
