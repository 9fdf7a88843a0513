"""Fixtures of the shared store suite: ``make_store`` and ``store``, one param per backend."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from apexmem_neo.store import GraphStore
from tests.unit.store.backends import STORE_FACTORIES, FakeClock


@pytest.fixture(params=sorted(STORE_FACTORIES))
def make_store(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[[], GraphStore]]:
    """A function returning a fresh, initialised, empty store of the parametrised backend."""
    factory = STORE_FACTORIES[request.param]
    opened: list[GraphStore] = []
    counter = itertools.count()

    def make() -> GraphStore:
        folder = tmp_path / f"store{next(counter)}"
        folder.mkdir()
        store = factory(folder, FakeClock())
        store.init_schema()
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def store(make_store: Callable[[], GraphStore]) -> GraphStore:
    return make_store()
