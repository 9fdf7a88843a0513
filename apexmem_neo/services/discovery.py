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

from apexmem_neo.errors import ServiceUnavailableError
from apexmem_neo.services.process import wait_until
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
        import docker
    except ImportError:
        return False
    try:
        docker.from_env(timeout=3).ping()  # type: ignore[attr-defined]  # mypy sees docker/ here
    except Exception:  # any failure means: no usable engine
        return False
    return True


# Images and settings mirror docker/compose.yml: auth and security off, like the launchers.
_CONTAINERS: dict[str, tuple[str, int, str, dict[str, str]]] = {
    "neo4j": ("neo4j:5.26-community", 7687, "bolt", {"NEO4J_AUTH": "none"}),
    "es": (
        "docker.elastic.co/elasticsearch/elasticsearch:8.19.9",
        9200,
        "http",
        {
            "discovery.type": "single-node",
            "xpack.security.enabled": "false",
            "ES_JAVA_OPTS": "-Xms512m -Xmx512m",
        },
    ),
}


def _start_container(name: str, settings: Settings) -> FoundService | None:
    """Neo4j or Elasticsearch in a throwaway container; None for services it cannot run."""
    if name not in _CONTAINERS:
        return None
    from testcontainers.core.container import DockerContainer

    image, port, scheme, env = _CONTAINERS[name]
    container = DockerContainer(image).with_exposed_ports(port)
    for key, value in env.items():
        container = container.with_env(key, value)
    container.start()
    host, mapped = container.get_container_host_ip(), int(container.get_exposed_port(port))
    probe = build_service(name, settings)
    probe.host, probe.port = host, mapped
    if wait_until(probe.is_healthy, lambda: None, timeout=180, interval=1.0) is not None:
        container.stop()
        raise ServiceUnavailableError(name, f"{host}:{mapped}", "container never became healthy")
    return FoundService(name, f"{scheme}://{host}:{mapped}", "docker", container.stop)


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
        found = _start_container(name, settings)
        if found is not None:
            return found
    result = service.up()

    def stop() -> None:
        if result.started:
            service.down()

    return FoundService(name, url, "launcher", stop)
