"""Find a service for tests and benchmarks: environment URI, a healthy server, Docker, the launcher.

DESIGN.md, "Services": the order is (1) a URI from the environment, (2) a healthy server
already on the configured port, (3) testcontainers when a Docker engine answers, (4) the local
launcher. What this module starts, it hands back with a ``stop`` callable so the caller can
stop exactly that and nothing else.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from apexmem_neo.services.registry import build_service
from apexmem_neo.settings import Settings

ENV_VARS = {"neo4j": "NEO4J_URI", "es": "ELASTICSEARCH_URL", "llm": "APEXMEM_LM_API_BASE"}


@dataclass
class FoundService:
    """Where a service answers, how it was found, and how to stop it if we started it."""

    name: str
    url: str
    source: str  # env | running | docker | launcher
    stop: Callable[[], None] = field(default=lambda: None)


def _configured_url(name: str, settings: Settings) -> str:
    if name == "neo4j":
        return settings.neo4j_uri
    if name == "es":
        return settings.elasticsearch_url
    return settings.lm_api_base


def docker_engine_answers() -> bool:
    """True when a Docker engine (not just the client) responds."""
    try:
        import docker  # type: ignore[import-untyped]
    except ImportError:
        return False
    try:
        docker.from_env(timeout=3).ping()
    except Exception:  # any failure means: no usable engine
        return False
    return True


def _start_container(name: str) -> FoundService | None:
    """Neo4j and Elasticsearch through testcontainers; None for services it cannot run."""
    if name == "neo4j":
        from testcontainers.neo4j import Neo4jContainer

        neo = Neo4jContainer("neo4j:5.26-community").with_env("NEO4J_AUTH", "none")
        neo.start()
        return FoundService(name, neo.get_connection_url(), "docker", neo.stop)
    if name == "es":
        from testcontainers.elasticsearch import ElasticSearchContainer

        es = ElasticSearchContainer("elasticsearch:8.19.3", mem_limit="2G")
        es.start()
        return FoundService(name, es.get_url(), "docker", es.stop)
    return None


def find_service(name: str, settings: Settings | None = None) -> FoundService:
    """A reachable service called ``name``, found in the documented order."""
    settings = settings or Settings()
    if os.environ.get(ENV_VARS[name]):
        return FoundService(name, os.environ[ENV_VARS[name]], "env")
    service = build_service(name, settings)
    url = _configured_url(name, settings)
    if service.is_healthy():
        return FoundService(name, url, "running")
    if docker_engine_answers():
        found = _start_container(name)
        if found is not None:
            return found
    result = service.up()
    stop: Callable[[], None] = service.down if result.started else (lambda: None)
    return FoundService(name, url, "launcher", stop)
