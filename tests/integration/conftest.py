"""Fixtures that hand integration tests a real Neo4j, Elasticsearch and local LLM.

Each service is found in the order DESIGN.md gives (environment, running server, Docker,
local launcher); whatever a fixture starts it stops at the end of the session.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from elasticsearch import Elasticsearch
from neo4j import Driver, GraphDatabase

from apexmem_neo.services.discovery import FoundService, find_service


def _serve(name: str) -> Iterator[str]:
    found: FoundService = find_service(name)
    try:
        yield found.url
    finally:
        found.stop()


@pytest.fixture(scope="session")
def neo4j_uri() -> Iterator[str]:
    yield from _serve("neo4j")


@pytest.fixture(scope="session")
def neo4j_driver(neo4j_uri: str) -> Iterator[Driver]:
    driver = GraphDatabase.driver(neo4j_uri, auth=None)
    driver.verify_connectivity()
    yield driver
    driver.close()


@pytest.fixture(scope="session")
def es_url() -> Iterator[str]:
    yield from _serve("es")


@pytest.fixture(scope="session")
def es_client(es_url: str) -> Iterator[Elasticsearch]:
    client = Elasticsearch(es_url, request_timeout=30)
    yield client
    client.close()


@pytest.fixture(scope="session")
def lm_api_base() -> Iterator[str]:
    yield from _serve("llm")
