"""The shared SearchIndex suite on the embedded index (SQLite FTS5 + numpy)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from apexmem_neo.search.backends.embedded import EmbeddedIndex
from apexmem_neo.search.protocol import SearchError
from tests.unit.search.contract import *  # noqa: F403


@pytest.fixture(params=["memory", "file"])
def make_index(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[[], EmbeddedIndex]]:
    made: list[EmbeddedIndex] = []

    def _make() -> EmbeddedIndex:
        path = ":memory:" if request.param == "memory" else tmp_path / f"s{len(made)}.sqlite3"
        made.append(EmbeddedIndex(path))
        return made[-1]

    yield _make
    for index in made:
        index.close()


def test_index_survives_reopening(tmp_path: Path) -> None:
    from apexmem_neo.search.engine import HybridSearch
    from apexmem_neo.testing import HashingEmbedder
    from tests.unit.search.contract import corpus

    embedder = HashingEmbedder(dimensions=16)
    first = HybridSearch(EmbeddedIndex(tmp_path / "x.sqlite3"), embedder)
    first.create()
    first.index_documents(corpus())
    first.index.close()
    again = HybridSearch(EmbeddedIndex(tmp_path / "x.sqlite3"), embedder)
    again.create()
    assert again.index.count() == len(corpus())
    assert again.search("necklace", k=1).turns[0].text.startswith("Caroline: My friends")


def test_use_before_create_and_dimension_mismatch(tmp_path: Path) -> None:
    index = EmbeddedIndex(tmp_path / "y.sqlite3")
    with pytest.raises(SearchError, match="create"):
        index.count()
    index.create(8)
    index.close()
    with pytest.raises(SearchError, match="8-d"):
        EmbeddedIndex(tmp_path / "y.sqlite3").create(16)
