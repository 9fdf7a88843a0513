"""The shared property-based cases (tests/unit/store/test_properties.py) on Neo4j.

Every case that takes ``make_store`` runs re-wrapped with a smaller example budget
(``NEO4J_SETTINGS``) but the same strategies and body, against the in-memory reference.
Stores here split batches into 3-row UNWIND chunks, so random batches cross chunk edges.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from neo4j import Driver

from apexmem_neo.store import GraphStore
from tests.integration.store.conftest import store_maker
from tests.unit.store import test_properties as shared_properties

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]

NEO4J_SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@pytest.fixture
def make_store(neo4j_driver: Driver) -> Iterator[Callable[[], GraphStore]]:
    with store_maker(neo4j_driver, chunk_rows=3) as make:
        yield make


def _with_neo4j_budget(test: Any) -> Any:
    """The same @given test (same strategies, same body) under ``NEO4J_SETTINGS``."""
    handle = test.hypothesis
    return NEO4J_SETTINGS(given(**handle._given_kwargs)(handle.inner_test))


def _store_property_tests() -> dict[str, Any]:
    found = {}
    for name, test in vars(shared_properties).items():
        handle = getattr(test, "hypothesis", None)
        takes_store = handle is not None and "make_store" in _parameters(handle.inner_test)
        if name.startswith("test_") and takes_store:
            found[name] = _with_neo4j_budget(test)
    return found


def _parameters(function: Any) -> set[str]:
    return set(inspect.signature(function).parameters)


globals().update(_store_property_tests())
