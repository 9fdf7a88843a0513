"""Fixtures of the tool unit tests: the test graph in a SQLite file and its query backend."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools import SQLiteQueryBackend
from tests.unit.store.backends import FakeClock
from tests.unit.tools.graph_data import build_batch


def make_sqlite_graph(path: Path) -> Path:
    store = SQLiteGraphStore(path, clock=FakeClock())
    store.init_schema()
    store.write(build_batch())
    store.close()
    return path


@pytest.fixture(scope="module")
def sqlite_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield make_sqlite_graph(tmp_path_factory.mktemp("tools") / "graph.sqlite3")


@pytest.fixture
def sqlite_backend(sqlite_path: Path) -> SQLiteQueryBackend:
    return SQLiteQueryBackend(sqlite_path)
