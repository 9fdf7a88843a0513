"""Build the local services from Settings. The only place that knows all of them."""

from __future__ import annotations

from urllib.parse import urlparse

from apexmem_neo.services.base import LocalService
from apexmem_neo.services.elasticsearch_server import ElasticsearchService
from apexmem_neo.services.llama_server import LlamaServerService, SmallLlamaServerService
from apexmem_neo.services.neo4j_server import Neo4jService
from apexmem_neo.settings import SMALL_LM_API_BASE, Settings

SERVICE_NAMES = ("neo4j", "es", "llm")
"""The default set: what `services up` without names and `doctor` start."""
OPTIONAL_SERVICE_NAMES = ("llm-small",)
"""Started only when named: the 0.5B model beside the default one (issue 53)."""
ALL_SERVICE_NAMES = SERVICE_NAMES + OPTIONAL_SERVICE_NAMES


def _host_port(url: str, default_port: int) -> tuple[str, int]:
    parsed = urlparse(url)
    return parsed.hostname or "127.0.0.1", parsed.port or default_port


def build_service(name: str, settings: Settings) -> LocalService:
    """The LocalService called ``name`` (one of ALL_SERVICE_NAMES), configured from settings."""
    home = settings.apexmem_home
    if name == "neo4j":
        host, port = _host_port(settings.neo4j_uri, 7687)
        return Neo4jService(home, host, port)
    if name == "es":
        host, port = _host_port(settings.elasticsearch_url, 9200)
        return ElasticsearchService(home, host, port)
    if name == "llm":
        host, port = _host_port(settings.lm_api_base, 8080)
        return LlamaServerService(home, host, port)
    if name == "llm-small":
        host, port = _host_port(SMALL_LM_API_BASE, 8082)
        return SmallLlamaServerService(home, host, port)
    raise ValueError(f"unknown service {name!r}; choose one of {', '.join(ALL_SERVICE_NAMES)}")
