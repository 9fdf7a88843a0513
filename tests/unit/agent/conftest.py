"""Fixtures of the agent unit tests: the Alice store, its query backend and search."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from apexmem_neo.search import HybridSearch
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools import SQLiteQueryBackend
from tests.unit.agent.alice import alice_search, alice_store


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "alice.sqlite"


@pytest.fixture
def store(store_path: Path) -> Iterator[SQLiteGraphStore]:
    s = alice_store(store_path)
    yield s
    s.close()


@pytest.fixture
def backend(store: SQLiteGraphStore, store_path: Path) -> SQLiteQueryBackend:
    return SQLiteQueryBackend(store_path)


@pytest.fixture
def searcher() -> HybridSearch:
    return alice_search()
